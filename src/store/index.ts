import { FileStore } from './file.js';
import { MemoryStore } from './memory.js';
import type { Persistence } from './store.js';

export type StoreKind = 'memory' | 'file';
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'file'];

/** The store a `--store` option names. A file store that cannot be opened throws a StoreError. */
export async function createStore(kind: StoreKind, dataPath?: string, options: { retainTransactions?: number } = {}): Promise<Persistence> {
  if (kind === 'memory') return new MemoryStore();
  if (!dataPath) throw new Error('--store file needs --data <path>');
  // A tuning knob for tests and benchmarks (docs/store.md), not a product option.
  const compactMinBytes = Number(process.env.WALLET_SIM_COMPACT_MIN_BYTES) || undefined;
  return FileStore.open(dataPath, { compactMinBytes, retainTransactions: options.retainTransactions });
}
