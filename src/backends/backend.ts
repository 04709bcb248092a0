import type { Backend } from '../core/ports.js';

export type { Backend, Counters } from '../core/ports.js';

export type BackendKind = Backend['kind'];
export const BACKEND_KINDS: readonly BackendKind[] = ['memory', 'file', 'redis'];

/** The options every backend takes (`wallet-sim start`'s). */
export interface BackendOptions {
  /** --journal-size: callbacks the journal keeps. */
  journalSize?: number;
  /** --journal-bytes: the journal's bound on the JSON text it holds. */
  journalBytes?: number;
  /** --retain-transactions: applied transactions remembered for idempotency (default 1,000,000). */
  retainTransactions?: number;
  /** Hosted mode's --tenant-players: the most players the wallet holds (a new one past it: R3 PLAYER_LIMIT); unbounded when absent. */
  maxPlayers?: number;
}

export const DEFAULT_RETAIN_TRANSACTIONS = 1_000_000;
