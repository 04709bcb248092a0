import type { Backend, BackendKind, BackendOptions } from '../backends/backend.js';
import { FileBackend } from '../backends/file/file-backend.js';
import { MemoryBackend } from '../backends/memory/memory.js';
import { CLUSTER_SCHEME, clusterPrefixProblem, DEFAULT_REDIS_PREFIX } from '../backends/redis/defaults.js';

export { type Backend, type BackendKind, BACKEND_KINDS, DEFAULT_RETAIN_TRANSACTIONS } from '../backends/backend.js';

export interface OpenOptions extends BackendOptions {
  /** --data: the file backend's path. */
  data?: string;
  /** --redis-url, --redis-prefix (the redis backend). */
  redisUrl?: string;
  /** --redis-cluster: `host:port,…` of a Redis Cluster (instead of redisUrl). */
  redisCluster?: string;
  redisPrefix?: string;
  /** --redis-timeout-ms: a Redis command without a reply after this long fails. */
  redisTimeoutMs?: number;
}

/**
 * The backend a `--store` option names. A file that cannot be opened throws a StoreError; an
 * unreachable Redis throws an Error naming the URL.
 */
export async function openBackend(kind: BackendKind, options: OpenOptions = {}): Promise<Backend> {
  if (kind === 'memory') return new MemoryBackend(options);
  if (kind === 'redis') {
    const url = options.redisCluster ? `${CLUSTER_SCHEME}${options.redisCluster}` : options.redisUrl;
    if (!url) throw new Error('--store redis needs --redis-url <url> (e.g. redis://127.0.0.1:6379) or --redis-cluster host:port,…');
    const problem = options.redisCluster && clusterPrefixProblem(options.redisPrefix ?? DEFAULT_REDIS_PREFIX);
    if (problem) throw new Error(problem);
    // Loaded only here: the memory and file stores never need the Redis client.
    const { RedisBackend } = await import('../backends/redis/redis-backend.js');
    return RedisBackend.open(url, { ...options, prefix: options.redisPrefix, timeoutMs: options.redisTimeoutMs });
  }
  if (!options.data) throw new Error('--store file needs --data <path>');
  // A tuning knob for tests and benchmarks (docs/store.md), not a product option.
  const compactMinBytes = Number(process.env.WALLET_SIM_COMPACT_MIN_BYTES) || undefined;
  return FileBackend.open(options.data, { ...options, compactMinBytes });
}
