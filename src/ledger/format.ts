import { LedgerCut, type LedgerEntry } from './ledger-entry.js';
import { firstSlice, nextSlice } from './slices.js';

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

/**
 * A text cell a spreadsheet must not run as a formula (OWASP, CSV injection): one beginning with
 * = + - @ tab or CR gets a leading ' and is quoted. A cell beginning with ' gets one too, so the
 * rule undoes exactly (`unneutralised`): in a quoted cell, a leading ' is always ours.
 */
export const FORMULA_START = /^[=+\-@\t\r']/;
export const neutralisedField = (s: string): string => (FORMULA_START.test(s) ? `"'${s.replace(/"/g, '""')}"` : csvField(s));

/** A quoted cell as `neutralisedField` wrote it, back to the text itself. */
export const unneutralised = (value: string, quoted: boolean): string =>
  quoted && value.startsWith("'") && FORMULA_START.test(value.slice(1)) ? value.slice(1) : value;

/**
 * Caller text (ids, currency) is neutralised; amounts, times and our own words are written as they
 * are (never a number changed). One template per row, in LEDGER_COLUMNS' order (a read of a large
 * ledger makes hundreds of thousands: no array, no lookups per cell).
 */
const csvLine = (r: LedgerEntry) =>
  `${neutralisedField(r.transaction_id)},${csvField(r.event_type)},${neutralisedField(r.user_id)},${neutralisedField(r.game_no)},` +
  `${neutralisedField(r.currency)},${csvField(r.amount)},${csvField(r.balance_after)},${csvField(r.applied_at)},${csvField(r.round_status)}\r\n`;

/** A JSON object with the amounts written as the decimal text itself: exact, never a float's artefacts. */
const jsonRow = (r: LedgerEntry) =>
  `{"transaction_id":${JSON.stringify(r.transaction_id)},"event_type":"${r.event_type}","user_id":${JSON.stringify(r.user_id)},` +
  `"game_no":${JSON.stringify(r.game_no)},"currency":${JSON.stringify(r.currency)},"amount":${r.amount},` +
  `"balance_after":${r.balance_after},"applied_at":"${r.applied_at}","round_status":"${r.round_status}"}`;

/**
 * The last line of a CSV ledger whose read a reset cut short (docs/routes.md): one field, no comma,
 * so a CSV reader that checks field counts refuses the file, and a person sees why.
 */
export const LEDGER_CUT_TEXT =
  '#INCOMPLETE: the wallet was reset (POST /admin/reset) while this ledger was read; the rows after this point are missing: read it again';
export const LEDGER_CUT_LINE = /(^|\n)#INCOMPLETE[^\n]*\n?$/;

/** Rows made between two looks at the clock. */
const ROWS_PER_LOOK = 8;

/**
 * The ledger as text: one JSON array, or CSV with a header line. The rows and their text are made
 * a slice of time at a time (src/ledger/slices.ts): the text so far is handed on, and the read
 * goes on at the next turn of the event loop, so callbacks keep being answered while large
 * ledgers stream. A read cut short (LedgerCut) never ends well-formed: the JSON array is left
 * unclosed, the CSV ends with LEDGER_CUT_TEXT, and `onCut` is told (the route then fails the
 * response itself: see `cutAtTheTransport` in src/routes/ledger.ts).
 */
export async function* ledgerText(
  batches: AsyncIterable<LedgerEntry[]>,
  format: 'json' | 'csv',
  onCut?: () => void,
): AsyncGenerator<string> {
  const csv = format === 'csv';
  let text = csv ? `${LEDGER_COLUMNS.join(',')}\r\n` : '[';
  let rows = 0;
  let ends = firstSlice();
  try {
    for await (const batch of batches) {
      for (const row of batch) {
        text += csv ? csvLine(row) : rows === 0 ? jsonRow(row) : `,${jsonRow(row)}`;
        if (++rows % ROWS_PER_LOOK === 0 && performance.now() >= ends) {
          yield text;
          text = '';
          ends = await nextSlice();
        }
      }
      // A store's batch may be made within the slice too (memory, file): its time counts.
      if (performance.now() >= ends) {
        if (text) yield text;
        text = '';
        ends = await nextSlice();
      }
    }
  } catch (e) {
    if (!(e instanceof LedgerCut)) throw e;
    onCut?.();
    // JSON: no closing bracket, so no reader takes it for the whole ledger.
    if (csv) text += `${LEDGER_CUT_TEXT}\r\n`;
    if (text) yield text;
    return;
  }
  if (!csv) yield `${text}]`;
  else if (text) yield text;
}
