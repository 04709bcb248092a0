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

/**
 * A local grader's feed, folded in batches: the route's events are queued as they happen and folded
 * in that order once per turn of the event loop, or sooner when something reads the session
 * (`flush`). Every event carries its own time and windows are judged by those times, so a fold a
 * moment later grades exactly as a fold at once (test/grading/batched-feed.test.ts), tickets
 * (`expect`, `settle`) included: they are queued in order with the rest, since a ticket settled
 * before an earlier event is folded would let that event's windows close too soon. What it saves is
 * the fold's code and state brought back into the processor's caches for every callback
 * (docs/bench.md).
 */
export class BatchedFeed implements GradingFeed<PendingAttempt> {
  /** Events as flat groups of four: kind, then its three arguments. */
  private queue: unknown[] = [];
  private scheduled = false;
  /** Tickets issued (1, 2…: the grader's own numbering, as the grader has no other caller). */
  private issued = 0;
  /** A ticket of ours the grader numbered otherwise (never, but not assumed). */
  private readonly renumbered = new Map<number, number>();
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
    const g = this.g;
    for (let i = 0; i < q.length; i += 4) {
      try {
        const kind = q[i];
        if (kind === EXPECT) {
          const ticket = g.expect(q[i + 1] as number);
          if (ticket !== q[i + 2]) this.renumbered.set(q[i + 2] as number, ticket);
        } else if (kind === SETTLE) g.settle(this.ticket(q[i + 1] as number));
        else if (kind === ARRIVE) {
          const ticket = q[i + 2] as number | undefined;
          (q[i + 3] as PendingAttempt).attempt = g.arrive(q[i + 1] as Arrival, ticket === undefined ? undefined : this.ticket(ticket));
        } else if (kind === COUNT) g.count(q[i + 1] as string | undefined, q[i + 2] as Iterable<string>);
        else {
          const a = (q[i + 1] as PendingAttempt).attempt;
          if (a && kind === CLOSED) g.closed(a, q[i + 2] as number);
          else if (a && kind === COMPLETE) g.complete(a, q[i + 2] as Completion);
        }
      } catch (error) {
        // A fold that fails is a defect of grading, never the wallet's: the callbacks are answered all
        // the same, and the next events are folded.
        process.emitWarning(`grading could not fold an event (${String(error)}): report this as a defect of wallet-sim`);
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
