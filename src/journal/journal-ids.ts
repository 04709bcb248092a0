import type { Redis } from 'ioredis';
import { beforeWrite } from '../backends/redis/coalesce.js';

/**
 * The journal's entry ids: one counter in Redis (`journal:id`) for every process, so they are
 * unique across processes. A callback answered at once is numbered by its commit script
 * (src/backends/redis/commit.ts, the same counter); the others ask here when they are journalled,
 * and the ids asked for while the event loop handles one batch of events come from one INCRBY, in
 * the order they were asked for.
 */
export class JournalIds {
  /** Ids asked for in this turn of the event loop. */
  private asked: ((id: number) => void)[] = [];

  constructor(
    private readonly client: Redis,
    readonly key: string,
    /** Why Redis cannot serve now: no id is then asked for (0). */
    private readonly unavailable: () => string | undefined,
  ) {}

  /** An id, or 0 when Redis cannot give one (the entry is then not kept). */
  next(): Promise<number> {
    if (this.unavailable()) return Promise.resolve(0);
    return new Promise((resolve) => {
      if (this.asked.push(resolve) === 1) beforeWrite(this.client, () => this.give());
    });
  }

  private give(): void {
    const asked = this.asked;
    this.asked = [];
    this.client.incrby(this.key, asked.length).then(
      (last) => asked.forEach((resolve, i) => resolve(last - asked.length + 1 + i)),
      () => asked.forEach((resolve) => resolve(0)),
    );
  }
}
