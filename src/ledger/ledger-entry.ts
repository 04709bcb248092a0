import { roundEffectOf } from './round-effects.js';
import { roundKey, type TransactionRecord } from './change.js';

/** One row of the ledger, its amounts as decimal text (never a binary float). */
export interface LedgerEntry {
  transaction_id: string;
  /** An event of a round (src/protocol/seed/): bet, bet_result. */
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
 * first, in batches (a large ledger is streamed, never built whole). A store makes a batch when it
 * is asked for the next one; whoever reads them lets the event loop turn in between
 * (src/ledger/format.ts does, a slice of time at a time). `completeFrom` is set when the
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

const DAY_MS = 86_400_000;
/** 10000-01-01: from then on toISOString writes a six-digit year. */
const YEAR_10000 = 253_402_300_800_000;
let day = Number.NaN;
let dayText = '';
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()` at a sixth of its cost (one per ledger row): the date is made once
 * per day the rows cross, the time of day by arithmetic. The same text for any whole ms from 1970
 * to 9999 (test/ledger-stream-text.test.ts); anything else goes to Date itself.
 */
export function ledgerTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= YEAR_10000) return new Date(ms).toISOString();
  const d = Math.floor(ms / DAY_MS);
  if (d !== day) {
    day = d;
    dayText = new Date(d * DAY_MS).toISOString().slice(0, 11);
  }
  let rest = ms - d * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  rest -= s * 1000;
  return `${dayText}${two(h)}:${two(m)}:${two(s)}.${rest < 10 ? '00' : rest < 100 ? '0' : ''}${rest}Z`;
}

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
    applied_at: ledgerTime(t.applied_at ?? 0),
    round_status: effect === 'settles' || settled(roundKey(t.user_id, t.game_no)) ? 'settled' : 'open',
  };
}
