import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import { Command, Option } from 'commander';
import { DEFAULT_BODY_LIMIT } from './app.js';
import { DEFAULT_LIMITS } from '../http/limits.js';
import { MESSAGES } from '../text/messages.js';
import { BLOCKED_PORTS } from '../client/blocked-ports.js';
import { bundledScenarios, DEFAULT_SCENARIO } from '../kernel/paths.js';
import type { ActiveScenario } from '../core/scenario/scenario.js';
import { checkOptions, upstreamWarning, listen, openServer, type ServeOptions, StartFailure } from './serve.js';
import { upstreamIsSelf } from './upstream-self.js';
import { logger } from './logger.js';
import { int, namesItsHelp } from '../commands/options.js';
import { watchScenario } from './watch-scenario.js';
import { closeGracefully } from '../http/shutdown.js';
import { BACKEND_KINDS, DEFAULT_RETAIN_TRANSACTIONS } from './stores.js';
import { DEFAULT_JOURNAL_BYTES, DEFAULT_JOURNAL_SIZE } from '../journal/journal.js';
import { DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT_MS } from '../backends/redis/defaults.js';
import { reportListening, runPrimary } from './workers.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from '../wallet/upstream-wallet.js';
import type { HostedOptions } from './hosted.js';
import { addHostedOptions, startHosted } from './start-hosted.js';

/** `wallet-sim start`'s options: what a server needs (src/app/serve.ts) and what only the CLI reads. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** pino's levels, `silent` for none (the Node API's default). */
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface StartOptions extends ServeOptions, HostedOptions {
  redisTimeoutMs: number;
  logLevel: LogLevel;
  logFormat?: 'json' | 'pretty';
  workers: number;
  watch: boolean;
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const ms = (what: string) => `${what}, in ms (0 = none)`;

/** An option that also reads WALLET_SIM_<NAME>. */
const opt = (flags: string, description: string, env: string) => new Option(flags, description).env(`WALLET_SIM_${env}`);

export function startCommand(): Command {
  return namesItsHelp(addHostedOptions(new Command('start')))
    .description('Start the simulated wallet and print the URL it listens on')
    .addOption(opt('--port <n>', 'port to listen on; 0 = any free port', 'PORT').default(8080).argParser(int(0, 65535)))
    .addOption(opt('--host <host>', 'interface to listen on', 'HOST').default('127.0.0.1'))
    .addOption(
      opt(
        '--scenario <file|name>',
        `scenario file, or the name of a bundled scenario: ${bundledScenarios().join(', ')}`,
        'SCENARIO',
      ).default(DEFAULT_SCENARIO, 'the bundled scenarios/default.json'),
    )
    .addOption(opt('--store <kind>', 'where balances, rounds and transactions live', 'STORE').choices(BACKEND_KINDS).default('memory'))
    .addOption(opt('--data <path>', 'data file of the file store', 'DATA'))
    .addOption(
      opt(
        '--redis-url <url>',
        'Redis of the redis store (redis://[:password@]host:port[/db]); processes sharing it act as one wallet',
        'REDIS_URL',
      ),
    )
    .addOption(
      opt(
        '--redis-cluster <host:port,…>',
        'the redis store on Redis Cluster (instead of --redis-url): some of its nodes; each player, and the session, in one slot',
        'REDIS_CLUSTER',
      ),
    )
    .addOption(
      opt(
        '--redis-prefix <prefix>',
        'prefix of every Redis key of this wallet (several wallets can share one Redis)',
        'REDIS_PREFIX',
      ).default(DEFAULT_REDIS_PREFIX),
    )
    .addOption(
      opt('--redis-timeout-ms <ms>', 'a Redis command unanswered this long fails: R1, /health 503', 'REDIS_TIMEOUT_MS')
        .default(DEFAULT_REDIS_TIMEOUT_MS)
        .argParser(int(1, 2 ** 31 - 1)),
    )
    .addOption(opt('--path <path>', 'callback path', 'PATH').default('/callback'))
    .addOption(opt('--api-id <id>', "Api-Id callers must send (overrides the scenario's)", 'API_ID'))
    .addOption(opt('--api-key <key>', "Api-Key callers must send (overrides the scenario's)", 'API_KEY'))
    .addOption(opt('--admin-token <token>', 'lock /admin behind Authorization: Bearer <token>', 'ADMIN_TOKEN'))
    .addOption(opt('--log-level <level>', 'pino log level', 'LOG_LEVEL').choices(LOG_LEVELS).default('info'))
    .addOption(
      opt(
        '--log-format <format>',
        'log lines as JSON or as readable text (default: pretty in a terminal, json otherwise)',
        'LOG_FORMAT',
      ).choices(['json', 'pretty']),
    )
    .addOption(
      opt(
        '--cors [origins]',
        'answer browser preflights: comma-separated origins may call the callback route and /admin; bare (or *) = any origin, callback route only',
        'CORS',
      ),
    )
    .addOption(
      opt(
        '--allowed-hosts <names>',
        'comma-separated host names /admin answers to besides localhost and IP addresses (* = any)',
        'ALLOWED_HOSTS',
      ).argParser(list),
    )
    .addOption(
      opt('--headers-timeout-ms <ms>', ms('time to receive the request headers'), 'HEADERS_TIMEOUT_MS')
        .default(DEFAULT_LIMITS.headersTimeoutMs)
        .argParser(int(0, 2 ** 31 - 1)),
    )
    .addOption(
      opt('--request-timeout-ms <ms>', ms('time to receive a whole request (a delay_ms reply is not counted)'), 'REQUEST_TIMEOUT_MS')
        .default(DEFAULT_LIMITS.requestTimeoutMs)
        .argParser(int(0, 2 ** 31 - 1)),
    )
    .addOption(
      opt('--keep-alive-timeout-ms <ms>', 'how long an idle keep-alive connection is kept, in ms', 'KEEP_ALIVE_TIMEOUT_MS')
        .default(DEFAULT_LIMITS.keepAliveTimeoutMs)
        .argParser(int(1, 2 ** 31 - 1)),
    )
    .addOption(
      opt(
        '--idle-timeout-ms <ms>',
        ms('a connection without any traffic is closed after (keep it above the longest delay_ms)'),
        'IDLE_TIMEOUT_MS',
      )
        .default(DEFAULT_LIMITS.idleTimeoutMs)
        .argParser(int(0, 2 ** 31 - 1)),
    )
    .addOption(
      opt(
        '--max-connections <n>',
        'beyond this many, a new connection closes the one stalled (else idle) the longest, or is closed',
        'MAX_CONNECTIONS',
      )
        .default(DEFAULT_LIMITS.maxConnections)
        .argParser(int(1, 1_000_000)),
    )
    .addOption(
      opt('--max-listeners <n>', 'GET /admin/events streams served at once (at most half of --max-connections)', 'MAX_LISTENERS')
        .default(DEFAULT_LIMITS.maxListeners)
        .argParser(int(1, 100_000)),
    )
    .addOption(
      opt('--shutdown-grace-ms <ms>', 'on SIGINT/SIGTERM, how long requests in flight may take to be answered', 'SHUTDOWN_GRACE_MS')
        .default(DEFAULT_LIMITS.shutdownGraceMs)
        .argParser(int(0, 2 ** 31 - 1)),
    )
    .addOption(
      opt('--journal-size <n>', 'callbacks kept in the in-memory journal', 'JOURNAL_SIZE')
        .default(DEFAULT_JOURNAL_SIZE)
        .argParser(int(0, 10_000_000)),
    )
    .addOption(
      opt('--journal-bytes <n>', 'characters of JSON the journal holds at most (oldest entries go first)', 'JOURNAL_BYTES')
        .default(DEFAULT_JOURNAL_BYTES)
        .argParser(int(0, 2 ** 31)),
    )
    .addOption(
      opt(
        '--retain-transactions <n>',
        'applied transactions remembered for idempotency; older ones are forgotten and their retries refused (R3 TRANSACTION_EXPIRED)',
        'RETAIN_TRANSACTIONS',
      )
        .default(DEFAULT_RETAIN_TRANSACTIONS)
        .argParser(int(1, 1_000_000_000)),
    )
    .addOption(
      opt('--workers <n>', 'processes serving the port together (node:cluster); more than 1 needs --store redis', 'WORKERS')
        .default(1)
        .argParser(int(1, 256)),
    )
    .addOption(
      opt('--body-limit <bytes>', 'largest accepted request body', 'BODY_LIMIT')
        .default(DEFAULT_BODY_LIMIT)
        .argParser(int(1, 1024 ** 3)),
    )
    .addOption(
      opt('--seed <n>', "seed of the rules' probability draws (over the scenario's seed; absent: random, printed)", 'SEED').argParser(
        int(0, Number.MAX_SAFE_INTEGER),
      ),
    )
    .addOption(
      opt(
        '--signing-key <file>',
        'Ed25519 private key (PKCS#8 PEM, from wallet-sim keygen) to sign reports with: GET /admin/report?signed=true',
        'SIGNING_KEY',
      ),
    )
    .addOption(
      opt(
        '--upstream <url>',
        "proxy mode: forward every callback to this operator wallet's callback URL, inject the scenario's faults on the real traffic and grade both sides (docs/proxy.md)",
        'UPSTREAM',
      ),
    )
    .addOption(
      opt(
        '--upstream-timeout-ms <ms>',
        "with --upstream: an upstream reply not read whole within this is none (the provider's connection is closed)",
        'UPSTREAM_TIMEOUT_MS',
      )
        .default(DEFAULT_UPSTREAM_TIMEOUT_MS)
        .argParser(int(1, 2 ** 31 - 1)),
    )
    .addOption(opt('--watch', 'reload the scenario file when it changes (an invalid edit keeps the old one)', 'WATCH').default(false))
    .action(async (options: StartOptions, command: Command) => {
      // commander turns any value of a flag's env var into true; WALLET_SIM_WATCH=false must not.
      if (command.getOptionValueSource('watch') === 'env') options.watch = /^(1|true|yes|on)$/i.test(process.env.WALLET_SIM_WATCH ?? '');
      if (command.getOptionValueSource('hosted') === 'env') options.hosted = /^(1|true|yes|on)$/i.test(process.env.WALLET_SIM_HOSTED ?? '');
      if (command.getOptionValueSource('allowPrivateTargets') === 'env')
        options.allowPrivateTargets = /^(1|true|yes|on)$/i.test(process.env.WALLET_SIM_ALLOW_PRIVATE_TARGETS ?? '');
      // WALLET_SIM_DATA set in the shell and another store picked on purpose (--store, WALLET_SIM_STORE):
      // the data file is not this run's. With no store chosen, it is a mistake: refused in checkOptions.
      // So with WALLET_SIM_REDIS_URL / WALLET_SIM_REDIS_CLUSTER and another store than redis.
      const chosen = command.getOptionValueSource('store') !== 'default';
      const fromEnv = (name: string) => command.getOptionValueSource(name) === 'env' && chosen;
      if (fromEnv('data') && options.store !== 'file') options.data = undefined;
      if (fromEnv('redisUrl') && options.store !== 'redis') options.redisUrl = undefined;
      if (fromEnv('redisCluster') && options.store !== 'redis') options.redisCluster = undefined;
      await start(options, command.getOptionValueSource('port') === 'env');
    });
}

async function start(o: StartOptions, portFromEnv: boolean): Promise<void> {
  if (o.workers > 1 && o.store !== 'redis') fail(MESSAGES.WORKERS_NEED_SHARED_STORE(o.workers, o.store));
  try {
    const checked = checkOptions(o);
    o.scenario = checked.file;
    if (cluster.isPrimary) for (const line of checked.warnings ?? []) console.error(`wallet-sim: ${line}`); // once, not per worker
    const storeText = o.upstream ? `${o.store}; proxying to ${o.upstream}` : o.store;
    if (checked.signer && cluster.isPrimary) console.error(MESSAGES.SIGNING(checked.signer.keyid, o.hosted)); // once, not per worker
    if (BLOCKED_PORTS.has(o.port) && cluster.isPrimary) console.error(MESSAGES.BLOCKED_PORT(o.port)); // it listens, but no fetch calls it
    if (o.upstream !== undefined && cluster.isPrimary && (await upstreamIsSelf(o.upstream, o.host, o.port)))
      throw new StartFailure(MESSAGES.UPSTREAM_IS_SELF(o.upstream, o.host, o.port));
    if (o.workers > 1 && cluster.isPrimary) return runPrimary(o.workers, storeText, o.shutdownGraceMs); // the workers run the rest
    if (o.hosted) return await startHosted(o, checked, portFromEnv);
    // A signal while the store opens (Redis slow to answer) ends the start; close-with-grace takes over below.
    const stopStarting = (signal: NodeJS.Signals) => fail(MESSAGES.STOPPED_STARTING(signal));
    for (const signal of STOP_SIGNALS) process.once(signal, stopStarting);
    const { app, sim, backend, joined } = await openServer(o, checked, logger(o));
    for (const signal of STOP_SIGNALS) process.off(signal, stopStarting);
    if (joined) console.error(joined);
    const unreached = await upstreamWarning(sim);
    if (unreached && (!cluster.isWorker || cluster.worker?.id === 1)) console.error(unreached); // once, not per worker
    const longest = longestDelay(checked.scenario);
    if (o.idleTimeoutMs > 0 && longest >= o.idleTimeoutMs) console.error(MESSAGES.IDLE_BELOW_DELAY(o.idleTimeoutMs, longest));
    const [upstreamMs, clientS] = [o.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS, checked.scenario.grading.client_timeout_s];
    if (o.upstream !== undefined && new URL(o.upstream).pathname === '/') console.error(MESSAGES.UPSTREAM_NO_PATH(o.upstream));
    if (o.upstream !== undefined && upstreamMs < clientS * 1000) console.error(MESSAGES.UPSTREAM_TIMEOUT_SHORT(upstreamMs, clientS));

    // The store closes after the last reply; past the grace, connections are cut, and the store
    // still gets a few seconds to close before close-with-grace gives up.
    closeWithGrace({ delay: o.shutdownGraceMs + 10_000 }, async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'closing after an error');
      // (--workers: the primary says it once)
      else if (signal && !cluster.isWorker) console.error(MESSAGES.STOPPING(signal, o.shutdownGraceMs));
      const cut = await closeGracefully(app, o.shutdownGraceMs);
      if (cut) console.error(MESSAGES.GRACE_EXPIRED(cut, o.shutdownGraceMs));
      await backend.close();
    });

    if (o.watch) watchScenario(o.scenario, sim, app.log);

    const url = await listen(app, { host: o.host, port: o.port, portFromEnv });
    const seed = sim.draws ? sim.seed : undefined; // on the start line when a rule has a probability
    if (cluster.isWorker) reportListening(url, `${url}${o.path}`, sim.scenario.source.name, seed);
    else console.log(MESSAGES.LISTENING(url, `${url}${o.path}`, sim.scenario.source.name, storeText, seed));
  } catch (e) {
    if (e instanceof StartFailure) fail(e.message);
    throw e;
  }
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/** The longest delay_ms among the scenario's rules (0 when none). */
const longestDelay = (s: ActiveScenario): number => Math.max(0, ...(s.source.rules ?? []).map((r) => r.then.delay_ms ?? 0));
