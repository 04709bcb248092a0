import type { Awaitable } from '../kernel/awaitable.js';
import type { Change, TransactionRecord } from './change.js';
import type { Player, Round } from './state.js';

/** The records one callback needs: its player, its round (if any), its transaction_id. */
export interface RecordKeys {
  user_id: string;
  transaction_id: string;
  game_no?: string;
}

/** A read-only view of exactly those records, as they are when the callback is decided. */
export interface View {
  readonly player?: Player;
  /** The open round (user_id, game_no), if any. */
  readonly round?: Round;
  readonly roundSettled: boolean;
  /** The round may be a settled one the store has forgotten (--retain-transactions). */
  readonly roundForgotten: boolean;
  /** The applied transaction with this transaction_id, if the store remembers it. */
  readonly transaction?: TransactionRecord;
  /** The transaction_id may be one the store applied and then forgot. */
  readonly transactionForgotten: boolean;
  /** The player is unknown and the store holds as many players as it may (hosted mode's --tenant-players). */
  readonly playersFull?: boolean;
}

/** What a decision hands the store: the changes to commit as one unit (none for a refusal or a replay). */
export interface Decided {
  readonly changes: readonly Change[];
}

/**
 * What a shared store (Redis) writes in the same atomic step as a callback's commit, so that a
 * callback is one script: its journal entry and its grading event, built from each attempt's
 * decision (src/core/pipeline.ts). A store that keeps neither (memory, file) never asks for one.
 */
export interface Seal {
  readonly entry: SealedEntry;
  readonly event?: SealedEvent;
  /** The commit went through: the entry was kept with this id. */
  committed(id: number): void;
}

/** A journal entry numbered in the commit's step: its JSON is `{"id":<id>` then `tail`. */
export interface SealedEntry {
  /** The journal's stream, its byte count and its id counter. */
  readonly keys: readonly [stream: string, bytes: string, id: string];
  readonly capacity: number;
  readonly maxBytes: number;
  readonly tail: string;
  /** The JSON's length (UTF-16 units) without the id's digits. */
  readonly chars: number;
}

/**
 * One grading event, appended with the entry's id (field `i`) to the stream of the session Redis
 * holds when the commit runs (`<stream><id>`, the id read from the document at `session`), not the
 * one the process last heard of: a callback committed after a reset is graded in the session the
 * reset began (which the reset wrote in its own atomic step: Store.commit's `alongside`).
 */
export interface SealedEvent {
  /** The current session's document (JSON, its `id` first). */
  readonly session: string;
  /** The sessions' streams' key, before the session's id. */
  readonly stream: string;
  readonly maxLen: number;
  readonly event: string;
}

/** A key a store writes in the same atomic step as a commit's changes (a remote store's; local ones need none). */
export type Alongside = readonly [key: string, value: string];

/**
 * The wallet's records and their durability: what a memory, file or remote (Redis) store
 * implements. The money rules never touch a store directly: they decide on a View, and the store
 * commits what they decided.
 */
export interface Store {
  /** `memory`, `file`, … (reported by /health). */
  readonly kind: string;
  /**
   * Reads the view of `keys`, lets `decide` (pure: a remote store may call it again after a
   * conflict) turn it into changes, and commits them atomically. Resolves with the decision once
   * the changes are durable — and, for a decision with no changes, once the state it was decided
   * on is durable. Rejects when the store failed; nothing is then acknowledged. A store whose
   * changes are durable once applied (memory) returns the decision itself.
   */
  transact<T extends Decided>(keys: RecordKeys, decide: (view: View) => T, seal?: (decided: T) => Seal | undefined): Awaitable<T>;
  /**
   * Commits changes decided outside a callback (admin updates, scenario seeds, reset). `alongside`:
   * keys a shared store writes in the same atomic step (a reset's new grading session); a store
   * of one process has no other process to race, and ignores them.
   */
  commit(changes: readonly Change[], alongside?: readonly Alongside[]): Promise<void>;
  player(userId: string): Promise<Player | undefined>;
  players(): Promise<Player[]>;
  /** Set once a write failed: nothing more may be acknowledged until a restart. */
  readonly failure?: string;
  close(): Promise<void>;
}

/** The whole state as change records, as WalletState.changes() yields them. */
export interface StateRecords {
  changes(): Iterable<Change>;
}

/**
 * How a local store keeps its changes: the state lives in this process (src/ledger/state.ts), a
 * persistence only makes the changes durable and gives them back on start.
 */
export interface Persistence {
  /** `memory`, `file`. */
  readonly kind: string;
  /**
   * The records that rebuild the persisted state, oldest first, for the state to fold (a
   * snapshot's records, then every change logged after it); empty for a new store.
   */
  load(): Promise<Change[]>;
  /** Persist one callback's changes as a unit. Resolves once they survive a crash. */
  commit(changes: readonly Change[]): Promise<void>;
  /** Resolves once everything committed so far is durable. */
  flush(): Promise<void>;
  /** True when a change is as durable as it will ever be once applied (memory): nothing to wait for. */
  readonly immediate?: boolean;
  close(): Promise<void>;
  /**
   * The state this persistence's changes are folded into (the LocalStore's WalletState, which
   * applies each commit before handing it over): a persistence that writes snapshots (file)
   * copies them from it, so the changes are folded once.
   */
  snapshotFrom?(state: StateRecords): void;
}

const done = Promise.resolve();

/** Keeps nothing: the in-process state is all there is, gone on exit (`--store memory`, the reference ledger). */
export const NO_PERSISTENCE: Persistence = {
  kind: 'memory',
  immediate: true,
  load: () => Promise.resolve([]),
  commit: () => done,
  flush: () => done,
  close: () => done,
};
