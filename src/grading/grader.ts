import type { CheckId } from '../protocol/types.generated.js';
import { type Arrival, type Attempt, attemptOf, type Completion, type Outcome, replyBalance, replyOutcome, roundKey } from './attempt.js';
import {
  hooked,
  type Hooks,
  LOGGED_IN,
  mark,
  MAX_ROUNDS,
  MAX_TRANSACTIONS,
  newPlayer,
  newTx,
  type Player,
  type Reducer,
  type Round,
  type Tx,
} from './model.js';
import { Held } from './held.js';
import { RoundBets } from './round-bets.js';
export { LOGGED_IN, MAX_ROUNDS, MAX_TRANSACTIONS, type Player, type Reducer, type Round, type Tx } from './model.js';
import { Arrivals } from './arrivals.js';
import { Deadlines } from './deadlines.js';
import { Tally } from './tally.js';
import type { Thresholds } from './thresholds.js';
import { Timing } from './timing.js';

/**
 * The session's grading state, folded from its events as they happen (arrivals, outcomes, replies
 * written): per transaction, round and player, and per check a tally of chances, violations and
 * open windows. No journal is read; a report costs the same at any session length.
 */
export class Grader {
  readonly txs: Map<string, Tx>;
  readonly rounds: Map<string, Round>;
  /** Rounds opened and not settled: never forgotten (ROUNDS_SETTLED and open_rounds read them). */
  readonly open = new Map<string, Round>();
  readonly players = new Map<string, Player>();
  readonly tallies: ReadonlyMap<CheckId, Tally>;
  readonly findings = new Map<string, Map<string, number>>();
  readonly timing = new Timing();
  readonly forgotten: { transactions: number; rounds: number };
  /** The transactions and rounds held, the oldest forgotten beyond the limits. */
  private readonly held: Held;
  private readonly deadlines = new Deadlines();
  /** Attempts being answered, oldest first: each becomes `lost` when the caller's time-out passes. */
  private unanswered: Attempt[] = [];
  private head = 0;
  /** Arrivals whose callback is still being decided: no deadline at or after them may fire yet. */
  private readonly arriving = new Arrivals();
  private clock = 0;
  /**
   * How far behind the wall clock a report judges windows: 0 when every event is folded as it
   * happens; with a shared store, the time other processes may still take to write theirs.
   */
  lagMs = 0;

  constructor(
    public t: Thresholds,
    reducers: ReadonlyMap<CheckId, Reducer>,
    limits = { transactions: MAX_TRANSACTIONS, rounds: MAX_ROUNDS },
  ) {
    this.held = new Held(limits);
    ({ txs: this.txs, rounds: this.rounds, forgotten: this.forgotten } = this.held);
    const players = { get: (user: string) => this.players.get(user), of: (user: string) => this.player(user) };
    this.tallies = new Map([...reducers.keys()].map((id, i) => [id, new Tally(id, i, players)]));
    for (const [id, tally] of this.tallies) this.byId[id] = tally;
    this.hooks = hooked([...reducers.values()]);
  }

  private readonly hooks: Hooks;

  get timeoutMs(): number {
    return this.t.client_timeout_s * 1000;
  }

  get windowMs(): number {
    return this.t.retry_window_s * 1000;
  }

  /** Grows with every change of a check's tally (chances, violations, open windows). */
  get version(): number {
    let v = 0;
    for (const t of this.tallies.values()) v += t.version;
    return v;
  }

  tally(id: CheckId): Tally {
    return this.byId[id]!;
  }

  private readonly byId: Partial<Record<CheckId, Tally>> = {};

  /** Calls `fn` once the session's clock passes `at` (a window closing); the returned function cancels it. */
  when(at: number, fn: () => void): () => void {
    return this.deadlines.add(at, fn);
  }

  /** A callback that arrived at `at` is being decided: deadlines after `at` wait for it. */
  expect(at: number): number {
    return this.arriving.add(at);
  }

  /** The callback of `ticket` will not be graded (refused before it could be, or its arrival was recorded). */
  settle(ticket: number): undefined {
    this.arriving.remove(ticket);
    return undefined;
  }

  /** Moves the session's clock to `now`: time-outs and windows up to then take effect. */
  advance(now: number): void {
    const horizon = this.arriving.horizon(now);
    if (horizon < this.clock) return;
    this.clock = horizon;
    const timeout = this.timeoutMs;
    // Time-outs and windows in time order: a window may open when an attempt times out.
    for (;;) {
      const a = this.unanswered[this.head];
      const next = a ? a.at + timeout : Infinity;
      const deadline = this.deadlines.peek();
      if (next <= horizon && next <= deadline) {
        this.head++;
        if (a!.end === undefined && a!.outcome === 'waiting') this.learn(a!, 'lost', next);
      } else if (deadline <= horizon) this.deadlines.fire();
      else break;
    }
    if (this.head > 1024 && this.head * 2 > this.unanswered.length) {
      this.unanswered = this.unanswered.slice(this.head);
      this.head = 0;
    }
  }

  /** An authenticated callback with a transaction_id arrived. */
  arrive(arrival: Arrival, ticket?: number): Attempt {
    if (ticket !== undefined) this.settle(ticket);
    this.advance(arrival.at);
    let tx = this.txs.get(arrival.tx);
    const a = attemptOf(arrival, tx?.count ?? 0);
    if (!tx) {
      tx = newTx(a, 0);
      this.held.tx(tx);
      this.bound();
    }
    if (a.nth > 0) tx.prev = tx.last;
    tx.count++;
    tx.last = a;
    tx.running++;
    if (tx.prev) this.timing.resend(a.at - tx.prev.at, tx.count);
    if (a.session) this.player(a.user).loginsInFlight++;
    this.unanswered.push(a);
    for (const fn of this.hooks.arrive) fn(this, a, tx);
    this.book(a, tx);
    return a;
  }

  /** What an arrival changes in its round and player, once the checks have judged it against the state before. */
  private book(a: Attempt, tx: Tx): void {
    if (a.session) {
      if (a.applied) mark(this.player(a.user), LOGGED_IN);
      return;
    }
    if (a.game === undefined) return;
    if (a.effect === 'opens') {
      const round = this.round(a.user, a.game, a.round);
      round.bets.add(tx);
      if (!a.applied) return;
      if (a.total !== undefined) round.bets.stake(a.tx, a.total);
      if (!round.opener) {
        round.opener = a;
        this.seenKey = undefined;
        this.open.set(a.round!, round);
      }
    } else if (a.effect === 'settles' && a.applied) {
      const round = this.open.get(a.round!);
      if (round?.opener && !round.settlement) {
        round.settlement = a;
        this.seenKey = undefined;
        this.open.delete(a.round!);
      }
    }
  }

  /** The caller closed the connection of an attempt still being answered. */
  closed(a: Attempt, at: number): void {
    if (a.end !== undefined || a.closedAt !== undefined) return;
    this.advance(at);
    a.closedAt = at;
    this.timing.closed(at - a.at);
    if (a.outcome === 'waiting') this.learn(a, 'lost', at);
  }

  /** The wallet wrote the reply of an attempt, or closed its connection. */
  complete(a: Attempt, done: Completion): void {
    if (a.end !== undefined) return;
    this.advance(done.end);
    a.end = done.end;
    const held = this.txs.get(a.tx);
    const tx = held ?? this.orphan(a);
    tx.running = Math.max(0, tx.running - 1);
    if (a.outcome === 'waiting') this.answered(a, done, a.at + this.timeoutMs, held);
    for (const fn of this.hooks.ended) fn(this, a, tx);
  }

  /**
   * The outcome of an attempt the wallet finished (`timeoutAt`: when the caller gave up on it).
   * `held`: its transaction as the session holds it, already looked up (an orphan gets its own).
   */
  private answered(a: Attempt, done: Completion, timeoutAt: number, held: Tx | undefined): void {
    if (done.dropped) this.learn(a, 'lost', done.end, undefined, held);
    else if (done.clientGone) this.learn(a, 'lost', Math.min(a.closedAt ?? done.end, timeoutAt), undefined, held);
    else if (done.end > timeoutAt) this.learn(a, 'lost', timeoutAt, undefined, held);
    else this.learn(a, replyOutcome(done), done.end, replyBalance(done), held);
  }

  private learn(a: Attempt, outcome: Outcome, knownAt: number, balance?: number, held = this.txs.get(a.tx)): void {
    a.outcome = outcome;
    a.knownAt = knownAt;
    if (balance !== undefined) a.balance = balance;
    const tx = held ?? this.orphan(a);
    if (outcome !== 'lost') tx.read = true;
    if (!tx.resolved && (outcome === 'R0' || outcome === 'R2' || outcome === 'R3' || outcome === 'R4')) tx.resolved = a;
    if (a.session) {
      const p = this.player(a.user);
      p.loginsInFlight = Math.max(0, p.loginsInFlight - 1);
      if (outcome === 'R0' || outcome === 'R2' || outcome === 'R3') p.lastLogin = a;
    }
    if (a.balance !== undefined) this.player(a.user).reported = a;
    for (const fn of this.hooks.known) fn(this, a, tx);
  }

  /** A transaction forgotten while one of its attempts was answered: judged on its own, one per attempt (time-out, reply, windows). */
  private orphan(a: Attempt): Tx {
    let tx = this.orphans.get(a);
    if (!tx) this.orphans.set(a, (tx = newTx(a, a.nth + 1)));
    return tx;
  }
  private readonly orphans = new WeakMap<Attempt, Tx>();

  /** State a check keeps of its own for the session. */
  state<T>(key: CheckId, init: () => T): T {
    let v = this.own.get(key) as T | undefined;
    if (v === undefined) this.own.set(key, (v = init()));
    return v;
  }

  private readonly own = new Map<CheckId, unknown>();

  // The player last asked for: the checks of one callback ask for the same one several times.
  // Players are never removed, so the memo never goes stale.
  private lastPlayer: Player | undefined;

  player(user: string): Player {
    if (this.lastPlayer?.user === user) return this.lastPlayer;
    let p = this.players.get(user);
    if (!p) this.players.set(user, (p = newPlayer(user, this.tallies.size)));
    return (this.lastPlayer = p);
  }

  round(user: string, game: string, key = roundKey(user, game)): Round {
    let round = this.rounds.get(key);
    if (!round && (round = this.open.get(key))) this.hold(key, round); // an open round outlives the bound
    if (!round) {
      round = { user, game, bets: new RoundBets(), opener: undefined, settlement: undefined, marks: undefined };
      this.hold(key, round);
      this.bound();
    }
    return round;
  }

  private hold(key: string, round: Round): void {
    this.seenKey = undefined;
    this.held.round(key, round);
  }

  private bound(): void {
    if (this.held.bound()) this.seenKey = undefined;
  }

  /** The round of an attempt, if it has one and the session still holds it. */
  roundOf(a: { round?: string }): Round | undefined {
    const key = a.round;
    if (key === undefined) return undefined;
    if (key === this.seenKey) return this.seenRound;
    this.seenKey = key;
    return (this.seenRound = this.rounds.get(key) ?? this.open.get(key));
  }

  // roundOf's latest answer (one callback's checks ask for one round often); reset when rounds or open change.
  private seenKey: string | undefined;
  private seenRound: Round | undefined;

  /** Findings of one journalled callback (any callback: a refused one's too), counted per player. */
  count(user: string | undefined, codes: Iterable<string>): void {
    for (const code of codes) {
      let byUser = this.findings.get(code);
      if (!byUser) this.findings.set(code, (byUser = new Map()));
      byUser.set(user ?? '', (byUser.get(user ?? '') ?? 0) + 1);
    }
  }
}
