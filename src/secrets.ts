import { createHash, timingSafeEqual } from 'node:crypto';

export const digest = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/** Constant time whatever the lengths: compares the digest of what was given with the expected one. */
export const matches = (given: string, expected: Buffer): boolean => timingSafeEqual(digest(given), expected);
