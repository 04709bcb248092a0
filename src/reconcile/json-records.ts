import { type Cell, FileProblem, type Located } from './csv.js';

/**
 * A JSON array of flat objects, read with the place of every value and numbers kept as the text
 * written (`10.10` stays exact: JSON.parse would make it a binary float). A nested object or array
 * is passed over and marked (`nested`): a field reconcile reads must be a string, a number, a boolean or null.
 */
export function parseJsonRecords(text: string): Located[] {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let lineStart = 0;
  const here = () => ({ line, column: i - lineStart + 1 });
  const fail = (reason: string): never => {
    const { line: l, column: c } = here();
    throw new FileProblem(l, c, reason);
  };
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) {
      if (text[i] === '\n') {
        line++;
        lineStart = i + 1;
      }
      i++;
    }
  };
  const expect = (c: string, what: string) => {
    ws();
    if (text[i] !== c)
      fail(i >= text.length ? `the file ends where ${what} belongs` : `expected ${what}, found ${JSON.stringify(text[i])}`);
    i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\n') fail('a line break inside a string: write it as \\n');
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) {
      i = start;
      fail('a string is never closed: add the closing "');
    }
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      i = start;
      return fail('a string with an invalid escape sequence');
    }
  };
  /**
   * A nested object or array, passed over (its brackets matched, its strings read as strings): a
   * field reconcile does not read may hold one; one it reads is refused by name (provider-file.ts).
   */
  const nested = (): { value: string; nested: true } => {
    const open: string[] = [];
    do {
      ws();
      const c = text[i];
      if (c === undefined) fail(`the file ends inside a nested ${open[0] === '}' ? 'object' : 'array'}: close it`);
      else if (c === '"') string();
      else if (c === '{' || c === '[') {
        open.push(c === '{' ? '}' : ']');
        i++;
      } else if (c === '}' || c === ']') {
        const closing = open.pop();
        if (closing !== c) fail(`expected ${JSON.stringify(closing)}, found ${JSON.stringify(c)}`);
        i++;
      } else i++;
    } while (open.length);
    return { value: '', nested: true };
  };
  /** A field's value: its text, and whether it was a JSON number. */
  const scalar = (): { value: string; number?: boolean; nested?: boolean } => {
    ws();
    const c = text[i];
    if (c === '"') return { value: string() };
    if (c === '{' || c === '[') return nested();
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail(i >= text.length ? 'the file ends where a value belongs' : `not a JSON value: ${JSON.stringify(text.slice(i, i + 12))}`);
    i += m![0].length;
    const token = m![0];
    return token === 'null' ? { value: '' } : /^[-\d]/.test(token) ? { value: token, number: true } : { value: token };
  };
  const records: Located[] = [];
  expect('[', 'an array of records ("[")');
  ws();
  if (text[i] === ']') i++;
  else
    for (;;) {
      ws();
      const at = here();
      expect('{', 'a record ("{")');
      const cells = new Map<string, Cell>();
      ws();
      if (text[i] === '}') i++;
      else
        for (;;) {
          ws();
          if (text[i] !== '"') fail('expected a field name in double quotes');
          const name = string();
          expect(':', '":" after a field name');
          ws();
          const place = here();
          const value = scalar();
          if (cells.has(name)) fail(`the field ${JSON.stringify(name)} appears twice in this record`);
          cells.set(name, { ...value, ...place });
          ws();
          if (text[i] === ',') {
            i++;
            continue;
          }
          expect('}', '"," or "}"');
          break;
        }
      records.push({ cells, ...at });
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      expect(']', '"," or "]"');
      break;
    }
  ws();
  if (i < text.length) fail('text after the closing "]"');
  return records;
}
