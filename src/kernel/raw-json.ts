/**
 * Every number in a JSON document as written, with its JSON pointer. JSON.parse turns
 * `0.30000000000000004` and `0.3` into different doubles but `1.10` and `1.1` into the same one,
 * and it loses digits beyond a double's (`10.000000000000000001` reads as 10); reading the text is
 * the only way to judge an amount exactly. The input must already be valid JSON (JSON.parse
 * succeeded): this scanner does not validate.
 */
export function numberTexts(json: string): [pointer: string, text: string][] {
  const out: [string, string][] = [];
  walk(json, { number: (path, text) => out.push([pointerOf(path), text]) });
  return out;
}

/** What a walk of a JSON text tells: each key as it is named in its object, each number as written. */
interface Visit {
  /** A key of an open object (`path` ends with it); `named`: the keys that object named before it. */
  key?(path: readonly (string | number)[], key: string, named: Set<string>): void;
  number?(path: readonly (string | number)[], text: string): void;
}

/**
 * Walks a JSON text (valid: JSON.parse succeeded; this does not validate), keeping the path to the
 * value being read: an object's current key, an array's current index.
 */
function walk(json: string, visit: Visit): void {
  const path: (string | number)[] = [];
  // Per open container: the keys an object has named so far (undefined for an array).
  const objects: (Set<string> | undefined)[] = [];
  let i = 0;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(json, i);
      let j = end;
      while (isSpace(json.charCodeAt(j))) j++;
      const named = objects[objects.length - 1];
      // A key: the value after the colon is at it.
      if (json.charCodeAt(j) === COLON && named) {
        const key = JSON.parse(json.slice(i, end)) as string;
        path[path.length - 1] = key;
        visit.key?.(path, key, named);
        i = j + 1;
      } else i = end;
    } else if (c === 0x7b || c === 0x5b) {
      objects.push(c === 0x7b ? new Set() : undefined);
      path.push(c === 0x5b ? 0 : '');
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      objects.pop();
      path.pop();
      i++;
    } else if (c === 0x2c) {
      if (objects.length > 0 && !objects[objects.length - 1]) (path[path.length - 1] as number)++;
      i++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = i;
      const text = NUMBER.exec(json)![0];
      visit.number?.(path, text);
      i += text.length;
    } else i++;
  }
}

/** The text of each top-level number in a JSON object, as written (the object's own keys only). */
export function topLevelNumberTexts(json: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [pointer, text] of numberTexts(json)) {
    const key = pointer.slice(1);
    if (pointer.startsWith('/') && !key.includes('/')) out.set(key.replaceAll('~1', '/').replaceAll('~0', '~'), text);
  }
  return out;
}

const QUOTE = 0x22;
const COLON = 0x3a;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Where the string starting at `start` (its opening quote) ends: just past its closing quote. */
function stringEnd(json: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = json.indexOf('"', i);
    if (q < 0) return json.length;
    let backslashes = 0;
    while (json.charCodeAt(q - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

/** A JSON pointer (RFC 6901): `~` and `/` in a key escaped. */
function pointerOf(path: readonly (string | number)[]): string {
  let out = '';
  for (const part of path) out += '/' + (typeof part === 'number' ? part : part.replaceAll('~', '~0').replaceAll('/', '~1'));
  return out;
}

/**
 * The keys a JSON document names twice in one object, as JSON pointers (RFC 8259 leaves which one
 * counts to the parser: JSON.parse keeps the last, others the first or refuse). The input must
 * already be valid JSON.
 */
export function duplicateKeys(json: string): string[] {
  const out: string[] = [];
  walk(json, {
    key: (path, key, named) => {
      if (named.has(key)) out.push(pointerOf(path));
      else named.add(key);
    },
  });
  return out;
}

/**
 * Whether a document may name a key twice in one object: its text has more colons than its parsed
 * value has keys and colons in its strings (`keysAndColons`: one colon per key as written, and each
 * colon inside a string, key or value, is in the text too). False means it names none (a colon
 * written `\u003a` inside a string aside); true is confirmed by duplicateKeys.
 */
export function mayRepeatKeys(json: string, keysAndColons: number): boolean {
  let colons = 0;
  for (let i = json.indexOf(':'); i >= 0; i = json.indexOf(':', i + 1)) colons++;
  return colons > keysAndColons;
}

/**
 * A parsed value's keys and the colons in its strings (mayRepeatKeys), or -1 when it nests deeper
 * than `max` levels. Recursive, but never deeper than `max` + 1 frames: it stops at the first level
 * past the bound, so a hostile body cannot overflow the stack here (nor, refused for it, in any walk
 * after this one).
 */
export function keysAndColons(value: unknown, max: number, depth = 1): number {
  if (typeof value === 'string') return colonsIn(value);
  if (value === null || typeof value !== 'object') return 0;
  if (depth > max) return -1;
  let n = 0;
  if (Array.isArray(value)) {
    // By index: `for…in` would make a string of every index of a wide array.
    for (let i = 0; i < value.length; i++) {
      const m = keysAndColons(value[i], max, depth + 1);
      if (m < 0) return -1;
      n += m;
    }
    return n;
  }
  const node = value as Record<string, unknown>;
  for (const key in node) {
    const m = keysAndColons(node[key], max, depth + 1);
    if (m < 0) return -1;
    n += 1 + colonsIn(key) + m;
  }
  return n;
}

function colonsIn(s: string): number {
  let n = 0;
  for (let i = s.indexOf(':'); i >= 0; i = s.indexOf(':', i + 1)) n++;
  return n;
}
