import type { Change } from '../wallet/state.js';
import { KINDS, type KeyedOp, recordKey } from './records.js';

/**
 * The latest record per key, folded from change records exactly as WalletState.apply folds them
 * (same keys, same Map insertion order), but without parsing amounts: what the store needs to
 * write a snapshot that WalletState.changes() would have produced.
 */
export class ChangeFold {
  private readonly byKind = new Map<KeyedOp, Map<string, Change>>(KINDS.map((k) => [k, new Map()]));

  apply(changes: Iterable<Change>): void {
    for (const c of changes) this.add(c);
  }

  add(c: Change): void {
    if (c.op === 'clear') for (const records of this.byKind.values()) records.clear();
    else this.byKind.get(c.op)!.set(recordKey(c), c);
  }

  get size(): number {
    let n = 0;
    for (const records of this.byKind.values()) n += records.size;
    return n;
  }

  /** A copy of the folded state as change records, kind by kind (players, rounds, transactions). */
  changes(): Change[] {
    const out: Change[] = [];
    for (const records of this.byKind.values()) for (const c of records.values()) out.push(c);
    return out;
  }
}
