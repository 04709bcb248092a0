import { roundEffectOf } from '../events/index.js';
import { roundKey, type TransactionRecord } from '../backends/change.js';

/** One row of the ledger, its amounts as decimal text (never a binary float). */
export interface LedgerEntry {
  transaction_id: string;
  /** An event of a round (src/events/): bet, bet_result. */
  event_type: string;
  user_id: string;
  game_no: string;
  currency: string;
  amount: string;
  balance_after: string;
  applied_at: string;
  round_status: 'open' | 'settled';
}

/**
 * The wallet's books (GET /admin/ledger): the applied bets and settlements it still holds, oldest
 * first, in batches (a large ledger is streamed, never built whole). `completeFrom` is set when the
 * wallet has forgotten older transactions (--retain-transactions): the rows are complete from that
 * time on, and anything the provider counts before it may be missing here.
 */
export interface Ledger {
  complete: boolean;
  completeFrom?: string;
  batches: AsyncIterable<LedgerEntry[]>;
}

export const LEDGER_BATCH = 500;

/**
 * Thrown by a ledger's batches when the wallet was reset while they were read: the rows of the
 * session the read began are gone, so the read ends visibly incomplete (src/ledger/format.ts).
 */
export class LedgerCut extends Error {
  override name = 'LedgerCut';
  constructor() {
    super('the wallet was reset while its ledger was read');
  }
}

/** Lets callbacks in between two batches: a read of a large ledger never holds the event loop for more than one batch. */
export const letOthersRun = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A retained transaction as a ledger row (undefined for an event of no round, a login, or an older record without its amounts). */
export function ledgerEntry(t: TransactionRecord, settled: (key: string) => boolean): LedgerEntry | undefined {
  const effect = roundEffectOf(t.event_type);
  if (!effect || t.amount === undefined || t.game_no === undefined) return undefined;
  return {
    transaction_id: t.transaction_id,
    event_type: t.event_type,
    user_id: t.user_id,
    game_no: t.game_no,
    currency: t.currency ?? '',
    amount: t.amount,
    balance_after: t.balance_after ?? '',
    applied_at: new Date(t.applied_at ?? 0).toISOString(),
    round_status: effect === 'settles' || settled(roundKey(t.user_id, t.game_no)) ? 'settled' : 'open',
  };
}
