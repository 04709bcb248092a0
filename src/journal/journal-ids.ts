import type { Redis } from 'ioredis';
import { beforeWrite } from '../backends/redis/coalesce.js';

/** How long a reserved id waits for its callback's entry (a callback is journalled within milliseconds of its count). */
const RESERVED_MS = 5000;
/** Players with ids reserved at once, at most (the oldest player's go first). */
const MAX_RESERVED = 100_000;

/**
 * The journal's entry ids: one counter in Redis (`journal:id`) for every process, so they are
 * unique and in arrival order across processes. Two things keep them off a callback's path:
 * - the ids asked for while the event loop handles one batch of events come from one INCRBY, in the
 *   order they were asked for (the INCRs it replaces left in one write and ran one after the other
 *   anyway: the same ids, one command);
 * - a callback's id is taken on arrival, in the write that counts the player's callback
 *   (RedisShared.countCall → `reserve`), and claimed when it is journalled: no round trip of its own.
 */
export class JournalIds {
  /** Ids taken ahead for players' callbacks, oldest first, with when each was asked for. */
  private readonly reserved = new Map<string, { id: Promise<number>; at: number }[]>();
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

  /**
   * Takes an id now for the next callback of `userId` this process journals. An id is unique
   * whoever claims it: one not claimed within RESERVED_MS is dropped (a gap in the ids, as an entry
   * Redis did not keep).
   */
  reserve(userId: string): void {
    const taken = { id: this.next(), at: Date.now() };
    const list = this.reserved.get(userId);
    if (list) {
      // Ids of callbacks that never came to be journalled (a failure before their entry) go.
      while (list.length && taken.at - list[0]!.at >= RESERVED_MS) list.shift();
      list.push(taken);
    } else {
      this.reserved.set(userId, [taken]);
      if (this.reserved.size > MAX_RESERVED) this.reserved.delete(this.reserved.keys().next().value!);
    }
  }

  /** The oldest id reserved for `userId` and still fresh (it may still be on its way), if any. */
  claim(userId: string | undefined): Promise<number> | undefined {
    const list = userId === undefined ? undefined : this.reserved.get(userId);
    if (!list) return undefined;
    const now = Date.now();
    let id: Promise<number> | undefined;
    while (id === undefined && list.length) {
      const taken = list.shift()!;
      if (now - taken.at < RESERVED_MS) id = taken.id;
    }
    if (!list.length) this.reserved.delete(userId!);
    return id;
  }
}
