/** A field of a CSV or JSON record with where it starts in the file (1-based), for messages. */
export interface Cell {
  value: string;
  line: number;
  column: number;
  /** Written in double quotes (CSV): the only cells a leading ' may be an escape in (src/ledger/format.ts). */
  quoted?: boolean;
  /** A JSON number (its text as written), not a string: the only cells an amount may have an exponent in. */
  number?: boolean;
  /** A JSON object or array (passed over, its value empty): refused only in a field reconcile reads. */
  nested?: boolean;
}

/** A record: its fields by column name, and where it starts. */
export interface Located {
  cells: Pick<Map<string, Cell>, 'get'>;
  line: number;
  column: number;
}

/** Something wrong at a place in a file: `file: line L, column C: reason`. */
export class FileProblem extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
  }
}

/** The longest field read (characters): far above any id or amount, far below what would exhaust memory. */
export const MAX_FIELD = 65_536;

const enum S {
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted field: the next character says whether it is doubled or closes the field. */
  QuoteInQuoted,
}

const SPECIAL = /[",\r\n]/g;

/**
 * CSV as RFC 4180 has it (quoted fields may hold commas, quotes doubled, line breaks), fed a chunk
 * at a time: memory holds one record, never the file. Every field keeps its line and column (in
 * characters); a field longer than `maxField` is refused naming its line. Blank lines are skipped.
 */
export class CsvParser {
  private line = 1;
  /** Offsets count characters from the start of the text, across chunks. */
  private lineStart = 0;
  private base = 0;
  private state = S.FieldStart;
  private value = '';
  private start = { line: 1, column: 1, at: 0 };
  private quoted = false;
  private record: Cell[] = [];
  /** A record ended with \r: a \n right after it belongs to the same line end. */
  private afterCr = false;
  private first = true;

  constructor(private readonly maxField = MAX_FIELD) {}

  /** The records completed by this chunk. */
  feed(chunk: string): Cell[][] {
    const out: Cell[][] = [];
    let i = 0;
    if (this.first && chunk.length) {
      this.first = false;
      if (chunk.charCodeAt(0) === 0xfeff) {
        i = 1; // a byte order mark (spreadsheet exports)
        this.lineStart = 1;
      }
    }
    const n = chunk.length;
    while (i < n) {
      if (this.afterCr) {
        this.afterCr = false;
        if (chunk.charCodeAt(i) === 10) {
          i++;
          this.lineStart = this.base + i;
          continue;
        }
      }
      switch (this.state) {
        case S.FieldStart: {
          const at = this.base + i;
          this.start = { line: this.line, column: at - this.lineStart + 1, at };
          this.value = '';
          this.quoted = chunk.charCodeAt(i) === 34;
          if (this.quoted) i++;
          this.state = this.quoted ? S.Quoted : S.Unquoted;
          break;
        }
        case S.Unquoted: {
          SPECIAL.lastIndex = i;
          const m = SPECIAL.exec(chunk);
          const end = m ? m.index : n;
          this.grow(chunk, i, end);
          i = end;
          if (!m) break;
          const c = chunk[end]!;
          if (c === '"') {
            throw new FileProblem(
              this.line,
              this.base + end - this.lineStart + 1,
              'a quote inside an unquoted field: quote the field and double the quote',
            );
          }
          i = this.endField(c, end, out);
          break;
        }
        case S.Quoted: {
          const q = chunk.indexOf('"', i);
          const end = q < 0 ? n : q;
          for (let k = chunk.indexOf('\n', i); k >= 0 && k < end; k = chunk.indexOf('\n', k + 1)) {
            this.line++;
            this.lineStart = this.base + k + 1;
          }
          this.grow(chunk, i, end);
          i = end;
          if (q >= 0) {
            i++;
            this.state = S.QuoteInQuoted;
          }
          break;
        }
        case S.QuoteInQuoted: {
          const c = chunk[i]!;
          if (c === '"') {
            this.grow('"', 0, 1);
            i++;
            this.state = S.Quoted;
            break;
          }
          if (c !== ',' && c !== '\n' && c !== '\r')
            throw new FileProblem(
              this.line,
              this.base + i - this.lineStart + 1,
              'text after a closing quote: quote the whole field and double the quotes inside it',
            );
          i = this.endField(c, i, out);
          break;
        }
      }
    }
    this.base += n;
    return out;
  }

  /** The last record, when the text does not end with a line break. */
  end(): Cell[][] {
    if (this.state === S.Quoted)
      throw new FileProblem(this.start.line, this.start.column, 'a quoted field is never closed: add the closing "');
    if (this.state === S.FieldStart && this.record.length === 0) return [];
    const out: Cell[][] = [];
    this.pushField();
    this.endRecord(out);
    return out;
  }

  private grow(chunk: string, from: number, to: number) {
    if (to <= from) return;
    if (this.value.length + (to - from) > this.maxField)
      throw new FileProblem(
        this.start.line,
        this.start.column,
        `a field longer than ${this.maxField} characters begins here (line ${this.start.line}): ` +
          'is a closing quote missing, or is this not the provider file?',
      );
    this.value += chunk.slice(from, to);
  }

  private pushField() {
    this.record.push({ value: this.value, line: this.start.line, column: this.start.column, quoted: this.quoted });
    this.value = '';
  }

  private endRecord(out: Cell[][]) {
    const r = this.record;
    if (!(r.length === 1 && r[0]!.value === '')) out.push(r);
    this.record = [];
  }

  /** Ends the field at `c` (a comma or a line break at `at`); returns where reading goes on. */
  private endField(c: string, at: number, out: Cell[][]): number {
    this.pushField();
    this.state = S.FieldStart;
    if (c === ',') {
      // A comma at the very end of the text still opens one more (empty) field: end() adds it.
      this.start = { line: this.line, column: this.base + at + 1 - this.lineStart + 1, at: this.base + at + 1 };
      this.quoted = false;
      return at + 1;
    }
    this.endRecord(out);
    this.line++;
    this.lineStart = this.base + at + 1;
    if (c === '\r') this.afterCr = true;
    return at + 1;
  }
}

/** A record's fields by column name: one small object per record, the header's index shared (no Map per row). */
class Fields {
  constructor(
    private readonly fields: Cell[],
    private readonly index: Map<string, number>,
  ) {}

  get(name: string): Cell | undefined {
    const k = this.index.get(name);
    return k === undefined ? undefined : this.fields[k];
  }
}

/**
 * Said when a header line holds ';': a spreadsheet in a locale whose decimal mark is a comma saves
 * "CSV" separated by semicolons, which reads as one column.
 */
export const semicolonHint = (names: string[]): string =>
  names.some((n) => n.includes(';'))
    ? "; the header line holds ';': the delimiter must be a comma (export again as comma-separated CSV)"
    : '';

/** The header and the records after it, each with its fields by column name; field counts checked. */
export class CsvRecords {
  private header?: Cell[];
  private names: string[] = [];
  private index = new Map<string, number>();

  /** The records of these rows (the first row is the header). */
  take(rows: Cell[][]): Located[] {
    const out: Located[] = [];
    for (const fields of rows) {
      if (!this.header) {
        this.header = fields;
        this.names = fields.map((h) => h.value.trim());
        this.index = new Map();
        for (const [k, n] of this.names.entries()) {
          const first = this.index.get(n);
          // A repeated name would leave one of its values unread, silently (JSON refuses a repeated field alike);
          // nameless columns (a spreadsheet's trailing commas) are read by no one.
          if (first !== undefined && n !== '')
            throw new FileProblem(
              fields[k]!.line,
              fields[k]!.column,
              `the column ${JSON.stringify(n)} appears twice in the header line (columns ${first + 1} and ${k + 1}): keep one of them`,
            );
          this.index.set(n, k);
        }
        continue;
      }
      const first = fields[0]!;
      if (fields.length !== this.header.length) {
        const last = fields[fields.length - 1]!;
        throw new FileProblem(
          last.line,
          last.column + last.value.length,
          `has ${fields.length} fields, the header line has ${this.header.length}: every line needs one per column${semicolonHint(this.names)}`,
        );
      }
      out.push({ line: first.line, column: first.column, cells: new Fields(fields, this.index) });
    }
    return out;
  }

  /** The header's names (trimmed); throws when the file had no line at all. */
  columns(): string[] {
    this.headerCells();
    return this.names;
  }

  headerCells(): Cell[] {
    if (!this.header) throw new FileProblem(1, 1, 'the file is empty: the first line must name the columns');
    return this.header;
  }

  get hasHeader(): boolean {
    return this.header !== undefined;
  }
}

/** A whole CSV text at once (the ledger as reconcile downloads it; tests). */
export function parseCsv(text: string, maxField = MAX_FIELD): { header: Cell[]; rows: Located[] } {
  const parser = new CsvParser(maxField);
  const records = new CsvRecords();
  const rows = [...records.take(parser.feed(text)), ...records.take(parser.end())];
  return { header: records.headerCells(), rows };
}
