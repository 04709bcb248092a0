import type { Change } from '../wallet/state.js';

/**
 * Where the wallet's changes are kept. The wallet holds its state in memory and decides every
 * callback synchronously; a store only makes the changes durable and gives them back on start.
 */
export interface Store {
  /** The changes that rebuild the persisted state, oldest first; empty for a new store. */
  load(): Promise<Change[]>;
  /** Persist one callback's changes as a unit. Resolves once they survive a crash. */
  commit(changes: readonly Change[]): Promise<void>;
  /** Resolves once everything committed so far is durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
}
