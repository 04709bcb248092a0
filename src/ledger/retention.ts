import { type TransactionRecord, forgottenRound, forgottenTxn, roundKey } from './change.js';
import { ForgottenIds } from './forgotten.js';
import { roundEffectOf } from './round-effects.js';

/**
 * The newest `retain` applied transactions (docs/design.md "Bounded memory"); older ones are forgotten
 * into a record of hashes, and a settled round goes with the transaction that settled it. Open
 * rounds and players are never forgotten. The wallet's state keeps one; the file store's
 * snapshots are copied from that state, so a snapshot holds exactly what the wallet holds.
 */
export class TransactionIndex {
  readonly records = new Map<string, TransactionRecord>();
  forgotten = new ForgottenIds();
  /**
   * The oldest record, as a live iterator over `records`: a Map keeps deleted entries as holes until
   * it rehashes, and a fresh `entries().next()` skips them all from the start (~90 µs per forget at
   * 1M retained, on every callback once the bound is reached; ~3 µs this way).
   */
  private oldest = this.records.entries();

  constructor(public retain = Number.POSITIVE_INFINITY) {}

  /** Adds an applied transaction; calls `forgetRound` with the round key of each settled round that goes. */
  add(record: TransactionRecord, forgetRound: (key: string) => boolean): void {
    this.records.set(record.transaction_id, record);
    while (this.records.size > this.retain) {
      const [id, old] = this.oldest.next().value as [string, TransactionRecord];
      this.records.delete(id);
      this.forgotten.add(forgottenTxn(id));
      if (roundEffectOf(old.event_type) === 'settles' && old.game_no !== undefined) {
        const key = roundKey(old.user_id, old.game_no);
        if (forgetRound(key)) this.forgotten.add(forgottenRound(key));
      }
    }
  }

  clear(): void {
    this.records.clear();
    this.oldest = this.records.entries();
    this.forgotten.clear();
  }
}
