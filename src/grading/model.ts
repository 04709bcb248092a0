import type { RoundBets } from './round-bets.js';
import type { Attempt } from './attempt.js';
import type { Grader } from './grader.js';

// The shapes of the grading state: what the session keeps per transaction, round and player, and
// what a check (a reducer over the session's events) is.

/** One transaction_id's attempts in the session (its player, event and game_no: `first`'s). */
export interface Tx {
  id: string;
  first: Attempt;
  last: Attempt;
  /** How many attempts arrived. */
  count: number;
  /** The first attempt whose outcome was a definite answer (R0, R2–R4), once known. */
  resolved?: Attempt;
  /** Markers the checks set on it (what each has already counted): see `marked`, `mark`. */
  marks?: string[];
  /** The attempt before `last`. */
  prev?: Attempt;
  /** Attempts the wallet has not finished answering. */
  running: number;
  /** The provider read a reply to one of its attempts. */
  read: boolean;
  /** RETRY_BACKOFF: the wait before the latest resend. */
  wait?: number;
  /** RETRY_BACKOFF: the gap between the sends before the latest resend. */
  gap?: number;
  /** Open windows of the checks, by check id: each cancels its deadline. */
  windows?: Map<string, () => void>;
}

/** One player's game_no. */
export interface Round {
  user: string;
  game: string;
  /** Its bet transactions, in arrival order, with the stakes of the applied ones. */
  bets: RoundBets;
  /** Its first applied (R0) bet: the round is open from then on. */
  opener?: Attempt;
  /** Its first applied (R0) bet_result. */
  settlement?: Attempt;
  marks?: string[];
}

export interface Player {
  user: string;
  /** The latest login whose outcome the provider read as R0, R2 or R3. */
  lastLogin?: Attempt;
  /** The latest reply read with a latest_balance. */
  reported?: Attempt;
  /**
   * That reply's latest_balance (NaN before one): kept here, not on every attempt, so that a number
   * is updated in place rather than a new one made and kept per reply.
   */
  balance: number;
  /** Logins still being answered. */
  loginsInFlight: number;
  marks?: string[];
  /** Each check's chances with this player, by the index of its tally. */
  chances: number[];
}

/** What a check does with the session's events: a small reducer over the shared state. */
export interface Reducer {
  /** An attempt arrived (authenticated, with a transaction_id). */
  arrive?(g: Grader, a: Attempt, tx: Tx): void;
  /** The provider learnt its outcome (`a.outcome`, `a.knownAt`). */
  known?(g: Grader, a: Attempt, tx: Tx): void;
  /** The wallet wrote its reply or closed the connection (`a.end`). */
  ended?(g: Grader, a: Attempt, tx: Tx): void;
  /**
   * A report is read at `now` (the session's time, since Grader.origin; the clock moved there): judge
   * what only the passing of time decides.
   */
  report?(g: Grader, now: number): void;
}

/** A player's mark: a login of theirs was accepted (R0) in the session. */
export const LOGGED_IN = 'logged-in';

/** Bounds of the grading state: the oldest transactions and rounds are forgotten beyond them. */
export const MAX_TRANSACTIONS = 50_000;
export const MAX_ROUNDS = 50_000;

/** Whether a check set `key` on a transaction, round or player (most never get a mark: none is allocated). */
export const marked = (o: { marks?: string[] }, key: string): boolean => o.marks?.includes(key) ?? false;

/** Sets `key`; true when it was not set yet. */
export function mark(o: { marks?: string[] }, key: string): boolean {
  if (!o.marks) o.marks = [key];
  else if (o.marks.includes(key)) return false;
  else o.marks.push(key);
  return true;
}

/** Opens a check's window on a transaction (closing the one it had). */
export function openWindow(tx: Tx, id: string, cancel: () => void): void {
  tx.windows ??= new Map();
  tx.windows.get(id)?.();
  tx.windows.set(id, cancel);
}

/** Closes a check's window; true when one was open. */
export function closeWindow(tx: Tx, id: string): boolean {
  const cancel = tx.windows?.get(id);
  if (!cancel) return false;
  cancel();
  tx.windows!.delete(id);
  return true;
}

export type Hook = (g: Grader, a: Attempt, tx: Tx) => void;

/** Per event, only the reducers that have its hook, bound, in the table order: no optional call on all 14. */
export type Hooks = Record<'arrive' | 'known' | 'ended', Hook[]>;
export const hooked = (reducers: readonly Reducer[]): Hooks => ({
  arrive: reducers.flatMap((r) => (r.arrive ? [r.arrive.bind(r)] : [])),
  known: reducers.flatMap((r) => (r.known ? [r.known.bind(r)] : [])),
  ended: reducers.flatMap((r) => (r.ended ? [r.ended.bind(r)] : [])),
});

/** Whether a transaction may still be resent in a way a check must recognise. */
export const inPlay = (tx: Tx) => tx.running > 0 || (tx.windows?.size ?? 0) > 0 || (!tx.resolved && tx.last.outcome !== 'R0');

/** A transaction's state, every field in one order (one shape for all, as attempts have). */
export function newTx(a: Attempt, count: number): Tx {
  return {
    id: a.tx,
    first: a,
    last: a,
    count,
    resolved: undefined,
    marks: undefined,
    prev: undefined,
    running: 0,
    read: false,
    wait: undefined,
    gap: undefined,
    windows: undefined,
  };
}

/** A player's state, every field in one order (`checks`: how many tallies count chances). */
export const newPlayer = (user: string, checks: number): Player => ({
  user,
  lastLogin: undefined,
  reported: undefined,
  balance: NaN,
  loginsInFlight: 0,
  marks: undefined,
  chances: new Array<number>(checks).fill(0),
});
