import { MemoryStore } from './memory.js';
import type { Store } from './store.js';

export type StoreKind = 'memory' | 'file';
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'file'];

/** The store a `--store` option names. */
export async function createStore(kind: StoreKind, dataPath?: string): Promise<Store> {
  if (kind === 'memory') return new MemoryStore();
  if (!dataPath) throw new Error('--store file needs --data <path>');
  throw new Error('the file store is not built yet');
}
