import { watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import closeWithGrace from 'close-with-grace';
import { Command, InvalidArgumentError, Option } from 'commander';
import { buildApp, DEFAULT_BODY_LIMIT } from '../app.js';
import { MESSAGES } from '../messages.js';
import { DEFAULT_SCENARIO } from '../paths.js';
import { loadScenarioFile, ScenarioError } from '../scenario/scenario.js';
import { Simulator } from '../simulator.js';
import { createStore, STORE_KINDS, type StoreKind } from '../store/index.js';

interface StartOptions {
  port: number;
  host: string;
  scenario: string;
  store: StoreKind;
  data?: string;
  path: string;
  apiId?: string;
  apiKey?: string;
  adminToken?: string;
  logLevel: string;
  journalSize: number;
  bodyLimit: number;
  watch: boolean;
}

const int = (min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
  return n;
};

/** An option that also reads WALLET_SIM_<NAME>. */
const opt = (flags: string, description: string, env: string) => new Option(flags, description).env(`WALLET_SIM_${env}`);

export function startCommand(): Command {
  return new Command('start')
    .description('Start the simulated wallet and print the URL it listens on')
    .addOption(opt('--port <n>', 'port to listen on; 0 = any free port', 'PORT').default(8080).argParser(int(0, 65535)))
    .addOption(opt('--host <host>', 'interface to listen on', 'HOST').default('127.0.0.1'))
    .addOption(opt('--scenario <file>', 'scenario file', 'SCENARIO').default(DEFAULT_SCENARIO, 'the bundled scenarios/default.json'))
    .addOption(opt('--store <kind>', 'where balances, rounds and transactions live', 'STORE').choices(STORE_KINDS).default('memory'))
    .addOption(opt('--data <path>', 'data file of the file store', 'DATA'))
    .addOption(opt('--path <path>', 'callback path', 'PATH').default('/callback'))
    .addOption(opt('--api-id <id>', "Api-Id callers must send (overrides the scenario's)", 'API_ID'))
    .addOption(opt('--api-key <key>', "Api-Key callers must send (overrides the scenario's)", 'API_KEY'))
    .addOption(opt('--admin-token <token>', 'lock /admin behind Authorization: Bearer <token>', 'ADMIN_TOKEN'))
    .addOption(opt('--log-level <level>', 'pino log level', 'LOG_LEVEL').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
    .addOption(opt('--journal-size <n>', 'callbacks kept in the in-memory journal', 'JOURNAL_SIZE').default(10_000).argParser(int(0, 10_000_000)))
    .addOption(opt('--body-limit <bytes>', 'largest accepted request body', 'BODY_LIMIT').default(DEFAULT_BODY_LIMIT).argParser(int(1, 1024 ** 3)))
    .addOption(opt('--watch', 'reload the scenario file when it changes (an invalid edit keeps the old one)', 'WATCH').default(false))
    .action(async (options: StartOptions, command: Command) => {
      // commander turns any value of a flag's env var into true; WALLET_SIM_WATCH=false must not.
      if (command.getOptionValueSource('watch') === 'env') options.watch = /^(1|true|yes|on)$/i.test(process.env.WALLET_SIM_WATCH ?? '');
      await start(options);
    });
}

async function start(o: StartOptions): Promise<void> {
  let scenario;
  try {
    scenario = loadScenarioFile(o.scenario);
  } catch (e) {
    if (e instanceof ScenarioError) {
      console.error(MESSAGES.SCENARIO_INVALID(e.message));
      process.exit(1);
    }
    throw e;
  }
  let store, sim;
  try {
    store = await createStore(o.store, o.data);
    sim = await Simulator.open(scenario, store, { apiId: o.apiId, apiKey: o.apiKey, journalSize: o.journalSize });
  } catch (e) {
    // A data file that cannot be used is never replaced: say which file and why, start nothing.
    console.error(`wallet-sim: cannot open the ${o.store} store, nothing started:\n${(e as Error).message}`);
    process.exit(1);
  }
  const app = await buildApp({
    sim,
    path: o.path,
    bodyLimit: o.bodyLimit,
    adminToken: o.adminToken,
    storeKind: o.store,
    logger: {
      level: o.logLevel,
      hooks: {
        // The start line below is the one line with the URL (DESIGN.md); Fastify's own is dropped.
        logMethod(args, method) {
          if (typeof args[0] === 'string' && args[0].startsWith('Server listening at')) return;
          method.apply(this, args);
        },
      },
    },
  });

  closeWithGrace({ delay: 5000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error');
    else if (signal) console.error(MESSAGES.STOPPING(signal));
    await app.close();
    await store.close();
  });

  if (o.watch) watchScenario(o.scenario, sim, app.log);

  try {
    await app.listen({ port: o.port, host: o.host });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(MESSAGES.PORT_IN_USE(o.host, o.port));
      process.exit(1);
    }
    throw e;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  const url = `http://${host}:${port}`;
  console.log(MESSAGES.LISTENING(url, `${url}${o.path}`, scenario.source.name, o.store));
}

/** Reloads the scenario on change; an invalid edit is logged and the old scenario stays. */
function watchScenario(file: string, sim: Simulator, log: { info: (o: object, m: string) => void; error: (o: object, m: string) => void }): void {
  let timer: NodeJS.Timeout | undefined;
  // Watch the folder, not the file: editors that save by rename replace the file's inode.
  watch(dirname(file), (_event, name) => {
    if (name !== null && name !== basename(file)) return;
    clearTimeout(timer);
    // Editors write in several steps; settle first.
    timer = setTimeout(() => {
      try {
        const next = loadScenarioFile(file);
        sim.setScenario(next).then(
          () => log.info({ scenario: next.source.name }, `scenario reloaded from ${file}`),
          (e: Error) => log.error({ err: e }, `scenario reload from ${file} failed: ${e.message}`),
        );
      } catch (e) {
        const problems = e instanceof ScenarioError ? e.problems : [{ pointer: '', message: (e as Error).message }];
        log.error({ problems }, `scenario edit rejected, the old scenario stays:\n${(e as Error).message}`);
      }
    }, 100);
  }).unref();
}
