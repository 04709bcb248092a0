import { Cluster, type Redis, type RedisOptions } from 'ioredis';
import { coalesceWrites } from './coalesce.js';

/**
 * `--redis-cluster host:port,…`: the same store on Redis Cluster (docs/scale-out.md, "Redis
 * Cluster"). The client is ioredis's Cluster, typed as the single-Redis client the rest of the store
 * uses: the commands are the same, and the few places that differ ask `isCluster` (a script names
 * its keys so that it is routed to their slot, a read of keys of several players goes key by key,
 * a SCAN visits every master).
 */
export function isCluster(client: Redis): boolean {
  return client instanceof Cluster;
}

/** `host:port,host:port` → the cluster's startup nodes; throws with what to write instead. */
export function clusterNodes(list: string): { host: string; port: number }[] {
  const nodes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((node) => {
      if (/\s|\/\//.test(node))
        throw new Error(
          `--redis-cluster: "${node}" is not host:port (no scheme such as redis://, and the nodes separated by commas); write e.g. --redis-cluster 10.0.0.1:7000,10.0.0.2:7000`,
        );
      const at = node.lastIndexOf(':');
      const host = node.slice(0, at).replace(/^\[(.*)\]$/, '$1');
      const port = Number(node.slice(at + 1));
      if (at <= 0 || !Number.isInteger(port) || port <= 0 || port > 65_535)
        throw new Error(`--redis-cluster: "${node}" is not host:port; write e.g. --redis-cluster 10.0.0.1:7000,10.0.0.2:7000`);
      return { host, port };
    });
  if (!nodes.length) throw new Error('--redis-cluster needs at least one host:port of the cluster, e.g. 10.0.0.1:7000');
  return nodes;
}

/** The cluster as a URL-like name for messages (`redis-cluster://host:port,…`). */
export const clusterName = (list: string) => `redis-cluster://${list.replaceAll(' ', '')}`;

/**
 * A Cluster client with the single-Redis connection's behaviour (`options`: fail fast, no offline
 * queue, time-outs): a command for a slot whose master is down fails at once, the others go on.
 * Its `duplicate(options)` makes another Cluster with those connection options (the journal's and
 * grading's readers, the subscriber), as a single Redis's does.
 */
export function clusterClient(list: string, options: RedisOptions): Redis {
  const { retryStrategy, enableOfflineQueue, lazyConnect, ...redisOptions } = options;
  const make = (overrides: RedisOptions): Cluster => {
    const cluster = new Cluster(clusterNodes(list), {
      lazyConnect: overrides.lazyConnect ?? lazyConnect,
      enableOfflineQueue: enableOfflineQueue ?? false,
      clusterRetryStrategy: retryStrategy ? (times) => retryStrategy(times) : undefined,
      // Redirections (a slot moved) are followed at once; a slot whose master is gone is not waited for.
      retryDelayOnFailover: 0,
      retryDelayOnClusterDown: 0,
      retryDelayOnTryAgain: 0,
      maxRedirections: 4,
      slotsRefreshTimeout: options.connectTimeout ?? 2_000,
      redisOptions: { ...redisOptions, ...without(overrides, 'lazyConnect', 'retryStrategy', 'enableOfflineQueue') },
    });
    // Commands for one node sent in one turn of the event loop leave in one write, each on its own
    // (coalesce.ts, as for a single Redis; ioredis's auto-pipelining fails a whole batch when a slot moves or its master is lost).
    cluster.on('+node', (node: Redis) => coalesceWrites(node));
    const duplicate = (more: RedisOptions = {}) => make({ ...overrides, ...more });
    Object.assign(cluster, { duplicate, options: { ...cluster.options, commandTimeout: redisOptions.commandTimeout } });
    return cluster;
  };
  return make({}) as unknown as Redis;
}

function without<T extends object>(o: T, ...keys: string[]): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k))) as Partial<T>;
}

/**
 * Connects to every master at once (ioredis connects to a node on its first command, and without an
 * offline queue a command sent while that connection is still being made fails): after this, a
 * command fails at once only when its master is really gone.
 */
export async function connectMasters(client: Redis): Promise<void> {
  if (isCluster(client))
    await Promise.all((client as unknown as Cluster).nodes('master').map((node) => node.ping().catch(() => undefined)));
}

/** The values of `keys` (null: absent): one MGET on a single Redis; key by key on a cluster (they may be on several masters). */
export function getMany(client: Redis, keys: readonly string[]): Promise<(string | null)[]> {
  if (!keys.length) return Promise.resolve([]);
  if (!isCluster(client)) return client.mget(...keys);
  return Promise.all(keys.map((k) => client.get(k)));
}

/**
 * Calls `each` with every batch of keys matching `pattern`, on every master of a cluster (SCAN is
 * per node), and a function that UNLINKs keys of that batch (at once on a single Redis; key by key
 * on a cluster, where one command may name one slot only).
 */
export async function scanKeys(
  client: Redis,
  pattern: string,
  each: (keys: string[], unlink: (keys: readonly string[]) => Promise<number>) => Promise<void>,
): Promise<void> {
  const cluster = isCluster(client);
  const nodes = cluster ? (client as unknown as Cluster).nodes('master') : [client];
  for (const node of nodes) {
    const unlink = async (keys: readonly string[]) =>
      !keys.length ? 0 : cluster ? (await Promise.all(keys.map((k) => node.unlink(k)))).reduce((a, b) => a + b, 0) : node.unlink(...keys);
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length) await each(keys, unlink);
      cursor = next;
    } while (cursor !== '0');
  }
}

/** Deletes every key matching `pattern` (until `stop`); Redis gone meanwhile: what is left stays (nothing reads it). */
export async function sweepKeys(client: Redis, pattern: string, stop: () => boolean): Promise<void> {
  try {
    await scanKeys(client, pattern, async (keys, unlink) => {
      if (!stop()) await unlink(keys);
    });
  } catch {
    // Redis went away: the next reset sweeps nothing of this one; the keys are unreachable anyway.
  }
}

/** How many keys match `pattern` (a SCAN: tests and diagnostics, not the callback path). */
export async function countKeys(client: Redis, pattern: string): Promise<number> {
  let n = 0;
  await scanKeys(client, pattern, async (keys) => void (n += keys.length));
  return n;
}
