import { createReadStream, type ReadStream, readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { extname } from 'node:path';
import { unneutralised } from '../ledger/format.js';
import { registeredEvents } from '../protocol/seed/index.js';
import { type Cell, CsvParser, CsvRecords, FileProblem, type Located, parseCsv, semicolonHint } from './csv.js';
import { EncodingProblem, StrictUtf8 } from './decode.js';
import { parseJsonRecords } from './json-records.js';
import { unreadable } from '../kernel/documents.js';

/** One transaction as the provider's own books have it. */
export interface ProviderRecord {
  transaction_id: string;
  /** An event of a round (src/protocol/seed/): bet, bet_result. */
  event_type: string;
  user_id: string;
  game_no: string;
  /** The decimal text as written (checked: digits, an optional fraction; a JSON number's exponent applied); parsed where compared. */
  amount: string;
  /** Optional column: compared with the ledger's where given. */
  currency?: string;
  status: 'ok' | 'failed' | 'pending';
  round_status?: 'open' | 'settled';
  /** When the provider sent it (optional column `timestamp`: Unix seconds or ISO 8601), in ms. */
  timestamp?: number;
  line: number;
}

export const REQUIRED = ['transaction_id', 'event_type', 'user_id', 'game_no', 'amount', 'status'] as const;
const DECIMAL = /^\d{1,30}(\.\d{1,30})?$/;
/** The events a provider's books list: those that move money, the events of a round. */
const roundEvents = () => registeredEvents().flatMap((e) => (e.round ? [e.type as string] : []));
/** Asked once per file, not once per record (events may be registered after this module loads). */
let ROUND_EVENTS_NOW: string[] | undefined;

/** A provider file that cannot be read: `file: line L, column C: reason`. */
export class ProviderFileError extends Error {
  override name = 'ProviderFileError';
}

/** A JSON provider file is read whole (its parser is not streamed): up to this size; CSV is streamed, any size. */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

const fileError = (path: string, e: unknown): never => {
  if (e instanceof ProviderFileError) throw e;
  if (e instanceof FileProblem || e instanceof EncodingProblem) throw new ProviderFileError(`${path}: ${e.message}`);
  throw e;
};

/**
 * Reads a provider file, CSV (`.csv`) or a JSON array of records (`.json`) by its extension, and
 * hands each record to `each` as it is read: a CSV file is streamed (memory holds one record), and
 * decoded strictly as UTF-8 (src/reconcile/decode.ts). `each` may throw FileProblem (a repeat).
 */
export async function readProviderFile(path: string, each: (r: ProviderRecord) => void): Promise<void> {
  const ext = extname(path).toLowerCase();
  if (ext !== '.csv' && ext !== '.json')
    throw new ProviderFileError(`${path}: the format follows the extension: name the file .csv or .json (docs/reconcile.md)`);
  const cannot = (e: unknown) => new ProviderFileError(`${path}: ${unreadable(e as NodeJS.ErrnoException)}`);
  const decoder = new StrictUtf8(path);
  ROUND_EVENTS_NOW = roundEvents();
  try {
    if (ext === '.json') {
      let bytes: Buffer;
      try {
        if (statSync(path).size > MAX_JSON_BYTES)
          throw new ProviderFileError(
            `${path}: a JSON provider file is read whole, up to ${MAX_JSON_BYTES / 1024 / 1024} MiB: ` +
              'export a larger one as CSV (read as a stream, any size)',
          );
        bytes = readFileSync(path);
      } catch (e) {
        if (e instanceof ProviderFileError) throw e;
        throw cannot(e);
      }
      const text = decoder.decode(bytes) + decoder.end();
      for (const r of parseJsonRecords(text)) each(toRecord(r));
      return;
    }
    const parser = new CsvParser();
    const records = new CsvRecords();
    const take = (rows: Cell[][]) => {
      const first = !records.hasHeader;
      const located = records.take(rows);
      if (first && records.hasHeader) checkHeader(records.columns());
      for (const r of located) each(toRecord(r));
    };
    let stream: ReadStream;
    try {
      stream = createReadStream(path, { highWaterMark: 1 << 20 });
      await once(stream, 'open');
    } catch (e) {
      throw cannot(e);
    }
    // A directory opens like a file and fails at its first read (EISDIR): the read's own error is
    // the file's, said as any other unreadable file is.
    const chunks = stream[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<unknown>;
      try {
        next = await chunks.next();
      } catch (e) {
        throw cannot(e);
      }
      if (next.done) break;
      take(parser.feed(decoder.decode(next.value as Buffer)));
    }
    take(parser.feed(decoder.end()));
    take(parser.end());
    checkHeader(records.columns());
  } catch (e) {
    fileError(path, e);
  }
}

function checkHeader(names: string[]) {
  const missing = REQUIRED.filter((c) => !names.includes(c));
  if (missing.length)
    throw new FileProblem(
      1,
      1,
      `the header line lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (needed: ${REQUIRED.join(', ')})${semicolonHint(names)}`,
    );
}

/** The records of a provider file's text, every one (tests, the soak bench); throws FileProblem at the first bad spot. */
export function parseProviderRecords(text: string, format: 'csv' | 'json'): ProviderRecord[] {
  ROUND_EVENTS_NOW = roundEvents();
  let located: Located[];
  if (format === 'csv') {
    const { header, rows } = parseCsv(text);
    checkHeader(header.map((h) => h.value.trim()));
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

/** The fields reconcile reads: the others may hold anything (a nested object included). */
const READ = [...REQUIRED, 'currency', 'round_status', 'timestamp'];

function toRecord(r: Located): ProviderRecord {
  for (const name of READ) {
    const cell = r.cells.get(name);
    if (cell?.nested) throw new FileProblem(cell.line, cell.column, `${name} is a nested object or array: it must be a string or a number`);
  }
  const field = (name: string): Cell => {
    const cell = r.cells.get(name);
    if (!cell) throw new FileProblem(r.line, r.column, `this record has no ${name} (needed: ${REQUIRED.join(', ')})`);
    return cell;
  };
  const text = (name: string): string => {
    const cell = field(name);
    if (cell.value === '') throw new FileProblem(cell.line, cell.column, `${name} is empty`);
    // A cell escaped against spreadsheet formulas (the ledger's CSV does it: docs/reconcile.md) is read as the text itself.
    return unneutralised(cell.value, cell.quoted === true);
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], cell = field(name)): T => {
    if (!(allowed as readonly string[]).includes(cell.value))
      throw new FileProblem(cell.line, cell.column, `${name} must be ${allowed.join(', ')}, not ${JSON.stringify(cell.value)}`);
    return cell.value as T;
  };
  const amountCell = field('amount');
  const amount = amountCell.number ? plainDecimal(amountCell.value) : amountCell.value;
  if (amount === undefined || !DECIMAL.test(amount))
    throw new FileProblem(
      amountCell.line,
      amountCell.column,
      `amount ${JSON.stringify(amountCell.value)} is not a decimal number >= 0 (${amountCell.number ? 'at most 30 digits before and after the point, its exponent applied' : 'digits, an optional fraction such as 12.50, no exponent: a CSV cell or a JSON string is plain digits'}; the stake of a bet, the credit of a settlement)`,
    );
  const round = r.cells.get('round_status');
  const currency = r.cells.get('currency');
  const time = r.cells.get('timestamp');
  return {
    transaction_id: text('transaction_id'),
    event_type: oneOf('event_type', (ROUND_EVENTS_NOW ??= roundEvents())),
    user_id: text('user_id'),
    game_no: text('game_no'),
    amount,
    status: oneOf('status', ['ok', 'failed', 'pending'] as const),
    ...(currency && currency.value !== '' && { currency: unneutralised(currency.value, currency.quoted === true) }),
    ...(round && round.value !== '' && { round_status: oneOf('round_status', ['open', 'settled'] as const, round) }),
    ...(time && time.value !== '' && { timestamp: timeOf(time) }),
    line: r.line,
  };
}

/**
 * A JSON number's text as plain decimal digits, exactly (`1E+3` → `1000`, `12.5e-1` → `1.25`: Java's
 * BigDecimal.toString() writes exponents, and JSON allows them); unchanged without an exponent; a
 * negative stays one (refused after). Undefined beyond 30 digits either side of the point (what
 * DECIMAL allows), found before any digit is written, however large the exponent.
 */
function plainDecimal(text: string): string | undefined {
  const m = /^(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/.exec(text);
  if (!m) return text;
  let digits = `${m[1]}${m[2] ?? ''}`.replace(/0+$/, '');
  let point = m[1]!.length + Number(m[3]);
  const lead = /^0*/.exec(digits)![0].length;
  digits = digits.slice(lead);
  point -= lead;
  if (!digits) return '0';
  if (point > 30 || digits.length - point > 30) return undefined;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  return point >= digits.length ? `${digits}${'0'.repeat(point - digits.length)}` : `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Unix seconds of 5000-01-01: a larger number of seconds is taken for milliseconds. */
const MAX_SECONDS = 95_617_584_000;

function timeOf(cell: Cell): number {
  const ms = /^\d+(\.\d+)?$/.test(cell.value) ? Number(cell.value) * 1000 : Date.parse(cell.value);
  if (!Number.isFinite(ms))
    throw new FileProblem(cell.line, cell.column, `timestamp ${JSON.stringify(cell.value)} is neither Unix seconds nor an ISO 8601 time`);
  // Past the year 5000 as seconds: milliseconds (a JavaScript export), which would date the record
  // in the far future and judge it against the wrong ledger horizon.
  if (ms > MAX_SECONDS * 1000 && /^\d+(\.\d+)?$/.test(cell.value))
    throw new FileProblem(
      cell.line,
      cell.column,
      `timestamp ${cell.value} is after the year 5000 as Unix seconds: milliseconds? write seconds (divide by 1000) or an ISO 8601 time`,
    );
  return ms;
}
