import { Decimal } from 'decimal.js';

/**
 * Exact decimal money. A clone so that our precision never leaks into (or from) other users of
 * decimal.js. 60 significant digits is far beyond any balance a wallet holds; sums of amounts
 * that each fit it stay exact.
 */
export const Money = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN, toExpNeg: -60, toExpPos: 60 });
export type Money = InstanceType<typeof Money>;

export const ZERO = new Money(0);

/** A JSON number as an exact decimal: JS prints the shortest text that reads back as the same double. */
export function money(n: number | string): Money {
  return new Money(n);
}

/** Fraction digits of an amount as the caller wrote it (10.50 arrives as 10.5: one digit). */
export function fractionDigits(n: Money): number {
  return n.decimalPlaces();
}

export function sum(values: Iterable<Money>): Money {
  let total = ZERO;
  for (const v of values) total = total.plus(v);
  return total;
}

/** The JSON text of an amount: plain notation, never an exponent, never a float round-trip. */
export function toJsonNumber(n: Money): string {
  return n.toFixed();
}

/** For places that must hand a JS number to a library (admin views); exact for sane balances. */
export function toNumber(n: Money): number {
  return n.toNumber();
}
