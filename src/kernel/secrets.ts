import { lastTwo } from './last-two.js';

/**
 * Compares in constant time for a given length; only the length can leak, as with every API-key
 * check. Every character is compared whatever the others (no early exit), on the strings as they
 * are: copying both into buffers for crypto's timingSafeEqual cost 2.5 µs a callback, hashing
 * both first ~12 µs.
 */
export function matches(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < given.length; i++) diff |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

const mask = (s: string) => (s.length <= 4 ? '*'.repeat(s.length) : `${s.slice(0, 2)}${'*'.repeat(Math.min(s.length - 2, 12))}`);

/** Headers whose value is a credential (docs/limits.md). */
const SECRET_NAMES = new Set(['api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
const SECRET_SUFFIX = /-(token|key|secret)$/;

/** Whether a header (any case) carries a secret: the named ones and any `*-Token`, `*-Key`, `*-Secret`. */
export const isSecretHeader = (name: string): boolean => {
  let secret = secretByName.get(name);
  if (secret === undefined) {
    const n = name.toLowerCase();
    secret = SECRET_NAMES.has(n) || SECRET_SUFFIX.test(n);
    // A callback's headers are the same few names every time: each is judged once. Names are
    // caller text, so the memo is bounded.
    if (secretByName.size >= 1024) secretByName.clear();
    secretByName.set(name, secret);
  }
  return secret;
};
const secretByName = new Map<string, boolean>();

/**
 * Headers as the journal, logs and reports show them: every secret header masked (two characters
 * kept), so an entry or a report can be pasted into a ticket; repeated headers joined.
 */
export function maskedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = isSecretHeader(name) ? mask(text) : text;
  }
  return out;
}

/**
 * Headers kept as they were received or sent (no copy), masked each time they are written as JSON
 * (`toJSON`: the journal's text, a report's evidence, an entry sent to Redis). Most entries are
 * never read: masking every callback's two header sets when it was answered cost a microsecond.
 */
export class MaskedHeaders {
  // Private: a copy made any other way than JSON (a spread, structuredClone) holds nothing.
  readonly #raw: Readonly<Record<string, string | string[] | undefined>>;

  constructor(raw: Readonly<Record<string, string | string[] | undefined>>) {
    this.#raw = raw;
  }

  /** The wrapper of `raw`: one of the last two made for the same object (a reply's shared headers), or a new one. */
  static readonly of = lastTwo((raw: Readonly<Record<string, string | string[] | undefined>>) => new MaskedHeaders(raw));

  /** The headers as received, for what only measures them (the journal's size bound); never to be shown. */
  static rawOf(headers: MaskedHeaders): Readonly<Record<string, string | string[] | undefined>> {
    return headers.#raw;
  }

  toJSON(): Record<string, string> {
    return maskedHeaders(this.#raw);
  }

  /** console.log and util.inspect show them masked too. */
  [Symbol.for('nodejs.util.inspect.custom')](): Record<string, string> {
    return this.toJSON();
  }
}

/**
 * What makes a token unusable in an Authorization header, if anything: more than one line, or a
 * control character (a PEM file, two tokens pasted one under the other). Never quotes the token.
 */
export function tokenProblem(token: string): string | undefined {
  if (/[\r\n]/.test(token)) return 'holds more than one line; give the token alone, on one line';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(token)) return 'holds a control character (a tab?); a token is printable characters on one line';
  if (/[^\u0020-\u00ff]/.test(token)) return 'holds a character beyond Latin-1, which no HTTP header carries; a token is printable ASCII';
  return undefined;
}
