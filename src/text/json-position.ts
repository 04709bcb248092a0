/*
 * Where a JSON text goes wrong, as an editor shows it (line 3, column 14). Node 20's JSON.parse
 * names a character offset for some errors ("at position 49") and none for others ("Unexpected
 * token '}', …"), so the text is scanned again, only after JSON.parse has refused it.
 */

const HEX4 = /^[0-9a-fA-F]{4}$/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The offset of the first character that makes `text` invalid JSON; undefined when it is valid. */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxAt(i);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const expect = (c: string) => (text[i] === c ? i++ : fail());
  const string = () => {
    i++; // the opening quote
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c < ' ') fail();
      if (c === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!HEX4.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    fail();
  };
  const items = (close: string, item: () => void) => {
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      space();
      if (text[i] === close) return void i++;
      expect(',');
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{')
      return items('}', () => {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        expect(':');
        value();
      });
    if (c === '[') return items(']', value);
    if (c === '"') return string();
    const literal = ['true', 'false', 'null'].find((l) => l[0] === c);
    if (literal) {
      // `tru}` goes wrong at the `}`, not at the `t`.
      for (const expected of literal)
        if (text[i] === expected) i++;
        else fail();
      return;
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    fail();
  };
  try {
    value();
    space();
    if (i < text.length) fail();
    return undefined;
  } catch (e) {
    if (e instanceof SyntaxAt) return e.offset;
    return undefined; // nested too deep to scan: the message stays without a place
  }
}

class SyntaxAt {
  constructor(readonly offset: number) {}
}

/** JSON.parse's complaint with the line and column where the text goes wrong. */
export function jsonSyntaxError(text: string, e: Error): string {
  const offset = jsonErrorOffset(text);
  // Node 20 quotes the text around the error ("name: t\ncre"..., …"x"…, line breaks included), or names
  // an offset: the place says both better.
  const what = e.message
    .replace(/,\s*(?:\.\.\.)?".*"(?:\.\.\.)?\s+is not valid JSON$/s, '')
    .replace(/(?:\s+in JSON)?\s+at position \d+.*$/s, '');
  if (offset === undefined) return what;
  const before = text.slice(0, offset);
  return `${what} at line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`;
}

/**
 * What a text that is not JSON looks like instead, when it looks like a comment or YAML (the two
 * formats people write configuration in): "; <kind> are plain JSON: no comments, no YAML". Empty otherwise.
 */
export function plainJsonHint(text: string, kind: string): string {
  const comment = /^\s*(?:\/\/|\/\*|#)/m.test(text);
  const yaml = /^\s*(?:---|[\w"'-][\w"' -]*:(?:\s|$))/.test(text);
  return comment || yaml ? `; ${kind} are plain JSON: no comments, no YAML` : '';
}
