import type { GradingFeed } from '../grading/feed.js';
import type { GradingSession } from '../grading/session.js';
import type { WalletGraderOptions } from '../grading/wallet/wallet-grader.js';
import type { Thresholds } from '../core/scenario/thresholds.js';
import type { JournalStore } from '../journal/journal.js';
import type { Ledger } from '../ledger/ledger-entry.js';
import type { Scenario } from '../protocol/types.generated.js';
import type { RuleCounters } from '../core/scenario/rules.js';
import type { Change } from '../ledger/change.js';
import type { WalletState } from '../ledger/state.js';
import type { Store } from '../ledger/store.js';

export type BackendKind = 'memory' | 'file' | 'redis';
export const BACKEND_KINDS: readonly BackendKind[] = ['memory', 'file', 'redis'];

/**
 * Where a wallet keeps what outlives one callback: memory (this process, gone on exit), file (this
 * process, durable) or redis (shared by every process on it). The simulator asks a backend, never
 * which backend it is; test/backends/contract.test.ts runs one suite against all three.
 */
export interface Backend {
  readonly kind: BackendKind;
  /** The ledger: players, rounds and transactions, changed one callback at a time (`transact`). */
  readonly store: Store;
  /** The last callbacks, as the journal routes, the tail and the dashboard read them. */
  readonly journal: JournalStore;
  /** Callbacks per player in the session (the draws' input) and the rules' counters. */
  readonly counters: Counters;
  /** Health: why callbacks are answered R1 now (a failed write, Redis away, Redis lost the wallet's state). */
  readonly failure: string | undefined;
  /** The admin API's error code for that failure. */
  readonly failureCode: 'STORE_FAILED' | 'STORE_UNREACHABLE';
  /** The ledger's state when it lives in this process (memory, file): read at once, for tests and the admin routes. */
  readonly state?: WalletState;
  /**
   * Starts on what the backend holds: an empty one gets `players`. A backend shared by several
   * processes resolves with the scenario active there (the caller adopts it) and calls `adopt` when
   * another process changes it or resets the wallet; a local one resolves with nothing.
   */
  join(scenario: Scenario, players: readonly Change[], adopt: (scenario: Scenario) => void): Promise<Scenario | undefined>;
  /** `PUT /admin/scenario` here: the other processes of a shared backend adopt it. */
  publishScenario(scenario: Scenario): Promise<void>;
  /** `POST /admin/reset` here: the other processes of a shared backend start over too. */
  publishReset(scenario: Scenario): Promise<void>;
  /** The grading of the sessions, begun with the active scenario's thresholds; called once, after `join`. */
  grading(thresholds: Thresholds, seed: () => number, wallet?: () => WalletGraderOptions | undefined): Promise<Grading>;
  /** The ledger as rows, oldest first, streamed in batches; `userId` keeps one player's. */
  ledger(userId?: string): Promise<Ledger>;
  playerCount(): Promise<number>;
  close(): Promise<void>;
}

/** Counts kept per session: every process of a shared backend counts together. */
export interface Counters {
  /** Counts an authenticated callback of `userId`: its number in the session, from 1. */
  countCall(userId: string): number | Promise<number>;
  /** A new session: every player's count starts again from 1. */
  resetCalls(): Promise<void>;
  /** The rules' match and fire counts when the backend keeps them; else the rule engine counts in this process. */
  readonly rules?: RuleCounters;
}

/** The grading sessions: one begins at start-up and at every reset, and grades what arrived in it. */
export interface Grading {
  /** The current session as folded so far. */
  readonly session: GradingSession;
  /** Where a callback's grading events go: the session it arrives in. */
  readonly feed: GradingFeed;
  /** The current session with every event folded (other processes' too): what a report reads. */
  current(): Promise<GradingSession>;
  /** Begins a new session (for every process); `keepLogins`: logged-in players stay so. */
  begin(keepLogins: boolean): Promise<void>;
  /** The scenario's thresholds changed without a reset: the session grades with them from now. */
  use(thresholds: Thresholds): void;
}

/** The options every backend takes (`wallet-sim start`'s). */
export interface BackendOptions {
  /** --journal-size: callbacks the journal keeps. */
  journalSize?: number;
  /** --journal-bytes: the journal's bound on the JSON text it holds. */
  journalBytes?: number;
  /** --retain-transactions: applied transactions remembered for idempotency (default 1,000,000). */
  retainTransactions?: number;
}

export const DEFAULT_RETAIN_TRANSACTIONS = 1_000_000;
