import type { Tx } from './model.js';

/**
 * A round's bet transactions in arrival order (each once), and the stake of each applied one
 * (its first applied total, counted once). Most rounds hold one bet: it is kept in fields, and a
 * Map is made only for a second one (two Maps per round were most of the grading state's
 * allocations that outlive a callback).
 */
export class RoundBets {
  private first: Tx | undefined = undefined;
  private firstStake: number | undefined = undefined;
  private rest: Map<string, { tx: Tx; stake: number | undefined }> | undefined = undefined;

  get size(): number {
    return this.first === undefined ? 0 : 1 + (this.rest?.size ?? 0);
  }

  /** Adds a bet transaction, unless one with its id is there already. */
  add(tx: Tx): void {
    if (this.first === undefined) this.first = tx;
    else if (this.first.id !== tx.id && !this.rest?.has(tx.id)) (this.rest ??= new Map()).set(tx.id, { tx, stake: undefined });
  }

  /** The stake of the bet transaction `id` (added before), unless it has one already. */
  stake(id: string, total: number): void {
    if (this.first?.id === id) this.firstStake ??= total;
    else {
      const bet = this.rest?.get(id);
      if (bet) bet.stake ??= total;
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
    if (this.firstStake !== undefined) all.push(this.firstStake);
    if (this.rest) for (const { stake } of this.rest.values()) if (stake !== undefined) all.push(stake);
    return all;
  }
}
