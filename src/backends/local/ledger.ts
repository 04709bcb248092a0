import { type Ledger, LEDGER_BATCH, type LedgerEntry, ledgerEntry } from '../../ledger/ledger-entry.js';
import type { WalletState } from '../state.js';

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
  async function* batches(): AsyncGenerator<LedgerEntry[]> {
    let batch: LedgerEntry[] = [];
    for (const t of records.values()) {
      if (userId !== undefined && t.user_id !== userId) continue;
      const row = ledgerEntry(t, settled);
      if (!row) continue;
      batch.push(row);
      if (batch.length >= LEDGER_BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }
  return { complete, completeFrom, batches: batches() };
}
