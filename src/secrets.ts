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

/**
 * Headers as the journal and reports show them: Api-Key and Authorization masked (two characters
 * kept), so an entry or a report can be pasted into a ticket; repeated headers joined.
 */
export function maskedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = name === 'api-key' || name === 'authorization' ? mask(text) : text;
  }
  return out;
}
