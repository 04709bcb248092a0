import type { CheckId } from '../protocol/types.generated.js';
import {
  type Arrival,
  type Attempt,
  attemptOf,
  type Completion,
  DEFINITE,
  noteNear,
  type Outcome,
  replyBalance,
  replyOutcome,
  roundKey,
} from './attempt.js';
import {
  hooked,
  type Hooks,
  LOGGED_IN,
  mark,
  MAX_ROUNDS,
  MAX_TRANSACTIONS,
  newPlayer,
  newTx,
  recordReport,
  type Player,
  type Reducer as ReducerOf,
  type Round,
  type Tx,
} from './model.js';
import { Fifo, Held, noLongerWaiting, timedOut } from './held.js';
export { LOGGED_IN, MAX_ROUNDS, MAX_TRANSACTIONS, type Player, type Round, type Tx } from './model.js';
/** What a check does with the session's events: a small reducer over the grader's state. */
export type Reducer = ReducerOf<Grader>;
import { Arrivals } from './arrivals.js';
import { Deadlines } from './deadlines.js';
import { countFindings, Tally } from './tally.js';
import type { Thresholds } from '../core/scenario/thresholds.js';
import { Timing } from './timing.js';
import { INVALID, SUCCESS, UNAUTHORIZED } from '../protocol/seed/codes.js';

/**
 * The session's grading state, folded from its events as they happen (arrivals, outcomes, replies
 * written): per transaction, round and player, and per check a tally of chances, violations and
 * open windows. No journal is read; a report costs the same at any session length.
 */
export class Grader {
  readonly txs: Map<string, Tx>;
  readonly rounds: Map<string, Round>;
  /** Rounds opened and not settled: never forgotten (ROUNDS_SETTLED and open_rounds read them). */
  readonly open: Map<string, Round>;
  readonly players = new Map<string, Player>();
  /** Players a restarted wallet held when the session began (Grading.resume): their logins came before it. */
  resumed: ReadonlySet<string> = new Set();
  readonly tallies: ReadonlyMap<CheckId, Tally>;
  readonly findings = new Map<string, Map<string, number>>();
  readonly timing = new Timing();
  readonly forgotten: { transactions: number; rounds: number };
  /** The transactions and rounds held, the oldest forgotten beyond the limits. */
  private readonly held: Held;
  private readonly deadlines = new Deadlines();
  /** Attempts being answered, oldest first: each becomes `lost` when the caller's time-out passes. */
  private readonly unanswered = new Fifo<Attempt>();
  /** Arrivals whose callback is still being decided: no deadline at or after them may fire yet. */
  private readonly arriving = new Arrivals();
  /** The session's clock, since `origin` (held back by arrivals still being decided: a report judges up to it). */
  clock = -Infinity;
  /** The time of the event being folded (since `origin`): when a violation found now was decided (`decided_at`). */
  private deciding = 0;
  /** Epoch ms its times count from: the times it keeps are relative, small integers (attempt.ts); its methods take epoch times. */
  readonly origin = Date.now();
  /** How far behind the clock a report judges windows: 0, or with a shared store how late other processes may write theirs. */
  lagMs = 0;

  constructor(
    public t: Thresholds,
    reducers: ReadonlyMap<CheckId, Reducer>,
    limits = { transactions: MAX_TRANSACTIONS, rounds: MAX_ROUNDS },
  ) {
    this.held = new Held(limits);
    ({ txs: this.txs, rounds: this.rounds, open: this.open, forgotten: this.forgotten } = this.held);
    const players = { get: (user: string) => this.players.get(user), of: (user: string) => this.player(user) };
    this.tallies = new Map([...reducers.keys()].map((id, i) => [id, new Tally(id, i, players, this.origin, () => this.deciding)]));
    for (const [id, tally] of this.tallies) this.byId[id] = tally;
    this.hooks = hooked([...reducers.values()]);
  }

  private readonly hooks: Hooks<Grader>;

  // Whole ms, as every time kept is: 4.03 s is 4030, not 4030.0000000000005 (whose hair would let a reply at 4030 count as in time).
  get timeoutMs(): number {
    return Math.round(this.t.client_timeout_s * 1000);
  }

  get windowMs(): number {
    return Math.round(this.t.retry_window_s * 1000);
  }

  /** Folds what a batched feed still holds (src/grading/batched-feed.ts): a report reads nothing older. */
  beforeRead: () => void = () => {};

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

  /** Calls `fn` once the session's clock passes `at` (a window closing; since `origin`); the returned function cancels it. */
  when(at: number, fn: () => void): () => void {
    return this.deadlines.add(at, fn);
  }

  /** A callback that arrived at `at` is being decided: deadlines after `at` wait for it. */
  expect(at: number): number {
    return this.arriving.add(at - this.origin);
  }

  /** The callback of `ticket` will not be graded (refused before it could be, or its arrival was recorded). */
  settle(ticket: number): undefined {
    this.arriving.remove(ticket);
    return undefined;
  }

  /** The session's time of an epoch time. */
  since(epochMs: number): number {
    return epochMs - this.origin;
  }

  /** Moves the session's clock to `now` (epoch ms): time-outs and windows up to then take effect. */
  advance(now: number): void {
    const horizon = this.arriving.horizon(now - this.origin);
    if (horizon < this.clock) return;
    this.clock = horizon;
    const timeout = this.timeoutMs;
    // Time-outs and windows in time order: a window may open when an attempt times out.
    for (;;) {
      const a = this.unanswered.peek();
      const next = a ? a.at + timeout : Infinity;
      const deadline = this.deadlines.peek();
      if (next <= horizon && next <= deadline) {
        this.unanswered.shift();
        if (!noLongerWaiting(a!)) this.learn(a!, 'lost', (this.deciding = next));
      } else if (deadline <= horizon) this.deadlines.fire((at) => (this.deciding = at));
      else break;
    }
  }

  /** An authenticated callback with a transaction_id arrived. */
  arrive(arrival: Arrival, ticket?: number): Attempt {
    if (ticket !== undefined) this.settle(ticket);
    this.advance(arrival.at);
    let tx = this.txs.get(arrival.tx);
    // Its attempts whose time-out ran out before it arrived are lost then, however far a held clock got (held.ts).
    for (const p of timedOut(tx, arrival.at - this.origin, this.timeoutMs))
      this.learn(p, 'lost', (this.deciding = p.at + this.timeoutMs), undefined, tx);
    const a = attemptOf(arrival, tx?.count ?? 0, this.origin);
    if (!tx) {
      tx = newTx(a, 0);
      this.held.tx(tx);
      this.held.bound();
    }
    if (a.nth > 0) tx.prev = tx.last;
    tx.count++;
    tx.last = a;
    tx.running++;
    this.deciding = a.at;
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
      // A login whose reply the wallet garbled may have succeeded: the provider's next bet is not held against it.
      if (a.applied || a.excused) mark(this.player(a.user), LOGGED_IN);
      return;
    }
    if (a.game === undefined) return;
    if (a.effect === 'opens') {
      const round = this.round(a.user, a.game, a.round);
      round.bets.add(tx);
      if (!a.applied) return;
      if (a.total !== undefined) round.bets.stake(a.tx, a);
      if (!round.opener) {
        round.opener = a;
        this.held.opened(a.round!, round);
      }
    } else if (a.effect === 'settles' && (a.applied || a.excused)) {
      const round = this.open.get(a.round!);
      if (round?.opener && !round.settlement) {
        round.settlement = a;
        this.held.settled(a.round!);
      }
    }
  }

  /** The caller closed the connection of an attempt still being answered. */
  closed(a: Attempt, epochMs: number): void {
    if (a.end !== undefined || a.closedAt !== undefined) return;
    this.advance(epochMs);
    const at = epochMs - this.origin;
    a.closedAt = this.deciding = at;
    this.timing.closed(at - a.at);
    for (const p of timedOut(this.txs.get(a.tx), at, this.timeoutMs)) this.learn(p, 'lost', (this.deciding = p.at + this.timeoutMs));
    if (a.outcome === 'waiting') this.learn(a, 'lost', (this.deciding = at));
    if (a.outcome === 'lost' && at > a.knownAt! && at <= a.knownAt! + this.windowMs) a.knownAt = at; // given up late, in the window: known then
  }

  /** The wallet wrote the reply of an attempt, or closed its connection. */
  complete(a: Attempt, done: Completion): void {
    if (a.end !== undefined) return;
    this.advance(done.end);
    const end = done.end - this.origin;
    a.end = this.deciding = end;
    this.unanswered.dropWhile(noLongerWaiting); // (answered in order: it keeps what waits, not a time-out's worth of traffic)
    const held = this.txs.get(a.tx);
    const tx = held ?? this.orphan(a);
    tx.running = Math.max(0, tx.running - 1);
    if (a.outcome === 'waiting') this.answered(a, done, end, a.at + this.timeoutMs, held);
    else if (a.outcome === 'lost' && a.closedAt === undefined && !done.dropped && !done.clientGone) noteNear(a, done, end, this.timeoutMs);
    for (const fn of this.hooks.ended) fn(this, a, tx);
  }

  /**
   * The outcome of an attempt the wallet finished at `end` (`timeoutAt`: when the caller gave up on it; both
   * since `origin`). `held`: its transaction as the session holds it, already looked up (an orphan gets its own).
   */
  private answered(a: Attempt, done: Completion, end: number, timeoutAt: number, held: Tx | undefined): void {
    if (done.dropped) this.learn(a, 'lost', end, undefined, held);
    else if (done.clientGone) this.learn(a, 'lost', Math.min(a.closedAt ?? end, timeoutAt), undefined, held);
    // Read or not as the time-out ran out (noteNear): lost or read, its balance not known to the provider.
    else if (noteNear(a, done, end, this.timeoutMs) || end > timeoutAt)
      this.learn(a, end > timeoutAt ? 'lost' : a.near!, Math.min(end, timeoutAt), undefined, held);
    else if (a.excused) this.learn(a, 'failed', end, undefined, held);
    else this.learn(a, replyOutcome(done), end, replyBalance(done), held);
  }

  private learn(a: Attempt, outcome: Outcome, knownAt: number, balance?: number, held = this.txs.get(a.tx)): void {
    a.outcome = outcome;
    a.knownAt = knownAt;
    const tx = held ?? this.orphan(a);
    if (outcome !== 'lost') tx.read = true;
    if (!tx.resolved && (outcome === SUCCESS || DEFINITE.has(outcome))) tx.resolved = a;
    if (a.session) {
      const p = this.player(a.user);
      p.loginsInFlight = Math.max(0, p.loginsInFlight - 1);
      if ((outcome === SUCCESS || outcome === UNAUTHORIZED || outcome === INVALID) && a.id >= (p.lastLogin?.id ?? 0)) p.lastLogin = a;
    }
    if (balance !== undefined) recordReport(this.player(a.user), a, balance);
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
  // The player last asked for (the checks of one callback ask for it several times; players are never removed).
  private lastPlayer: Player | undefined;

  player(user: string): Player {
    if (this.lastPlayer?.user === user) return this.lastPlayer;
    let p = this.players.get(user);
    if (!p) this.players.set(user, (p = newPlayer(user, this.tallies.size)));
    return (this.lastPlayer = p);
  }

  round(user: string, game: string, key = roundKey(user, game)): Round {
    return this.held.round(user, game, key);
  }

  /** The round of an attempt, if it has one and the session still holds it. */
  roundOf(a: { round?: string }): Round | undefined {
    return a.round === undefined ? undefined : this.held.roundOf(a.round);
  }

  /** Findings of one journalled callback (any callback: a refused one's too), counted per player. */
  count(user: string | undefined, codes: Iterable<string>): void {
    countFindings(this.findings, user, codes);
  }
}
