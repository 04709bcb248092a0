import type { Attempt } from './attempt.js';
import { heldAttempts, inPlay, type Round, RoundBets, type Tx } from './model.js';

/**
 * The transactions and rounds a session holds, the oldest forgotten beyond its limits. Each map's
 * entries are also queued in insertion order (the bound is the only thing that removes any, oldest
 * first): the bound reads the oldest from its queue instead of a map iterator, which a map's
 * rehashing slows.
 */
export class Held {
  readonly txs = new Map<string, Tx>();
  readonly rounds = new Map<string, Round>();
  /** Rounds opened and not settled: never forgotten (ROUNDS_SETTLED and open_rounds read them). */
  readonly open = new Map<string, Round>();
  readonly forgotten = { transactions: 0, rounds: 0 };
  private readonly txOrder = new Fifo<Tx>();
  private readonly roundOrder = new Fifo<string>();

  constructor(private readonly limits: { transactions: number; rounds: number }) {}

  tx(tx: Tx): void {
    this.txs.set(tx.id, tx);
    this.txOrder.push(tx);
  }

  /** The round `key` of a player's game_no, held anew when the session no longer holds it. */
  round(user: string, game: string, key: string): Round {
    let round = this.rounds.get(key);
    if (!round && (round = this.open.get(key))) this.hold(key, round); // an open round outlives the bound
    if (!round) {
      round = new HeldRound(user, game);
      this.hold(key, round);
      this.bound();
    }
    return round;
  }

  /** The round `key`, if the session still holds it. */
  roundOf(key: string): Round | undefined {
    if (key === this.seenKey) return this.seenRound;
    this.seenKey = key;
    return (this.seenRound = this.rounds.get(key) ?? this.open.get(key));
  }

  // roundOf's latest answer (one callback's checks ask for one round often); reset when rounds or open change.
  private seenKey: string | undefined;
  private seenRound: Round | undefined;

  /** The round `key` was opened (its first applied bet) or settled (its first applied settlement). */
  opened(key: string, round: Round): void {
    this.seenKey = undefined;
    this.open.set(key, round);
  }

  settled(key: string): void {
    this.seenKey = undefined;
    this.open.delete(key);
  }

  private hold(key: string, round: Round): void {
    this.seenKey = undefined;
    this.rounds.set(key, round);
    this.roundOrder.push(key);
  }

  /** Forgets the oldest beyond the limits. */
  bound(): void {
    // A transaction still in play (being answered, a window open, a lost or failed reply not yet
    // resolved) goes to the back instead: forgetting it would make its resend look like a new one.
    // It stays in the map meanwhile (nothing reads the map's order): only the queue moves.
    let kept = 0;
    while (this.txs.size > this.limits.transactions) {
      const tx = this.txOrder.shift();
      if (!tx) break; // (every held transaction is queued once: never, unless that breaks)
      if (kept < 16 && inPlay(tx)) {
        kept++;
        this.txOrder.push(tx);
        continue;
      }
      this.txs.delete(tx.id);
      this.forgotten.transactions++;
    }
    while (this.rounds.size > this.limits.rounds) {
      const key = this.roundOrder.shift();
      if (key === undefined) break;
      this.rounds.delete(key);
      this.forgotten.rounds++;
      this.seenKey = undefined;
    }
  }
}

/** An attempt the time-out queue no longer needs: answered, or already lost (its caller left). */
export const noLongerWaiting = (a: Attempt): boolean => a.end !== undefined || a.outcome !== 'waiting';

/**
 * A transaction's attempts still waiting whose time-out ran out by `at` (session times): a fact of
 * their own, which a resend or a close of the transaction learns at once, whereas the session's
 * clock, held back by another callback still being decided, may not have reached it yet.
 */
export const timedOut = (tx: Tx | undefined, at: number, timeoutMs: number): Attempt[] =>
  tx ? heldAttempts(tx).filter((p) => p.outcome === 'waiting' && p.at + timeoutMs <= at) : [];

/** A first-in first-out queue: an array read from a moving head, compacted now and then. */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, left in the queue. */
  peek(): T | undefined {
    return this.head === this.items.length ? undefined : this.items[this.head];
  }

  /** Drops the oldest items while `gone` says so. */
  dropWhile(gone: (item: T) => boolean): void {
    for (let item = this.peek(); item !== undefined && gone(item); item = this.peek()) this.shift();
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

/**
 * A round as the session holds it: its own bets (one object, not a round and its RoundBets: a bet
 * opens most rounds, and each object kept is one more for the garbage collector to copy).
 */
export class HeldRound extends RoundBets implements Round {
  opener: Attempt | undefined = undefined;
  settlement: Attempt | undefined = undefined;
  marks: string[] | undefined = undefined;

  constructor(
    readonly user: string,
    readonly game: string,
  ) {
    super();
  }

  get bets(): RoundBets {
    return this;
  }
}
