import { type Ledger, LedgerCut, type LedgerEntry, ledgerEntry } from '../../ledger/ledger-entry.js';
import type { WalletState } from '../../ledger/state.js';

/**
 * A batch: at most this many rows, or this many records looked at (a player's rows among many).
 * Small, so that the reader's slice of time (src/ledger/slices.ts), which includes making the
 * batch, is not overrun by one: 32 rows take about 0.05 ms.
 */
const BATCH_ROWS = 32;
const BATCH_SCAN = 512;

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
  // Each batch is made when it is asked for; the reader may let the event loop run before it asks
  // again, so a reset may come in between: looked for before each batch.
  async function* batches(): AsyncGenerator<LedgerEntry[]> {
    check();
    let batch: LedgerEntry[] = [];
    let scanned = 0;
    for (const t of records.values()) {
      if (userId === undefined || t.user_id === userId) {
        const row = ledgerEntry(t, settled);
        if (row) batch.push(row);
      }
      if (batch.length === BATCH_ROWS || ++scanned % BATCH_SCAN === 0) {
        yield batch;
        check();
        batch = [];
      }
    }
    check();
    if (batch.length) yield batch;
  }
  return { complete, completeFrom, batches: batches() };
}
