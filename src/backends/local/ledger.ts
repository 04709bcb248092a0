import { type Ledger, LEDGER_BATCH, LedgerCut, type LedgerEntry, ledgerEntry, letOthersRun } from '../../ledger/ledger-entry.js';
import type { WalletState } from '../state.js';

/** How long one read makes rows before it lets other work run (its text is made in the same slice), and how often it looks. */
const SLICE_MS = 1;
const SLICE_CHECK = 32;

/** The ledger of a state held in this process (memory, file); `userId` keeps one player's rows. */
export function localLedger(state: WalletState, userId?: string): Ledger {
  const records = state.transactions;
  const settled = (key: string) => state.settled.has(key);
  let completeFrom: string | undefined;
  const complete = state.index.forgotten.size === 0;
  if (!complete) {
    // Forgetting is oldest first: every row from the oldest one still held on is complete.
    let oldest: number | undefined;
    for (const t of records.values())
      if (t.applied_at !== undefined) {
        oldest = t.applied_at;
        break;
      }
    completeFrom = new Date(oldest ?? Date.now()).toISOString();
  }
  const generation = state.generation;
  // A reset clears the maps in place: the iterator would end early, or run on into the next session's rows.
  const check = () => {
    if (state.generation !== generation) throw new LedgerCut();
  };
  async function* batches(): AsyncGenerator<LedgerEntry[]> {
    let batch: LedgerEntry[] = [];
    let seen = 0;
    let since = performance.now();
    for (const t of records.values()) {
      // A time slice (or a full batch) at a time: the rows so far go out, other work (callbacks) runs,
      // then the read goes on, if no reset came meanwhile. Its text is made in the same slice.
      if ((++seen % SLICE_CHECK === 0 && performance.now() - since >= SLICE_MS) || batch.length >= LEDGER_BATCH) {
        if (batch.length) yield batch;
        batch = [];
        await letOthersRun();
        check();
        since = performance.now();
      }
      if (userId !== undefined && t.user_id !== userId) continue;
      const row = ledgerEntry(t, settled);
      if (row) batch.push(row);
    }
    check();
    if (batch.length) yield batch;
  }
  return { complete, completeFrom, batches: batches() };
}
