import { Decimal } from 'decimal.js';
import { count, noun } from '../text/plural.js';

/**
 * Exact decimal money. A clone so that our precision never leaks into (or from) other users of
 * decimal.js. 60 significant digits is far beyond any balance a wallet holds; sums of amounts
 * that each fit it stay exact.
 */
export const Money = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN, toExpNeg: -60, toExpPos: 60 });
export type Money = InstanceType<typeof Money>;

export const ZERO = new Money(0);

/**
 * A JSON number as an exact decimal: JS prints the shortest text that reads back as the same double.
 * The same number or text gives the same Money (immutable, so shared): a callback's amounts are a
 * few chip values seen again and again, and a balance is read back from the text the decision
 * printed (toJsonNumber) when the store applies it — each a parse of decimal.js saved.
 */
export function money(n: number | string): Money {
  const known = typeof n === 'number' ? byNumber.get(n) : byText.get(n);
  if (known) return known;
  const m = new Money(n);
  // 0 and -0 are one Map key, and two Moneys (-0 is negative).
  if (typeof n === 'string') remember(byText, n, m);
  else if (n !== 0) remember(byNumber, n, m);
  return m;
}

/** Recent values, cleared when full: the cache never grows past this many per kind. */
const RECENT = 4096;
const byNumber = new Map<number, Money>();
const byText = new Map<string, Money>();
function remember<K>(recent: Map<K, Money>, key: K, m: Money): void {
  if (recent.size >= RECENT) recent.clear();
  recent.set(key, m);
}

/** The exact sum (ZERO for none; the one value itself for one: a Money is immutable, so nothing new is made). */
export function sum(values: Iterable<Money>): Money {
  let total: Money | undefined;
  for (const v of values) total = total === undefined ? v : total.plus(v);
  return total ?? ZERO;
}

/**
 * Whether two amounts are equal. A value seen again is most often the very Money (money() keeps
 * recent ones): then no comparison is made, nor the copy of `b` that decimal.js makes to compare.
 */
export const sameAmount = (a: Money, b: Money): boolean => a === b || a.eq(b);

/** The JSON text of an amount: plain notation, never an exponent, never a float round-trip. */
export function toJsonNumber(n: Money): string {
  const text = n.toFixed();
  // A zero prints "0" whatever its sign: only a non-zero value is what its text reads back as.
  if (!n.isZero()) remember(byText, text, n);
  return text;
}

/**
 * A JSON number with up to 15 significant digits reads back exactly as written; beyond that the
 * double the parser made may differ from the text the caller sent (or the caller summed in floats:
 * 0.1 + 0.2 = 0.30000000000000004), so nobody can know the amount meant.
 */
export const MAX_EXACT_DIGITS = 15;

/**
 * Every amount and every balance stays below 10^15 minor units of its currency (docs/design.md "Amounts
 * have a bound"): 10 trillion USD, 1 quadrillion KRW. Within it, sums of a round's amounts keep
 * far fewer digits than Money's precision, so arithmetic never rounds.
 */
export const MAX_MINOR_UNITS_DIGITS = 15;

const bounds = new Map<number, Money>();

/**
 * The smallest amount that is too large in a currency of this scale: 10^(15 − scale). Made once
 * per scale (a decimal power per amount checked was a measurable part of a callback); a Money is
 * immutable, so sharing it is safe.
 */
const negatedBounds = new Map<number, Money>();
const negatedBound = (scale: number): Money => {
  let bound = negatedBounds.get(scale);
  if (!bound) {
    bound = amountBound(scale).neg();
    if (Number.isInteger(scale) && scale >= 0 && scale <= 64) negatedBounds.set(scale, bound);
  }
  return bound;
};

export function amountBound(scale: number): Money {
  let bound = bounds.get(scale);
  if (!bound) {
    bound = new Money(10).pow(MAX_MINOR_UNITS_DIGITS - scale);
    // Scales are a currency's fraction digits: a handful of small integers.
    if (Number.isInteger(scale) && scale >= 0 && scale <= 64) bounds.set(scale, bound);
  }
  return bound;
}

/** An amount in a message: in full, unless that is long (1e300 has 301 digits): then in exponent notation. */
export const shown = (m: Money): string => {
  const full = m.toFixed();
  return full.length <= 40 ? full : m.toExponential();
};

export type AmountProblem = { code: 'AMOUNT_INEXACT' | 'AMOUNT_SCALE' | 'AMOUNT_TOO_LARGE'; message: string };

/** Why a balance of this value is out of bounds, if it is. */
export function balanceProblem(m: Money, currency: string, scale: number): AmountProblem | undefined {
  const bound = amountBound(scale);
  if (m.lt(bound) && m.gt(negatedBound(scale))) return undefined; // |m| < bound, without a new Money for |m|
  return {
    code: 'AMOUNT_TOO_LARGE',
    message: `${shown(m)} is not below ${bound.toFixed()} ${currency} (10^${MAX_MINOR_UNITS_DIGITS} minor units), the bound of every amount and balance`,
  };
}

/** The scales (bit `scale`) at which an amount was found fine: a chip value seen again is not checked again. */
const fineAt = new WeakMap<Money, number>();

/** What is wrong with an amount in a currency of the given scale, if anything. */
export function amountProblem(m: Money, currency: string, scale: number): AmountProblem | undefined {
  const bit = Number.isInteger(scale) && scale >= 0 && scale < 31 ? 1 << scale : 0;
  if (bit && ((fineAt.get(m) ?? 0) & bit) !== 0) return undefined;
  const problem = checkAmount(m, currency, scale);
  if (bit && !problem) fineAt.set(m, (fineAt.get(m) ?? 0) | bit);
  return problem;
}

function checkAmount(m: Money, currency: string, scale: number): AmountProblem | undefined {
  const tooLarge = balanceProblem(m, currency, scale);
  if (tooLarge) return tooLarge;
  if (m.precision() > MAX_EXACT_DIGITS) {
    return {
      code: 'AMOUNT_INEXACT',
      message: `${shown(m)} has ${m.precision()} significant digits; a JSON number holds ${MAX_EXACT_DIGITS} exactly (a float sum, or more digits than any parser keeps)`,
    };
  }
  if (m.decimalPlaces() > scale)
    return {
      code: 'AMOUNT_SCALE',
      message: `${shown(m)} has ${count(m.decimalPlaces(), noun('fraction digit'))}; ${currency} allows ${scale}`,
    };
  return undefined;
}
