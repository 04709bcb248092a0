import type { Attempt } from './attempt.js';
import type { Round, Tx } from './model.js';

/** An applied bet's attempt: its total is the stake (one without a total stakes nothing known). */
type Staked = { total?: number };

/**
 * A round's bet transactions in arrival order (each once), and the stake of each applied one
 * (its first applied total, counted once). Most rounds hold one bet: it is kept in fields, and a
 * Map is made only for a second one (two Maps per round were most of the grading state's
 * allocations that outlive a callback). A stake is kept as the attempt whose total it is: a number
 * field would keep a number object of its own per round.
 */
export class RoundBets {
  private first: Tx | undefined = undefined;
  private firstStake: Staked | undefined = undefined;
  private rest: Map<string, { tx: Tx; stake: Staked | undefined }> | undefined = undefined;

  get size(): number {
    return this.first === undefined ? 0 : 1 + (this.rest?.size ?? 0);
  }

  /** Adds a bet transaction, unless one with its id is there already. */
  add(tx: Tx): void {
    if (this.first === undefined) this.first = tx;
    else if (this.first.id !== tx.id && !this.rest?.has(tx.id)) (this.rest ??= new Map()).set(tx.id, { tx, stake: undefined });
  }

  /** The stake of the bet transaction `id` (added before), unless it has one already: `applied.total`. */
  stake(id: string, applied: Staked): void {
    if (this.first?.id === id) this.firstStake ??= applied;
    else {
      const bet = this.rest?.get(id);
      if (bet) bet.stake ??= applied;
    }
  }

  /** The bet transactions, in arrival order. */
  values(): Tx[] {
    if (this.first === undefined) return [];
    const all = [this.first];
    if (this.rest) for (const { tx } of this.rest.values()) all.push(tx);
    return all;
  }

  /** The stakes of the applied bet transactions. */
  stakes(): number[] {
    const all: number[] = [];
    const total = this.firstStake?.total;
    if (total !== undefined) all.push(total);
    if (this.rest) for (const { stake } of this.rest.values()) if (stake?.total !== undefined) all.push(stake.total);
    return all;
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
