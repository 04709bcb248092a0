const noop = () => {};

/** Windows that close at a time: a binary min-heap of callbacks, each cancellable. */
export class Deadlines {
  private heap: { at: number; fn: () => void; live: boolean }[] = [];

  /** Calls `fn` when `fire` reaches `at`; the returned function cancels it. */
  add(at: number, fn: () => void): () => void {
    const item = { at, fn, live: true };
    const h = this.heap;
    h.push(item);
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= h[i]!.at) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
    return () => {
      item.live = false;
      item.fn = noop; // what the closure holds is free at once, not when its time comes
    };
  }

  /** The time of the next live deadline (Infinity when none). */
  peek(): number {
    while (this.heap.length && !this.heap[0]!.live) this.pop();
    return this.heap[0]?.at ?? Infinity;
  }

  /** Fires the next deadline (`before`: told its time first). */
  fire(before?: (at: number) => void): void {
    const item = this.pop();
    if (!item?.live) return;
    before?.(item.at);
    item.fn();
  }

  private pop(): { at: number; fn: () => void; live: boolean } | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      h[0] = last;
      for (let i = 0; ;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let m = i;
        if (l < h.length && h[l]!.at < h[m]!.at) m = l;
        if (r < h.length && h[r]!.at < h[m]!.at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}
