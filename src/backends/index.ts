import { FileStore } from './file/file-persistence.js';
import { MemoryStore } from './memory/memory.js';
import { RedisStore } from './redis/redis-store.js';
import type { Persistence, Store } from './store.js';

export type StoreKind = 'memory' | 'file' | 'redis';
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'file', 'redis'];

export interface StoreOptions {
  retainTransactions?: number;
  /** --redis-url, --redis-prefix (the redis store). */
  redisUrl?: string;
  redisPrefix?: string;
  /** --redis-timeout-ms: a Redis command without a reply after this long fails. */
  redisTimeoutMs?: number;
}

/**
 * The store a `--store` option names: a persistence of the in-process state (memory, file) or a
 * shared store (redis). A file store that cannot be opened throws a StoreError; an unreachable
 * Redis throws an Error naming the URL.
 */
export async function createStore(kind: StoreKind, dataPath?: string, options: StoreOptions = {}): Promise<Persistence | Store> {
  if (kind === 'memory') return new MemoryStore();
  if (kind === 'redis') {
    if (!options.redisUrl) throw new Error('--store redis needs --redis-url <url> (e.g. redis://127.0.0.1:6379)');
    return RedisStore.open(options.redisUrl, {
      prefix: options.redisPrefix,
      retainTransactions: options.retainTransactions,
      timeoutMs: options.redisTimeoutMs,
    });
  }
  if (!dataPath) throw new Error('--store file needs --data <path>');
  // A tuning knob for tests and benchmarks (docs/store.md), not a product option.
  const compactMinBytes = Number(process.env.WALLET_SIM_COMPACT_MIN_BYTES) || undefined;
  return FileStore.open(dataPath, { compactMinBytes });
}
