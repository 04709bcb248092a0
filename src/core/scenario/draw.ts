import * as crypto from 'node:crypto';
import { randomInt } from 'node:crypto';

/**
 * The draw of a rule with a `probability` (docs/scenarios.md "Random faults"): deterministic, so a
 * provider replaying the same callbacks per player against the same seed meets the same faults.
 *
 *   u = first 52 bits of SHA-256( JSON.stringify([seed, rule name, user_id, count]) ) / 2^52
 *
 * where `count` is that player's authenticated callbacks in the session, counted from 1 (this one
 * included). The rule fires when u < probability. A retry is a later callback, so it has a higher
 * count and draws afresh.
 */
export function drawOf(seed: number, rule: string, userId: string, count: number): number {
  const text = JSON.stringify([seed, rule, userId, count]);
  const digest =
    typeof crypto.hash === 'function' ? crypto.hash('sha256', text, 'buffer') : crypto.createHash('sha256').update(text).digest();
  // 48 bits, then the high 4 bits of the seventh byte: 52 bits, exact in a double.
  return (digest.readUIntBE(0, 6) * 16 + (digest[6]! >> 4)) / 2 ** 52;
}

/** Whether a rule with `probability` fires for that player's `count`-th callback. */
export const wins = (probability: number, seed: number, rule: string, userId: string, count: number): boolean =>
  probability >= 1 || drawOf(seed, rule, userId, count) < probability;

/** The largest seed a scenario may name (an integer exact in a double and in JSON). */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;

/** A seed for a run that names none: printed at start, so the run can be replayed. */
export const randomSeed = (): number => randomInt(0, 2 ** 32);
