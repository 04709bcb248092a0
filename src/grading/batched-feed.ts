import type { Arrival, Attempt, Completion } from './attempt.js';
import type { JournalledExchange } from '../core/exchange.js';
import { arriveExchange, type GradingFeed } from './feed.js';
import type { Grader } from './grader.js';

/** An attempt as the route holds it: its arrival may not be folded yet. */
export interface PendingAttempt {
  attempt: Attempt | undefined;
}

const EXPECT = 0;
const SETTLE = 1;
const ARRIVE = 2;
const CLOSED = 3;
const COMPLETE = 4;
const COUNT = 5;
const PLAYER = 6;

/**
 * A local grader's feed, folded in batches: the route's events are queued as they happen and folded
 * in that order once per turn of the event loop, or sooner when something reads the session
 * (`flush`). Every event carries its own time and windows are judged by those times, so a fold a
 * moment later grades exactly as a fold at once (test/grading/batched-feed.test.ts), tickets
 * (`expect`, `settle`) included: they are queued in order with the rest, since a ticket settled
 * before an earlier event is folded would let that event's windows close too soon. What it saves is
 * the fold's code and state brought back into the processor's caches for every callback
 * (docs/bench.md).
 *
 * A player's arrivals are folded in the order its callbacks arrived (their tickets), not the order
 * their answers were decided: an arrival waits, with its player's events queued after it, while a
 * callback of the same player that came before it is still being decided (a callback decided late,
 * proxy mode's upstream answering slowly, is folded in its place when it comes); then they are
 * folded in their order. A resend answered before its slow first attempt would otherwise be graded
 * as if sent before it (a negative gap: a premature retry, the provider blamed for the wallet's
 * slowness). Other players' events never wait for it.
 */
export class BatchedFeed implements GradingFeed<PendingAttempt> {
  /** Events as flat groups of four: kind, then its three arguments. */
  private queue: unknown[] = [];
  private scheduled = false;
  /** Tickets issued (1, 2…: the grader's own numbering, as the grader has no other caller). */
  private issued = 0;
  /** A ticket of ours the grader numbered otherwise (never, but not assumed). */
  private readonly renumbered = new Map<number, number>();
  /** The lowest of our tickets neither arrived nor settled yet; those above it that are. */
  private low = 1;
  private readonly resolved = new Set<number>();
  /** The player of each ticket from `base` on (when the pipeline said): users[ticket - base]. */
  private users: (string | undefined)[] = [];
  private base = 1;
  /** Per player, from an arrival that waits for an earlier ticket of the player on: its events since, in order. */
  private readonly waiting = new Map<string, unknown[]>();
  /** The player of an attempt whose arrival waits (its closing and completion wait with it). */
  private readonly waitingAttempts = new Map<PendingAttempt, string>();
  private readonly onTurn = () => {
    this.scheduled = false;
    this.flush();
  };

  constructor(private readonly g: Grader) {
    g.beforeRead = () => this.flush(); // a report folds what is queued, whoever asks for it and when
  }

  expect(at: number): number {
    const ticket = ++this.issued;
    this.push(EXPECT, at, ticket, undefined);
    return ticket;
  }

  settle(ticket: number): undefined {
    this.push(SETTLE, ticket, undefined, undefined);
    return undefined;
  }

  player(ticket: number, user: string): void {
    this.push(PLAYER, ticket, user, undefined);
  }

  arrived(x: JournalledExchange, ticket: number): PendingAttempt | undefined {
    return arriveExchange(this, x, ticket);
  }

  arrive(arrival: Arrival, ticket?: number): PendingAttempt {
    const pending: PendingAttempt = { attempt: undefined };
    this.push(ARRIVE, arrival, ticket, pending);
    return pending;
  }

  closed(pending: PendingAttempt, at: number): void {
    this.push(CLOSED, pending, at, undefined);
  }

  complete(pending: PendingAttempt, done: Completion): void {
    this.push(COMPLETE, pending, done, undefined);
  }

  count(user: string | undefined, codes: Iterable<string>): void {
    this.push(COUNT, user, codes, undefined);
  }

  /** Folds every event queued, in order. */
  flush(): void {
    const q = this.queue;
    if (q.length === 0) return;
    this.queue = [];
    for (let i = 0; i < q.length; i += 4) this.fold(q[i] as number, q[i + 1], q[i + 2], q[i + 3]);
  }

  private fold(kind: number, x: unknown, y: unknown, z: unknown): void {
    const g = this.g;
    try {
      if (kind === EXPECT) {
        const ticket = g.expect(x as number);
        if (ticket !== y) this.renumbered.set(y as number, ticket);
      } else if (kind === PLAYER) {
        this.users[(x as number) - this.base] = y as string;
      } else if (kind === SETTLE) {
        g.settle(this.ticket(x as number));
        this.resolve(x as number);
      } else if (kind === ARRIVE) {
        const user = (x as Arrival).user;
        const waiting = this.waiting.get(user);
        // Usually the lowest ticket open (decided as soon as it came): folded at once. Otherwise it waits
        // while a callback of its player that came before it is open; the earliest of them is folded
        // now, in its place, ahead of those waiting for it.
        const t = y as number | undefined;
        if (t === undefined ? waiting !== undefined : t !== this.low && this.earlierOpen(user, t)) {
          // A callback of this player that came before it is still being decided: this waits for it.
          if (waiting) waiting.push(kind, x, y, z);
          else this.waiting.set(user, [kind, x, y, z]);
          this.waitingAttempts.set(z as PendingAttempt, user);
          return;
        }
        (z as PendingAttempt).attempt = g.arrive(x as Arrival, y === undefined ? undefined : this.ticket(y as number));
        if (y !== undefined) this.resolve(y as number);
      } else if (kind === COUNT) g.count(x as string | undefined, y as Iterable<string>);
      else {
        const user = this.waitingAttempts.get(x as PendingAttempt);
        if (user !== undefined) return void this.waiting.get(user)!.push(kind, x, y, z);
        const a = (x as PendingAttempt).attempt;
        if (a && kind === CLOSED) g.closed(a, y as number);
        else if (a && kind === COMPLETE) g.complete(a, y as Completion);
      }
    } catch (error) {
      // A fold that fails is a defect of grading, never the wallet's: the callbacks are answered all
      // the same, and the next events are folded.
      process.emitWarning(`grading could not fold an event (${String(error)}): report this as a defect of wallet-sim`);
    }
  }

  /** Whether a ticket before `ticket` of `user` is neither arrived nor settled. */
  private earlierOpen(user: string, ticket: number): boolean {
    for (let s = this.low; s < ticket; s++) if (this.users[s - this.base] === user && !this.resolved.has(s)) return true;
    return false;
  }

  /** Our ticket arrived or settled: the events that waited are folded again, in order (some may wait on). */
  private resolve(ticket: number): void {
    if (ticket !== this.low) this.resolved.add(ticket);
    else {
      this.low++;
      while (this.resolved.delete(this.low)) this.low++;
      if (this.low - this.base > 1024) {
        this.users = this.users.slice(this.low - this.base);
        this.base = this.low;
      }
    }
    if (this.waiting.size === 0) return;
    for (const [user, waited] of [...this.waiting]) {
      if (this.waiting.get(user) !== waited) continue; // (folded again already, by a nested resolve)
      this.waiting.delete(user);
      for (let i = 0; i < waited.length; i += 4) {
        if (waited[i] === ARRIVE) this.waitingAttempts.delete(waited[i + 3] as PendingAttempt);
        this.fold(waited[i] as number, waited[i + 1], waited[i + 2], waited[i + 3]);
      }
    }
  }

  /** The grader's number of one of our tickets (used once: an arrival or a refusal settles it). */
  private ticket(ours: number): number {
    const theirs = this.renumbered.get(ours);
    if (theirs === undefined) return ours;
    this.renumbered.delete(ours);
    return theirs;
  }

  private push(kind: number, x: unknown, y: unknown, z: unknown): void {
    this.queue.push(kind, x, y, z);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.onTurn);
    }
  }
}
