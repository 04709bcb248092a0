import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/*
 * The idempotency fingerprint: a 64-bit hash of a request's canonical form (docs/design.md
 * "Idempotency"). Computed for every callback and kept with every retained transaction, so it is
 * made by walking the parsed request and feeding the hash directly: no canonical text is built, no
 * call into crypto. It only has to tell a retry from a changed body of one transaction_id, which
 * nobody crafts against it, so a fast non-cryptographic hash does.
 *
 * The words fed are an unambiguous encoding of the value: every value starts with a tag word, a
 * string's length comes before its characters, an object's keys each start with a tag and the
 * object ends with one. No sequence of words is the start of another value's, so two values feed
 * the same words only when they are equal as JSON.
 */

/** SHA-256 of a text, in hex. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A body's canonical JSON text, the top-level `timestamp` left out (a retry may carry a new one):
 * keys in a stable order. What every exact body digest hashes.
 */
export function canonicalBody(body: unknown): string {
  let rest = body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'timestamp' in body) {
    const { timestamp: _ignored, ...others } = body as Record<string, unknown>;
    rest = others;
  }
  return stringify(rest) ?? 'undefined';
}

/** The body's digest, timestamp aside: SHA-256 (hex) of its canonical text. Resends are compared by it. */
export const bodyDigest = (body: unknown): string => sha256Hex(canonicalBody(body));

/** The mark of the current format: not a base64url character, so never the start of an older sha256 fingerprint. */
export const FINGERPRINT_MARK = '~';

// One tag word starts each value (and each key), so values of different types never feed the same words.
const NULL = 1;
const FALSE = 2;
const TRUE = 3;
/** A number that is a 32-bit integer: the integer itself follows. */
const INTEGER = 4;
/** Any other finite number: its 64 bits follow (2.50 and 2.5 parse to one number). */
const DOUBLE = 5;
const STRING = 6;
const ARRAY = 7;
const OBJECT = 8;
const KEY = 9;
const END = 10;

/**
 * The fingerprint of a request: `~` and the 64-bit hash of its canonical form, the top-level
 * `timestamp` left out (a retry may carry a new one). The order of keys does not count; values of
 * the types JSON.parse makes compare as their JSON text would (-0 is 0; undefined members are left
 * out as JSON.stringify leaves them out).
 */
export function fingerprintOf(req: object): string {
  const hash = new Hash();
  hash.object(req, 'timestamp');
  return hash.text();
}

/**
 * Two 32-bit lanes fed the same words through different multipliers and shifts. Each step is a
 * bijection of a lane's state for a given word and of the word for a given state, so two encodings
 * of one length that differ in a single word always end in different states.
 */
class Hash {
  private a = 0x6a09e667;
  private b = 0xbb67ae85;

  word(w: number): void {
    this.a = stepA(this.a, w);
    this.b = stepB(this.b, w);
  }

  /** Its length, then its UTF-16 code units two to a word; the lanes in locals for the loop (the hot path). */
  string(s: string): void {
    const n = s.length;
    let a = stepA(this.a, n);
    let b = stepB(this.b, n);
    let i = 0;
    for (; i + 1 < n; i += 2) {
      const w = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
      a = stepA(a, w);
      b = stepB(b, w);
    }
    if (i < n) {
      a = stepA(a, s.charCodeAt(i));
      b = stepB(b, s.charCodeAt(i));
    }
    this.a = a;
    this.b = b;
  }

  value(v: unknown): void {
    switch (typeof v) {
      case 'string':
        this.word(STRING);
        return this.string(v);
      case 'number':
        return this.number(v);
      case 'boolean':
        return this.word(v ? TRUE : FALSE);
      case 'object':
        if (v === null) return this.word(NULL);
        return Array.isArray(v) ? this.array(v) : this.object(v);
      default:
        // undefined, a function, a symbol: null in an array, as in JSON (an object leaves them out).
        return this.word(NULL);
    }
  }

  /**
   * Two finite numbers have one JSON text exactly when they are equal, so a number is fed as its
   * value: a 32-bit integer as itself (-0 too, whose text is 0), any other as its 64 bits, in one
   * byte order on every machine (a data file may move). No number-to-text conversion per amount.
   */
  number(n: number): void {
    if ((n | 0) === n) {
      this.word(INTEGER);
      this.word(n | 0);
    } else if (Number.isFinite(n)) {
      float.setFloat64(0, n, true);
      this.word(DOUBLE);
      this.word(float.getInt32(0, true));
      this.word(float.getInt32(4, true));
    } else this.word(NULL); // JSON has no NaN or Infinity: JSON.stringify writes null
  }

  array(items: readonly unknown[]): void {
    this.word(ARRAY);
    this.word(items.length);
    for (let i = 0; i < items.length; i++) this.value(items[i]);
  }

  /** Members in sorted key order; `skip` is a key left out (the request's timestamp). */
  object(o: object, skip?: string): void {
    this.word(OBJECT);
    const record = o as Record<string, unknown>;
    const keys = sorted(Object.keys(o));
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const v = record[key];
      if (key === skip || !inJson(v)) continue;
      this.word(KEY);
      this.string(key);
      this.value(v);
    }
    this.word(END);
  }

  /**
   * `~` and the two lanes, mixed into each other, each in 7 base-32 digits (as toString(32) writes
   * them): 15 characters in all, made as one flat string (a concatenation of 13 characters or more
   * is a tree of its parts, over twice the memory for every retained transaction).
   */
  text(): string {
    // Each step below is invertible: distinct lane states stay distinct hashes.
    let a = mix((this.a + this.b) | 0);
    const b = mix((this.b + a) | 0);
    a = (a + b) | 0;
    return String.fromCharCode(
      MARK_CODE,
      digit(a, 30),
      digit(a, 25),
      digit(a, 20),
      digit(a, 15),
      digit(a, 10),
      digit(a, 5),
      digit(a, 0),
      digit(b, 30),
      digit(b, 25),
      digit(b, 20),
      digit(b, 15),
      digit(b, 10),
      digit(b, 5),
      digit(b, 0),
    );
  }
}

// The per-word steps of the two lanes: multiply by an odd constant, fold the high bits into the low
// ones, multiply again (each of these is invertible).
function stepA(h: number, w: number): number {
  h = Math.imul(h ^ w, 0x9e3779b1);
  return Math.imul(h ^ (h >>> 15), 0x85ebca77);
}
function stepB(h: number, w: number): number {
  h = Math.imul(h ^ w, 0xc2b2ae3d);
  return Math.imul(h ^ (h >>> 13), 0x27d4eb2f);
}

/** Scratch space to read a double's 64 bits. */
const float = new DataView(new ArrayBuffer(8));

/**
 * Keys in code-unit order (as Array#sort orders strings). A request's objects have a dozen keys at
 * most, where an insertion sort is several times cheaper than Array#sort's generic comparison; a
 * hostile body's thousands of keys go to Array#sort.
 */
function sorted(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

/** JSON.stringify leaves out members whose value is undefined, a function or a symbol. */
const inJson = (v: unknown) => v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';

/** A 32-bit avalanche: every bit of the input moves about half the bits of the output. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const MARK_CODE = FINGERPRINT_MARK.charCodeAt(0);
const DIGITS = '0123456789abcdefghijklmnopqrstuv';
/** The base-32 digit of the 5 bits of `h` from bit `at` up (at 30: its top 2 bits). */
const digit = (h: number, at: number) => DIGITS.charCodeAt((h >>> at) & 31);
