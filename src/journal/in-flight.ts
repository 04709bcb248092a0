import type { NewEntry, PendingEntry, ReplyTiming, StoredEntry } from '../core/exchange.js';

export type BegunEntry = Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>;

/** A callback journalled when decided, to be finished when answered (a `PendingEntry`). */
export class Begun implements PendingEntry {
  /** Its neighbours in the journal's list of callbacks in flight. */
  prev: Begun | undefined = undefined;
  next: Begun | undefined = undefined;

  constructor(
    private readonly journal: { finished(begun: Begun, done: ReplyTiming): StoredEntry },
    readonly id: number,
    readonly entry: BegunEntry,
    /** The body's characters it holds against the byte bound meanwhile. */
    readonly chars: number,
    /** The journal's epoch when it began (a reset bumps it: a callback of an earlier one is not kept). */
    readonly epoch = 0,
  ) {}

  finish(done: ReplyTiming): StoredEntry {
    return this.journal.finished(this, done);
  }
}

/** The callbacks in flight, oldest first: a doubly linked list through them (add and remove allocate nothing). */
export class InFlight {
  private first: Begun | undefined;
  private last: Begun | undefined;

  add(b: Begun): Begun {
    b.prev = this.last;
    if (this.last) this.last.next = b;
    else this.first = b;
    this.last = b;
    return b;
  }

  /** Removes `b`, once (a second call finds it unlinked and does nothing). */
  remove(b: Begun): void {
    if (b.prev) b.prev.next = b.next;
    else if (this.first === b) this.first = b.next;
    else return;
    if (b.next) b.next.prev = b.prev;
    else this.last = b.prev;
    b.prev = b.next = undefined;
  }

  /** The oldest id in flight of those begun in `epoch` (Infinity: none). */
  oldest(epoch: number): number {
    for (let b = this.first; b; b = b.next) if (b.epoch === epoch) return b.id;
    return Number.POSITIVE_INFINITY;
  }

  list(): Begun[] {
    const all: Begun[] = [];
    for (let b = this.first; b; b = b.next) all.push(b);
    return all;
  }
}
