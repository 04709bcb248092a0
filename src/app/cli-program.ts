import { Command } from 'commander';

/**
 * Each command's module, loaded only when it runs: `wallet-sim report` need not load the server
 * (Fastify, the OpenAPI document, the schemas' validators), which took most of a second.
 * In the order `wallet-sim --help` lists them.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./start.js')).startCommand(),
  validate: async () => (await import('../commands/validate.js')).validateCommand(),
  openapi: async () => (await import('./openapi-command.js')).openapiCommand(),
  probe: async () => (await import('../commands/probe.js')).probeCommand(),
  send: async () => (await import('../commands/send.js')).sendCommand(),
  verify: async () => (await import('../commands/verify.js')).verifyCommand(),
  tail: async () => (await import('../commands/tail.js')).tailCommand(),
  report: async () => (await import('../commands/report.js')).reportCommand(),
  reconcile: async () => (await import('../commands/reconcile.js')).reconcileCommand(),
  keygen: async () => (await import('../commands/keygen.js')).keygenCommand(),
  'verify-report': async () => (await import('../commands/verify-report.js')).verifyReportCommand(),
  tenant: async () => (await import('../commands/tenant.js')).tenantCommand(),
};

/**
 * The `wallet-sim` program for a command line (`args`, without node and the script): the command
 * named first on it, alone; anything else (--help, help, a typo) gets them all, so help lists every
 * command and a mistyped one is answered with a suggestion.
 */
export async function cliProgram(args: readonly string[]): Promise<Command> {
  const program = new Command('wallet-sim')
    .description('A sandbox seamless wallet for testing login / bet / bet_result callbacks')
    .version('0.1.0')
    .showHelpAfterError();
  const named = args[0];
  const load = named !== undefined && Object.hasOwn(COMMANDS, named) ? [COMMANDS[named]!] : Object.values(COMMANDS);
  for (const command of await Promise.all(load.map((f) => f()))) program.addCommand(command);
  return program;
}
