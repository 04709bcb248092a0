import type { Attempt } from './attempt.js';
import { SUCCESS } from '../protocol/seed/codes.js';

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
  /** RETRY_BACKOFF: the attempt `wait` ran from (`prev`, once the latest resend's wait is judged). */
  waitedAfter?: Attempt;
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
  /** ROUNDS_SETTLED: the bet_result the provider is resending, its outcome unknown to it (lost, R1). */
  settling?: Tx;
  marks?: string[];
}

export interface Player {
  user: string;
  /** The login sent last (highest id) whose outcome the provider read as R0, R2 or R3 (an older one read later does not replace it). */
  lastLogin?: Attempt;
  /** The latest reply read with a latest_balance. */
  reported?: Attempt;
  /**
   * That reply's latest_balance (NaN before one): kept here, not on every attempt, so that a number
   * is updated in place rather than a new one made and kept per reply.
   */
  balance: number;
  /**
   * The last REPORTS_KEPT replies read with a latest_balance, as a ring (`reports` counts them all):
   * which attempt each answered and its balance, in arrays made at the first (no object per reply).
   */
  reportedBy?: Attempt[];
  reportedBalance?: Float64Array;
  reports: number;
  /** Logins still being answered. */
  loginsInFlight: number;
  marks?: string[];
  /** Each check's chances with this player, by the index of its tally. */
  chances: number[];
}

/** What a check does with the session's events: a small reducer over the shared state `G` (the Grader: ./grader.ts `Reducer`). */
export interface Reducer<G> {
  /** An attempt arrived (authenticated, with a transaction_id). */
  arrive?(g: G, a: Attempt, tx: Tx): void;
  /** The provider learnt its outcome (`a.outcome`, `a.knownAt`). */
  known?(g: G, a: Attempt, tx: Tx): void;
  /** The wallet wrote its reply or closed the connection (`a.end`). */
  ended?(g: G, a: Attempt, tx: Tx): void;
  /**
   * A report is read at `now` (the session's time, since Grader.origin; the clock moved there): judge
   * what only the passing of time decides.
   */
  report?(g: G, now: number): void;
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

export type Hook<G> = (g: G, a: Attempt, tx: Tx) => void;

/** Per event, only the reducers that have its hook, bound, in the table order: no optional call on all 14. */
export type Hooks<G> = Record<'arrive' | 'known' | 'ended', Hook<G>[]>;
export const hooked = <G>(reducers: readonly Reducer<G>[]): Hooks<G> => ({
  arrive: reducers.flatMap((r) => (r.arrive ? [r.arrive.bind(r)] : [])),
  known: reducers.flatMap((r) => (r.known ? [r.known.bind(r)] : [])),
  ended: reducers.flatMap((r) => (r.ended ? [r.ended.bind(r)] : [])),
});

/** Replies with a balance kept per player: enough for the callbacks a provider has in flight at once. */
export const REPORTS_KEPT = 16;

/** A reply read with a latest_balance: the player's latest, and one more in its ring. */
export function recordReport(p: Player, a: Attempt, balance: number): void {
  p.reported = a;
  p.balance = balance;
  const slot = p.reports++ % REPORTS_KEPT;
  (p.reportedBy ??= new Array<Attempt>(REPORTS_KEPT))[slot] = a;
  (p.reportedBalance ??= new Float64Array(REPORTS_KEPT))[slot] = balance;
}

/**
 * How long before a callback's arrival a reply must have been written for the provider to have
 * surely read it before sending that callback. A callback sent before the reply was read can
 * still arrive after it was written: its bytes were on the way (a network's round trip, up to
 * 300 ms across continents), or waited for this process's turn behind the callback that reply
 * answered (two bets sent at once over loopback arrive a millisecond after the first one's reply).
 * Half a second covers both; a provider that bets later than that, with the reply in hand, is judged.
 */
export const REPLY_READ_MARGIN_MS = 500;

/**
 * The slot of the latest reply with a balance that was written at least `margin` ms before `at`
 * (the session's time a callback arrived) to a callback journalled before `id`: what the provider
 * surely had read when it sent that callback. -1 when there is none (or none kept).
 */
export function reportBefore(p: Player, at: number, id: number, margin: number): number {
  let best = -1;
  const by = p.reportedBy;
  if (!by) return best;
  for (let i = 0; i < Math.min(p.reports, REPORTS_KEPT); i++) {
    const r = by[i]!;
    if (r.id < id && r.knownAt! + margin <= at && (best < 0 || r.knownAt! > by[best]!.knownAt!)) best = i;
  }
  return best;
}

/** Whether a transaction may still be resent in a way a check must recognise. */
export const inPlay = (tx: Tx) => tx.running > 0 || (tx.windows?.size ?? 0) > 0 || (!tx.resolved && tx.last.outcome !== SUCCESS);

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
    waitedAfter: undefined,
    windows: undefined,
  };
}

/** A player's state, every field in one order (`checks`: how many tallies count chances). */
export const newPlayer = (user: string, checks: number): Player => ({
  user,
  lastLogin: undefined,
  reported: undefined,
  balance: NaN,
  reportedBy: undefined,
  reportedBalance: undefined,
  reports: 0,
  loginsInFlight: 0,
  marks: undefined,
  chances: new Array<number>(checks).fill(0),
});

/** An applied bet's attempt: its total is the stake (one without a total stakes nothing known). */
type Staked = Attempt;

/**
 * A round's bet transactions in arrival order (each once), and the stake of each applied one
 * (its first applied total, counted once). Most rounds hold one bet: it is kept in fields, and a
 * Map is made only for a second one (two Maps per round were most of the grading state's
 * allocations that outlive a callback). A stake is kept as the attempt whose total it is: a number
 * field would keep a number object of its own per round.
 */
export class RoundBets {
  private first: Tx | undefined = undefined;
  private firstStake: Staked | undefined = undefined;
  private rest: Map<string, { tx: Tx; stake: Staked | undefined }> | undefined = undefined;

  get size(): number {
    return this.first === undefined ? 0 : 1 + (this.rest?.size ?? 0);
  }

  /** Adds a bet transaction, unless one with its id is there already. */
  add(tx: Tx): void {
    if (this.first === undefined) this.first = tx;
    else if (this.first.id !== tx.id && !this.rest?.has(tx.id)) (this.rest ??= new Map()).set(tx.id, { tx, stake: undefined });
  }

  /** The stake of the bet transaction `id` (added before), unless it has one already: `applied.total`. */
  stake(id: string, applied: Staked): void {
    if (this.first?.id === id) this.firstStake ??= applied;
    else {
      const bet = this.rest?.get(id);
      if (bet) bet.stake ??= applied;
    }
  }

  /** The attempt that applied bet transaction `id`, if the wallet applied one (whatever the provider read). */
  applied(id: string): Staked | undefined {
    return this.first?.id === id ? this.firstStake : this.rest?.get(id)?.stake;
  }

  /** The bet transactions, in arrival order. */
  values(): Tx[] {
    if (this.first === undefined) return [];
    const all = [this.first];
    if (this.rest) for (const { tx } of this.rest.values()) all.push(tx);
    return all;
  }

  /** The stakes of the applied bet transactions. */
  stakes(): number[] {
    const all: number[] = [];
    const total = this.firstStake?.total;
    if (total !== undefined) all.push(total);
    if (this.rest) for (const { stake } of this.rest.values()) if (stake?.total !== undefined) all.push(stake.total);
    return all;
  }
}

/** The attempts of a transaction the session holds: its first, the one before its last, its last (each once). */
export const heldAttempts = (tx: Tx): Attempt[] => [...new Set([tx.first, tx.prev, tx.last].filter((a) => a !== undefined))];
