import type { CheckId } from '../protocol/types.generated.js';
import { type Arrival, type Attempt, attemptOf, type Completion, type Outcome, replyBalance, replyOutcome, roundKey } from './attempt.js';
import { LOGGED_IN, mark, MAX_ROUNDS, MAX_TRANSACTIONS, type Player, type Reducer, type Round, type Tx } from './model.js';

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
  readonly txs = new Map<string, Tx>();
  readonly rounds = new Map<string, Round>();
  /** Rounds opened and not settled: never forgotten (ROUNDS_SETTLED and open_rounds read them). */
  readonly open = new Map<string, Round>();
  readonly players = new Map<string, Player>();
  readonly tallies: ReadonlyMap<CheckId, Tally>;
  readonly findings = new Map<string, Map<string, number>>();
  readonly timing = new Timing();
  readonly forgotten = { transactions: 0, rounds: 0 };
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
    private readonly limits = { transactions: MAX_TRANSACTIONS, rounds: MAX_ROUNDS },
  ) {
    this.tallies = new Map([...reducers.keys()].map((id) => [id, new Tally(id)]));
    for (const [id, tally] of this.tallies) this.byId[id] = tally;
    const all = [...reducers.values()];
    this.arrivers = hooked(all, 'arrive');
    this.knowers = hooked(all, 'known');
    this.enders = hooked(all, 'ended');
  }

  // Per event, only the reducers that have its hook, in the table order: no optional call on all 14.
  private readonly arrivers: Hook[];
  private readonly knowers: Hook[];
  private readonly enders: Hook[];

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
    const a = attemptOf(arrival, tx?.count ?? 0, this.roundKeyOf(arrival, tx));
    if (!tx) {
      tx = newTx(a, 0);
      this.hold(tx);
      this.bound();
    }
    if (a.nth > 0) tx.prev = tx.last;
    tx.count++;
    tx.last = a;
    tx.running++;
    if (tx.prev) this.timing.resend(a.at - tx.prev.at, tx.count);
    if (a.session) this.player(a.user).loginsInFlight++;
    this.unanswered.push(a);
    for (const fn of this.arrivers) fn(this, a, tx);
    this.book(a, tx);
    return a;
  }

  /**
   * The round key of an arrival, made once per player and game: a resend, and a settlement after
   * its bet, take the key made before (the same string, its hash already computed).
   */
  private roundKeyOf(r: Arrival, tx: Tx | undefined): string | undefined {
    const game = r.game;
    if (game === undefined) return undefined;
    const last = tx?.last;
    if (last && last.game === game && last.user === r.user) return last.round;
    const p = this.lastPlayer?.user === r.user ? this.lastPlayer : this.players.get(r.user);
    if (p && p.lastGame === game) return p.lastRound;
    const key = roundKey(r.user, game);
    if (p) {
      p.lastGame = game;
      p.lastRound = key;
    }
    return key;
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
      if (!round.bets.has(a.tx)) round.bets.set(a.tx, tx);
      if (!a.applied) return;
      if (!round.stakes.has(a.tx) && a.total !== undefined) round.stakes.set(a.tx, a.total);
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
    for (const fn of this.enders) fn(this, a, tx);
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
    for (const fn of this.knowers) fn(this, a, tx);
  }

  /** A transaction forgotten while one of its attempts was answered: judged on its own. */
  private orphan(a: Attempt): Tx {
    return newTx(a, a.nth + 1);
  }

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
    if (!p)
      this.players.set(
        user,
        (p = {
          user,
          lastLogin: undefined,
          reported: undefined,
          loginsInFlight: 0,
          marks: undefined,
          lastGame: undefined,
          lastRound: undefined,
        }),
      );
    return (this.lastPlayer = p);
  }

  round(user: string, game: string, key = roundKey(user, game)): Round {
    let round = this.rounds.get(key);
    if (!round && (round = this.open.get(key))) this.held(key, round); // an open round outlives the bound
    if (!round) {
      round = { user, game, bets: new Map(), opener: undefined, settlement: undefined, stakes: new Map(), marks: undefined };
      this.held(key, round);
      this.bound();
    }
    return round;
  }

  private held(key: string, round: Round): void {
    this.seenKey = undefined;
    this.rounds.set(key, round);
    this.roundOrder.push(key);
  }

  private hold(tx: Tx): void {
    this.txs.set(tx.id, tx);
    this.txOrder.push(tx);
  }

  /** The round of an attempt, if it has one and the session still holds it. */
  roundOf(a: { round?: string }): Round | undefined {
    const key = a.round;
    if (key === undefined) return undefined;
    if (key === this.seenKey) return this.seenRound;
    this.seenKey = key;
    return (this.seenRound = this.rounds.get(key) ?? this.open.get(key));
  }

  /**
   * The latest answer of roundOf (the checks of one callback ask it for the same round several
   * times); forgotten at every change of `rounds` or `open`.
   */
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

  // The maps' entries in insertion order (they are removed only by the bound, oldest first): the
  // bound reads the oldest here instead of through a map iterator, which a map's rehashing slows.
  private readonly txOrder = new Fifo<Tx>();
  private readonly roundOrder = new Fifo<string>();

  private bound(): void {
    // A transaction still in play (being answered, a window open, a lost or failed reply not yet
    // resolved) goes to the back instead: forgetting it would make its resend look like a new one.
    let kept = 0;
    while (this.txs.size > this.limits.transactions) {
      const tx = this.txOrder.shift()!;
      this.txs.delete(tx.id);
      if (kept < 16 && inPlay(tx)) {
        kept++;
        this.hold(tx);
        continue;
      }
      this.forgotten.transactions++;
    }
    while (this.rounds.size > this.limits.rounds) {
      this.seenKey = undefined;
      this.rounds.delete(this.roundOrder.shift()!);
      this.forgotten.rounds++;
    }
  }
}

/** A first-in first-out queue: an array read from a moving head, compacted now and then. */
class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined; // what it held is free at once, not at the next compaction
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

type Hook = (g: Grader, a: Attempt, tx: Tx) => void;

/** The reducers' methods for one event, bound to them. */
const hooked = (reducers: readonly Reducer[], event: 'arrive' | 'known' | 'ended'): Hook[] =>
  reducers.flatMap((r) => (r[event] ? [r[event].bind(r)] : []));

/** Whether a transaction may still be resent in a way a check must recognise. */
const inPlay = (tx: Tx) => tx.running > 0 || (tx.windows?.size ?? 0) > 0 || (!tx.resolved && tx.last.outcome !== 'R0');

/** A transaction's state, every field in one order (one shape for all, as attempts have). */
function newTx(a: Attempt, count: number): Tx {
  return {
    id: a.tx,
    user: a.user,
    event: a.event,
    game: a.game,
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
