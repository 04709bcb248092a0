import { Redis, type RedisOptions } from 'ioredis';

import { clusterClient, clusterNodes, connectMasters } from './cluster.js';
import { CLUSTER_SCHEME, DEFAULT_REDIS_TIMEOUT_MS } from './defaults.js';

export { DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT_MS } from './defaults.js';

/** How long `wallet-sim start` waits for Redis before it gives up (a clear message, nothing started). */
export const CONNECT_WAIT_MS = 10_000;

/**
 * A connection that fails fast instead of hanging: while Redis is down a command is refused at
 * once (no offline queue, no resend after a reconnect), so a callback answers R1 instead of
 * waiting; ioredis keeps reconnecting in the background (every 50 ms to 1 s) and the wallet serves
 * again as soon as Redis is back. A Redis that accepts the connection but does not answer (frozen)
 * is caught by `commandTimeout` (--redis-timeout-ms, set by `connectRedis`).
 */
export const REDIS_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 0,
  connectTimeout: DEFAULT_REDIS_TIMEOUT_MS,
  commandTimeout: DEFAULT_REDIS_TIMEOUT_MS,
  retryStrategy: (times) => Math.min(50 * times, 1_000),
  // A connection with an idle caller must notice a dead Redis too.
  keepAlive: 10_000,
};

/**
 * Opens a connection to `url` (a cluster's: `redis-cluster://host:port,…`, --redis-cluster); rejects
 * with a message naming the URL and the fix: at once for what waiting cannot mend (not a Redis URL,
 * a password missing or wrong, a cluster node given as --redis-url, a database that does not exist),
 * after CONNECT_WAIT_MS when Redis does not answer.
 */
export async function connectRedis(url: string, options: RedisOptions = {}): Promise<Redis> {
  const cluster = url.startsWith(CLUSTER_SCHEME);
  if (!cluster && !/^rediss?:\/\//i.test(url))
    throw new Error(
      /^[a-z][a-z0-9+.-]*:\/\//i.test(url)
        ? `--redis-url ${redact(url)} is not a redis:// or rediss:// URL: write e.g. redis://127.0.0.1:6379 (redis://:PASSWORD@host:port/DB)`
        : url.includes(',')
          ? `--redis-url ${redact(url)} is a list of nodes: for a Redis Cluster write --redis-cluster ${url}; for one Redis, --redis-url redis://host:port`
          : // (ioredis would read "localhost" as a path and connect to 127.0.0.1:6379 instead)
            `--redis-url ${redact(url)} has no scheme: write redis://${redact(url)} (or rediss:// for TLS; redis://:PASSWORD@host:port/DB)`,
    );
  const client = cluster
    ? clusterClient(url.slice(CLUSTER_SCHEME.length), { ...REDIS_OPTIONS, ...options })
    : new Redis(url, { ...REDIS_OPTIONS, ...options });
  let lastError = '';
  let refuse: (e: Error) => void = () => {};
  const refused = new Promise<never>((_, reject) => (refuse = reject));
  let diagnosed = false;
  client.on('error', (e: Error) => {
    lastError = e.message;
    // (waiting cannot mend a password: ioredis would retry it for ever)
    if (AUTH_REFUSED.test(e.message)) refuse(new Error(passwordProblem(url, e.message)));
    if (/slots cache|CLUSTERDOWN/i.test(e.message)) diagnose();
  });
  // Nodes that answer but serve no cluster: asked once, directly, why (not a cluster node, no slots
  // assigned), on the client's first complaint or after a second without one.
  const diagnose = () => {
    if (!cluster || diagnosed) return;
    diagnosed = true;
    void clusterProblem(url, { ...REDIS_OPTIONS, ...options }).then((problem) => problem && refuse(new Error(problem)));
  };
  const asking = cluster ? setTimeout(diagnose, 1000) : undefined;
  const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
  client.connect().catch(() => {
    /* retried by retryStrategy; reported below */
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `Redis at ${redact(url)} does not answer (${lastError || 'no reply'}) after ${CONNECT_WAIT_MS / 1000} s; start redis-server or fix ${cluster ? '--redis-cluster' : '--redis-url'}`,
          ),
        ),
      CONNECT_WAIT_MS,
    );
  });
  try {
    await Promise.race([ready.then(() => (cluster ? connectMasters(client) : checkServer(client, url))), refused, timeout]);
  } catch (e) {
    client.disconnect();
    throw e;
  } finally {
    clearTimeout(timer);
    clearTimeout(asking);
  }
  return client;
}

/**
 * Why the first node of a --redis-cluster list serves no cluster, when it answers: it is a single
 * Redis (cluster_enabled:0), or a cluster whose slots are not all assigned (never created).
 * Undefined when it cannot be asked (down: waiting may mend it) or serves its slots.
 */
async function clusterProblem(url: string, options: RedisOptions): Promise<string | undefined> {
  const [first] = clusterNodes(url.slice(CLUSTER_SCHEME.length));
  const node = new Redis({ ...options, ...first, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
  node.on('error', () => {});
  try {
    await node.connect();
    if (!/^cluster_enabled:1/m.test(await node.info('cluster')))
      return `Redis at ${first!.host}:${first!.port} is not a cluster node (cluster_enabled:0): use --redis-url redis://${first!.host}:${first!.port} for a single Redis, or give --redis-cluster the nodes of a Redis Cluster`;
    const info = String(await node.call('CLUSTER', 'INFO'));
    const state = /cluster_state:(\w+)/.exec(info)?.[1];
    const assigned = /cluster_slots_assigned:(\d+)/.exec(info)?.[1];
    // (all slots assigned but the cluster failing: a master lost, which may come back while we wait)
    if (state === 'ok' || assigned === '16384') return undefined;
    return (
      `Redis Cluster at ${redact(url)} serves no keys (cluster_state:${state}, ${assigned ?? '?'} of 16384 slots assigned): ` +
      'create it (redis-cli --cluster create host:port … --cluster-replicas 0 --cluster-yes) or bring its masters back'
    );
  } catch {
    return undefined;
  } finally {
    node.disconnect();
  }
}

/** Redis's answers to a connection without the password it wants, or with a wrong one. */
const AUTH_REFUSED = /^(NOAUTH|WRONGPASS|ERR invalid password|ERR AUTH|ERR Client sent AUTH, but no password is set)/;

function passwordProblem(url: string, answer: string): string {
  const given = Boolean(new URL(url).password);
  const fix = 'write it in the URL: redis://:PASSWORD@host:port (redis://USER:PASSWORD@host:port for an ACL user)';
  if (answer.startsWith('ERR Client sent AUTH')) return `Redis at ${redact(url)} wants no password (${answer}): remove it from --redis-url`;
  return `Redis at ${redact(url)} refuses the connection: the password in --redis-url is ${given ? 'wrong' : 'missing'} (${answer}); ${fix}`;
}

/**
 * A single Redis that is not one wallet-sim can use as --redis-url: a cluster node (its keys are
 * spread over the cluster: every callback would fail CROSSSLOT or MOVED), or a database number the
 * server does not have (ioredis's SELECT fails quietly and leaves the connection on db 0).
 */
async function checkServer(client: Redis, url: string): Promise<void> {
  const info = await client.info('cluster');
  if (/^cluster_enabled:1/m.test(info))
    throw new Error(
      `Redis at ${redact(url)} is a cluster node (cluster_enabled:1): use --redis-cluster host:port,… (some of its nodes) instead of --redis-url`,
    );
  const db = Number(client.options.db ?? 0);
  if (db === 0) return;
  try {
    await client.select(db);
  } catch (e) {
    const count = await client.config('GET', 'databases').then(
      (reply) =>
        ` (this Redis has ${String((reply as string[])[1])} databases, 0 to ${Number((reply as string[])[1]) - 1}: its \`databases\` setting)`,
      () => '',
    );
    throw new Error(`Redis at ${redact(url)} has no database ${db}${count}: ${(e as Error).message}; pick another in --redis-url`, {
      cause: e,
    });
  }
}

/** The URL without its password, for messages and logs. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
