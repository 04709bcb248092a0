import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { registeredEvents } from '../events/index.js';
import { type Money, money } from '../money.js';
import { type Cell, FileProblem, type Located, parseCsv } from './csv.js';
import { parseJsonRecords } from './json-records.js';

/** One transaction as the provider's own books have it. */
export interface ProviderRecord {
  transaction_id: string;
  /** An event of a round (src/events/): bet, bet_result. */
  event_type: string;
  user_id: string;
  game_no: string;
  amount: Money;
  status: 'ok' | 'failed' | 'pending';
  round_status?: 'open' | 'settled';
  /** When the provider sent it (optional column `timestamp`: Unix seconds or ISO 8601), in ms. */
  timestamp?: number;
  line: number;
}

export const REQUIRED = ['transaction_id', 'event_type', 'user_id', 'game_no', 'amount', 'status'] as const;
const DECIMAL = /^\d{1,30}(\.\d{1,30})?$/;
/** The events a provider's books list: those that move money, the events of a round. */
const ROUND_EVENTS = () => registeredEvents().flatMap((e) => (e.round ? [e.type as string] : []));

/** A provider file that cannot be read: `file: line L, column C: reason`. */
export class ProviderFileError extends Error {
  override name = 'ProviderFileError';
}

/** Reads a provider file: CSV (`.csv`) or a JSON array of records (`.json`), by its extension. */
export function readProviderFile(path: string): ProviderRecord[] {
  const ext = extname(path).toLowerCase();
  if (ext !== '.csv' && ext !== '.json')
    throw new ProviderFileError(`${path}: the format follows the extension: name the file .csv or .json (docs/reconcile.md)`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ProviderFileError(`${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return parseProviderRecords(text, ext === '.csv' ? 'csv' : 'json');
  } catch (e) {
    if (e instanceof FileProblem) throw new ProviderFileError(`${path}: ${e.message}`);
    throw e;
  }
}

/** The records of a provider file's text; throws FileProblem at the first bad spot. */
export function parseProviderRecords(text: string, format: 'csv' | 'json'): ProviderRecord[] {
  let located: Located[];
  if (format === 'csv') {
    const { header, rows } = parseCsv(text);
    const names = header.map((h) => h.value.trim());
    const missing = REQUIRED.filter((c) => !names.includes(c));
    if (missing.length)
      throw new FileProblem(
        1,
        1,
        `the header line lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (needed: ${REQUIRED.join(', ')})`,
      );
    located = rows;
  } else located = parseJsonRecords(text);
  const seen = new Map<string, number>();
  return located.map((r) => {
    const record = toRecord(r);
    const first = seen.get(record.transaction_id);
    const id = r.cells.get('transaction_id')!;
    if (first !== undefined)
      throw new FileProblem(
        id.line,
        id.column,
        `transaction_id ${JSON.stringify(record.transaction_id)} repeats (first on line ${first}): one record per transaction, with its final status`,
      );
    seen.set(record.transaction_id, r.line);
    return record;
  });
}

function toRecord(r: Located): ProviderRecord {
  const field = (name: string): Cell => {
    const cell = r.cells.get(name);
    if (!cell) throw new FileProblem(r.line, r.column, `this record has no ${name} (needed: ${REQUIRED.join(', ')})`);
    return cell;
  };
  const text = (name: string): string => {
    const cell = field(name);
    if (cell.value === '') throw new FileProblem(cell.line, cell.column, `${name} is empty`);
    return cell.value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], cell = field(name)): T => {
    if (!(allowed as readonly string[]).includes(cell.value))
      throw new FileProblem(cell.line, cell.column, `${name} must be ${allowed.join(', ')}, not ${JSON.stringify(cell.value)}`);
    return cell.value as T;
  };
  const amountCell = field('amount');
  if (!DECIMAL.test(amountCell.value))
    throw new FileProblem(
      amountCell.line,
      amountCell.column,
      `amount ${JSON.stringify(amountCell.value)} is not a decimal number >= 0 (digits, an optional fraction such as 12.50; the stake of a bet, the credit of a settlement)`,
    );
  const round = r.cells.get('round_status');
  const time = r.cells.get('timestamp');
  return {
    transaction_id: text('transaction_id'),
    event_type: oneOf('event_type', ROUND_EVENTS()),
    user_id: text('user_id'),
    game_no: text('game_no'),
    amount: money(amountCell.value),
    status: oneOf('status', ['ok', 'failed', 'pending'] as const),
    ...(round && round.value !== '' && { round_status: oneOf('round_status', ['open', 'settled'] as const, round) }),
    ...(time && time.value !== '' && { timestamp: timeOf(time) }),
    line: r.line,
  };
}

function timeOf(cell: Cell): number {
  const ms = /^\d+(\.\d+)?$/.test(cell.value) ? Number(cell.value) * 1000 : Date.parse(cell.value);
  if (!Number.isFinite(ms))
    throw new FileProblem(cell.line, cell.column, `timestamp ${JSON.stringify(cell.value)} is neither Unix seconds nor an ISO 8601 time`);
  return ms;
}
