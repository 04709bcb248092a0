import { timingSafeEqual } from 'node:crypto';

export const secretBytes = (secret: string): Buffer => Buffer.from(secret, 'utf8');

/**
 * Compares in constant time for a given length; only the length can leak, as with every API-key
 * check (hashing both sides first cost ~12 µs a callback, a tenth of its CPU).
 */
export function matches(given: string, expected: Buffer): boolean {
  const bytes = Buffer.from(given, 'utf8');
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
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
