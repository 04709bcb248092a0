/**
 * The arrivals still being decided, by ticket: the earliest of their times holds the session's
 * clock back. Tickets are issued in arrival order and their times almost always follow it, so
 * those in order wait in a queue whose oldest pending one is the earliest; one stamped before an
 * arrival issued earlier (the wall clock stepped back) waits apart, scanned while it is pending.
 * The clock costs O(1) per event instead of a scan of every arrival being decided.
 */
export class Arrivals {
  /**
   * The times of the tickets from `base` on, in `queue[head…tail)`; NaN once settled, or when kept
   * `apart`. The array is reused when the queue empties (as it does between most callbacks): a
   * truncation would free its storage, and the next push allocate it again.
   */
  private readonly queue: number[] = [];
  private head = 0;
  private tail = 0;
  private base = 1;
  private next = 1;
  /** The latest time in the queue: a ticket stamped earlier than it is kept apart. */
  private latest = -Infinity;
  private readonly apart = new Map<number, number>();

  /** A callback that arrived at `at` is being decided: its ticket. */
  add(at: number): number {
    const ticket = this.next++;
    if (at >= this.latest) {
      this.queue[this.tail++] = at;
      this.latest = at;
    } else {
      this.queue[this.tail++] = NaN;
      this.apart.set(ticket, at);
    }
    return ticket;
  }

  /** The callback of `ticket` is no longer being decided (a ticket settled before is ignored). */
  remove(ticket: number): void {
    const i = ticket - this.base;
    if (i >= this.head && i < this.tail && !Number.isNaN(this.queue[i])) {
      this.queue[i] = NaN;
      if (i === this.head) this.skipSettled();
    } else if (this.apart.size) this.apart.delete(ticket);
  }

  /** The earliest of `now` and the times of the arrivals still being decided. */
  horizon(now: number): number {
    let h = this.head < this.tail ? Math.min(now, this.queue[this.head]!) : now;
    if (this.apart.size) for (const at of this.apart.values()) h = Math.min(h, at);
    return h;
  }

  private skipSettled(): void {
    const q = this.queue;
    while (this.head < this.tail && Number.isNaN(q[this.head])) this.head++;
    if (this.head === this.tail) {
      // Nothing pending in the queue: it starts over (and so does the order its times must follow).
      this.base += this.tail;
      this.head = this.tail = 0;
      this.latest = -Infinity;
    } else if (this.head > 1024 && this.head * 2 > this.tail) {
      q.copyWithin(0, this.head, this.tail);
      this.base += this.head;
      this.tail -= this.head;
      this.head = 0;
    }
  }
}
