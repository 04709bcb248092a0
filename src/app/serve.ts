import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildApp } from './app.js';
import { type CorsSetting, parseCors } from '../http/cors.js';
import { limitsProblem, type ServerLimits } from '../http/limits.js';
import { MESSAGES } from '../text/messages.js';
import { bundledScenarios, resolveScenario } from '../kernel/paths.js';
import { type ActiveScenario, loadScenarioFile, ScenarioError } from '../core/scenario/scenario.js';
import { Simulator } from '../core/simulator.js';
import { type Backend, type BackendKind, openBackend } from './stores.js';
import type { KeyObject } from 'node:crypto';
import { loadSigner, type Signer, SigningKeyError } from '../evidence/signing-key.js';
import { checkProxyable, proxyWarnings } from '../core/scenario/proxy-check.js';
import { deadRules, warningLines } from '../core/scenario/dead-rules.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from '../wallet/upstream-wallet.js';
import { REACH_CHECK_MS } from '../wallet/upstream-reach.js';
import { openSimulator } from './compose.js';
import { clusterPrefixProblem } from '../backends/redis/defaults.js';
import { CLI_NAMING, type OptionNaming } from '../text/option-naming.js';
import { callbackPathProblem } from '../routes/callback-path.js';

/** What is wrong with an --upstream URL, if anything: it must be an absolute http(s) URL. */
function upstreamProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `--upstream ${JSON.stringify(url)} is not a URL; give the operator wallet's callback URL, e.g. --upstream http://wallet.staging:8080/callback`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `--upstream ${JSON.stringify(url)} must be an http:// or https:// URL (the operator wallet's callback URL)`;
  if (parsed.username || parsed.password)
    return "--upstream must not carry credentials in the URL; the provider's Api-Id/Api-Key headers are forwarded as sent";
  return undefined;
}

/*
 * What `wallet-sim start` and the Node API (startSimulator) share: options checked, the store
 * opened, the simulator and its app built, the port listened on. Each failure is a StartFailure
 * whose message is the one the CLI prints; the CLI prints it and exits 1, the API throws it.
 */

/** The `start` options this needs (start.ts defines every option, its default and env var). */
export interface ServeOptions extends ServerLimits {
  port: number;
  host: string;
  scenario: string;
  store: BackendKind;
  data?: string;
  redisUrl?: string;
  /** --redis-cluster: the redis store on Redis Cluster, `host:port,host:port,…` (instead of --redis-url). */
  redisCluster?: string;
  redisPrefix: string;
  /** --redis-timeout-ms: how long a Redis command may go unanswered. */
  redisTimeoutMs?: number;
  path: string;
  apiId?: string;
  apiKey?: string;
  adminToken?: string;
  cors?: string | boolean;
  allowedHosts?: string[];
  journalSize: number;
  journalBytes: number;
  retainTransactions: number;
  bodyLimit: number;
  /** --seed: the seed of the rules' probability draws. */
  seed?: number;
  /** --upstream: proxy mode, the operator wallet's callback URL. */
  upstream?: string;
  /** --upstream-timeout-ms: an upstream reply not read whole within this is no reply. */
  upstreamTimeoutMs?: number;
  /** --signing-key: the Ed25519 private key that signs reports (a file, its PEM text, or a KeyObject from the Node API). */
  signingKey?: string | KeyObject;
}

/** A start that cannot go on; the message says what to do. */
export class StartFailure extends Error {
  override name = 'StartFailure';
}

/** The options checked and the scenario loaded, before anything opens. */
export interface Checked {
  /** The scenario file (a bundled name resolved). */
  file: string;
  scenario: ActiveScenario;
  cors: CorsSetting | undefined;
  /** --signing-key loaded: GET /admin/report?signed=true signs with it. */
  signer?: Signer;
  /** The scenario's rules that can never fire, one line each (printed; the scenario still loads). */
  warnings?: string[];
}

/** `name`: how messages name an option (--signing-key for the CLI, the `signingKey` option for the Node API). */
export function checkOptions(o: ServeOptions & { hosted?: boolean }, name: OptionNaming = CLI_NAMING): Checked {
  // A tenant's wallet is wallet-sim's own: proxy mode in hosted mode would be ignored, not refused.
  if (o.hosted && o.upstream !== undefined)
    throw new StartFailure(
      MESSAGES.OPTION_INVALID(
        `${name.option('upstream')} (proxy mode) does not apply with ${name.option('hosted')}: a tenant's wallet is wallet-sim's own; leave out one of them (a proxy is a single-tenant start)`,
      ),
    );
  const pathProblem = callbackPathProblem(o.path, name);
  if (pathProblem) throw new StartFailure(MESSAGES.OPTION_INVALID(pathProblem));
  const file = resolveScenario(o.scenario);
  if (file === undefined) throw new StartFailure(MESSAGES.SCENARIO_UNKNOWN(o.scenario, bundledScenarios()));
  const [store, data, url, cluster] = (['store', 'data', 'redisUrl', 'redisCluster'] as const).map((o) => name.option(o));
  const alsoEnv = (camel: string) => (name.env(camel) ? ` (or ${name.env(camel)})` : '');
  if (o.store === 'redis' && !o.redisUrl && !o.redisCluster)
    throw new StartFailure(
      MESSAGES.OPTION_INVALID(`${store} redis needs ${url}${alsoEnv('redisUrl')}, e.g. redis://127.0.0.1:6379, or ${cluster} host:port,…`),
    );
  // A data file named but another store chosen would be a wallet that silently keeps nothing.
  if (o.data && o.store !== 'file')
    throw new StartFailure(
      MESSAGES.OPTION_INVALID(
        `${data} ${o.data} is for ${store} file, but the store is ${o.store}: nothing would be written there; add ${store} file to keep the wallet in that file, or leave out ${data}${alsoEnv('data')}`,
      ),
    );
  // Likewise a Redis named but another store chosen: processes behind one balancer would be wallets of their own.
  const redisNamed = o.redisUrl ? url : o.redisCluster ? cluster : undefined;
  if (redisNamed && o.store !== 'redis')
    throw new StartFailure(
      MESSAGES.OPTION_INVALID(
        `${redisNamed}${alsoEnv(o.redisUrl ? 'redisUrl' : 'redisCluster')} names a Redis, but the store is ${o.store}: nothing would be kept there and each process would be a wallet of its own; add ${store} redis, or leave out ${redisNamed}`,
      ),
    );
  if (o.redisUrl && o.redisCluster)
    throw new StartFailure(MESSAGES.OPTION_INVALID(`${url} and ${cluster} name two Redis: give one of them`));
  const prefixProblem = o.redisCluster && clusterPrefixProblem(o.redisPrefix);
  if (prefixProblem) throw new StartFailure(MESSAGES.OPTION_INVALID(prefixProblem));
  const limitProblem = limitsProblem(o);
  if (limitProblem) throw new StartFailure(MESSAGES.OPTION_INVALID(limitProblem));
  let cors;
  try {
    cors = parseCors(o.cors, name.option('cors'));
  } catch (e) {
    throw new StartFailure(MESSAGES.OPTION_INVALID((e as Error).message));
  }
  if (o.upstream !== undefined) {
    const problem = upstreamProblem(o.upstream);
    if (problem) throw new StartFailure(MESSAGES.OPTION_INVALID(problem));
  }
  let signer;
  try {
    signer = o.signingKey === undefined ? undefined : loadSigner(o.signingKey, name);
  } catch (e) {
    if (e instanceof SigningKeyError) throw new StartFailure(MESSAGES.OPTION_INVALID(e.message));
    throw e;
  }
  try {
    const scenario = loadScenarioFile(file);
    if (o.upstream !== undefined) checkProxyable(scenario, file);
    const proxied = o.upstream === undefined ? [] : proxyWarnings(scenario);
    return { file, scenario, cors, signer, warnings: warningLines(file, [...deadRules(scenario.source), ...proxied]) };
  } catch (e) {
    if (e instanceof ScenarioError) throw new StartFailure(MESSAGES.SCENARIO_INVALID(e.message));
    throw e;
  }
}

export interface Opened {
  app: FastifyInstance;
  sim: Simulator;
  backend: Backend;
  /** Set when a Redis store already held a wallet whose (other) scenario applies: what to tell the user. */
  joined?: string;
}

/** Opens the store, the simulator and its app (not listening yet). */
export async function openServer(o: ServeOptions, checked: Checked, logger: FastifyServerOptions['logger']): Promise<Opened> {
  let backend, sim;
  try {
    backend = await openBackend(o.store, o);
    const upstream =
      o.upstream === undefined ? undefined : { url: o.upstream, timeoutMs: o.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS };
    sim = await openSimulator(checked.scenario, backend, { apiId: o.apiId, apiKey: o.apiKey, seed: o.seed, upstream });
  } catch (e) {
    // A data file that cannot be used is never replaced: say which file and why, start nothing.
    await backend?.close().catch(() => undefined);
    throw new StartFailure(`wallet-sim: cannot open the ${o.store} store, nothing started:\n${(e as Error).message}`);
  }
  const joined =
    // (the seed aside: a random one is drawn when neither the file nor --seed sets it)
    JSON.stringify({ ...sim.scenario.source, seed: 0 }) === JSON.stringify({ ...checked.scenario.source, seed: 0 })
      ? undefined
      : `wallet-sim: joined the wallet in Redis; its active scenario "${sim.scenario.source.name}" applies (not ${checked.file}): PUT /admin/scenario changes it for every process`;
  // The store is open (and its data file locked): a failure from here on closes it, so a retry in
  // this process can open it again.
  const app = await buildApp({
    sim,
    path: o.path,
    bodyLimit: o.bodyLimit,
    adminToken: o.adminToken,
    storeKind: o.store,
    limits: o,
    host: o.host,
    allowedHosts: o.allowedHosts,
    cors: checked.cors,
    signer: checked.signer,
    logger,
  }).catch(async (e: unknown) => {
    await backend.close().catch(() => undefined);
    throw e;
  });
  return { app, sim, backend, joined };
}

/**
 * Proxy mode: one connection to the upstream (bounded, a slow name lookup included); the warning
 * to print when it failed (wallet-sim starts anyway: the wallet may come up later).
 */
export async function upstreamWarning(sim: Simulator): Promise<string | undefined> {
  const why = await sim.wallet.checkReach?.(REACH_CHECK_MS);
  return why === undefined ? undefined : MESSAGES.UPSTREAM_UNREACHABLE(sim.wallet.upstream!, why);
}

/** The codes of listen() that are the address given, not wallet-sim: a StartFailure saying which option to change. */
const ADDRESS_REFUSED = new Set(['EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EACCES']);

/** Listens on --host/--port; resolves with the base URL (the port it got, when 0 was asked). */
export async function listen(
  app: FastifyInstance,
  o: Pick<ServeOptions, 'host' | 'port'> & { portFromEnv?: boolean; naming?: OptionNaming },
): Promise<string> {
  try {
    await app.listen({ port: o.port, host: o.host });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code === 'EADDRINUSE') throw new StartFailure(MESSAGES.PORT_IN_USE(o.host, o.port, o.portFromEnv, o.naming));
    if (ADDRESS_REFUSED.has(code)) throw new StartFailure(MESSAGES.CANNOT_LISTEN(code, o.host, o.port, o.naming));
    throw e;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return `http://${host}:${port}`;
}
