import type { LedgerEntry } from './ledger-entry.js';

export const LEDGER_COLUMNS = [
  'transaction_id',
  'event_type',
  'user_id',
  'game_no',
  'currency',
  'amount',
  'balance_after',
  'applied_at',
  'round_status',
] as const;

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export const csvField = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

const csvLine = (row: LedgerEntry) => `${LEDGER_COLUMNS.map((c) => csvField(row[c])).join(',')}\r\n`;

/** A JSON object with the amounts written as the decimal text itself: exact, never a float's artefacts. */
const jsonRow = (r: LedgerEntry) =>
  `{"transaction_id":${JSON.stringify(r.transaction_id)},"event_type":"${r.event_type}","user_id":${JSON.stringify(r.user_id)},` +
  `"game_no":${JSON.stringify(r.game_no)},"currency":${JSON.stringify(r.currency)},"amount":${r.amount},` +
  `"balance_after":${r.balance_after},"applied_at":"${r.applied_at}","round_status":"${r.round_status}"}`;

/** The ledger as text, a batch at a time: one JSON array, or CSV with a header line. */
export async function* ledgerText(batches: AsyncIterable<LedgerEntry[]>, format: 'json' | 'csv'): AsyncGenerator<string> {
  if (format === 'csv') {
    yield `${LEDGER_COLUMNS.join(',')}\r\n`;
    for await (const batch of batches) yield batch.map(csvLine).join('');
    return;
  }
  let first = true;
  yield '[';
  for await (const batch of batches) {
    yield (first ? '' : ',') + batch.map(jsonRow).join(',');
    first = false;
  }
  yield ']';
}
