import { LedgerCut, type LedgerEntry } from './ledger-entry.js';

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

/** Caller text (ids, currency) is neutralised; amounts, times and our own words are written as they are (never a number changed). */
const TEXT_COLUMNS = new Set<string>(['transaction_id', 'user_id', 'game_no', 'currency']);
const csvLine = (row: LedgerEntry) =>
  `${LEDGER_COLUMNS.map((c) => (TEXT_COLUMNS.has(c) ? neutralisedField(row[c]) : csvField(row[c]))).join(',')}\r\n`;

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

/**
 * The ledger as text, a batch at a time: one JSON array, or CSV with a header line. A read cut
 * short (LedgerCut) never ends well-formed: the JSON array is left unclosed, the CSV ends with
 * LEDGER_CUT_TEXT.
 */
export async function* ledgerText(batches: AsyncIterable<LedgerEntry[]>, format: 'json' | 'csv'): AsyncGenerator<string> {
  if (format === 'csv') {
    yield `${LEDGER_COLUMNS.join(',')}\r\n`;
    try {
      for await (const batch of batches) yield batch.map(csvLine).join('');
    } catch (e) {
      if (!(e instanceof LedgerCut)) throw e;
      yield `${LEDGER_CUT_TEXT}\r\n`;
    }
    return;
  }
  let first = true;
  yield '[';
  try {
    for await (const batch of batches) {
      yield (first ? '' : ',') + batch.map(jsonRow).join(',');
      first = false;
    }
  } catch (e) {
    if (!(e instanceof LedgerCut)) throw e;
    return; // no closing bracket: not valid JSON, so no reader takes it for the whole ledger
  }
  yield ']';
}
