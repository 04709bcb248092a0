/** A field of a CSV or JSON record with where it starts in the file (1-based), for messages. */
export interface Cell {
  value: string;
  line: number;
  column: number;
}

/** A record: its fields by column name, and where it starts. */
export interface Located {
  cells: Map<string, Cell>;
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

/**
 * CSV as RFC 4180 has it (quoted fields may hold commas, quotes doubled, line breaks), the first
 * line naming the columns. Every field keeps its line and column. Blank lines are skipped.
 */
export function parseCsv(text: string): { header: Cell[]; rows: Located[] } {
  const records: Cell[][] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a byte order mark (spreadsheet exports)
  let line = 1;
  let lineStart = i;
  let record: Cell[] = [];
  while (i <= text.length) {
    const start = { line, column: i - lineStart + 1 };
    let value = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new FileProblem(start.line, start.column, 'a quoted field is never closed: add the closing "');
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === '\n') {
          line++;
          lineStart = i + 1;
        }
        value += c;
        i++;
      }
      const next = text[i];
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r')
        throw new FileProblem(line, i - lineStart + 1, 'text after a closing quote: quote the whole field and double the quotes inside it');
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
        if (text[i] === '"')
          throw new FileProblem(line, i - lineStart + 1, 'a quote inside an unquoted field: quote the field and double the quote');
        value += text[i];
        i++;
      }
    }
    record.push({ value, ...start });
    if (text[i] === ',') {
      i++;
      continue;
    }
    // End of a record: \r\n, \n, \r or the end of the text.
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    if (!(record.length === 1 && record[0]!.value === '')) records.push(record);
    record = [];
    line++;
    lineStart = i;
    if (i >= text.length) break;
  }
  const [header, ...rest] = records;
  if (!header) throw new FileProblem(1, 1, 'the file is empty: the first line must name the columns');
  const rows = rest.map((fields) => {
    const first = fields[0]!;
    if (fields.length !== header.length) {
      const last = fields[fields.length - 1]!;
      throw new FileProblem(
        last.line,
        last.column + last.value.length,
        `has ${fields.length} fields, the header line has ${header.length}: every line needs one per column`,
      );
    }
    return { line: first.line, column: first.column, cells: new Map(header.map((h, k) => [h.value.trim(), fields[k]!])) };
  });
  return { header, rows };
}
