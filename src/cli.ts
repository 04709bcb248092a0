#!/usr/bin/env node
import { Command } from 'commander';

// A reader that stops early (`wallet-sim openapi | head -1`) closes the pipe: end quietly, as
// cat does, instead of dying with an EPIPE trace.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });

/**
 * Each command's module, loaded only when it runs: `wallet-sim report` need not load the server
 * (Fastify, the OpenAPI document, the schemas' validators), which took most of a second.
 * In the order `wallet-sim --help` lists them.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./app/start.js')).startCommand(),
  validate: async () => (await import('./commands/validate.js')).validateCommand(),
  openapi: async () => (await import('./app/openapi-command.js')).openapiCommand(),
  probe: async () => (await import('./commands/probe.js')).probeCommand(),
  send: async () => (await import('./commands/send.js')).sendCommand(),
  verify: async () => (await import('./commands/verify.js')).verifyCommand(),
  tail: async () => (await import('./commands/tail.js')).tailCommand(),
  report: async () => (await import('./commands/report.js')).reportCommand(),
  reconcile: async () => (await import('./commands/reconcile.js')).reconcileCommand(),
  keygen: async () => (await import('./commands/keygen.js')).keygenCommand(),
  'verify-report': async () => (await import('./commands/verify-report.js')).verifyReportCommand(),
  tenant: async () => (await import('./commands/tenant.js')).tenantCommand(),
};

const program = new Command('wallet-sim')
  .description('A sandbox seamless wallet for testing login / bet / bet_result callbacks')
  .version('0.1.0')
  .showHelpAfterError();

// The command named first on the line, alone; anything else (--help, help, a typo) gets them all,
// so help lists every command and a mistyped one is answered with a suggestion.
const named = process.argv[2];
const load = named !== undefined && Object.hasOwn(COMMANDS, named) ? [COMMANDS[named]!] : Object.values(COMMANDS);
for (const command of await Promise.all(load.map((f) => f()))) program.addCommand(command);

await program.parseAsync();
