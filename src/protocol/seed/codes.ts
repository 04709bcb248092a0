import type { Verdict } from '../port.js';

/** The reply codes of the spec (section 7). */
export const CODES = {
  R0: 'Success processing',
  R1: 'Failed processing',
  R2: 'Unauthorized request',
  R3: 'Validation failed',
  R4: 'Not enough balance',
} as const;

export type Code = keyof typeof CODES;
export { EVENT_TYPES, type EventType } from '../events.generated.js';

/*
 * The codes by their meaning: the layers above name a code by what it means, never by its text
 * (the spec's text for each is in CODES).
 */
/** R0: processed; the wallet took the callback. */
export const SUCCESS = 'R0' satisfies Code;
/** R1: processing failed; whether the callback was taken is not known. */
export const FAILED = 'R1' satisfies Code;
/** R2: the credentials were refused. */
export const UNAUTHORIZED = 'R2' satisfies Code;
/** R3: the callback was refused as invalid. */
export const INVALID = 'R3' satisfies Code;
/** R4: a bet refused for want of balance. */
export const NOT_ENOUGH_BALANCE = 'R4' satisfies Code;

/** Every code, in the spec's order. */
export const ALL_CODES = Object.keys(CODES) as readonly Code[];

/** Whether a value is one of the codes (exactly: upper case). */
export const isCode = (value: unknown): value is Code => typeof value === 'string' && Object.hasOwn(CODES, value);

/** What a code says happened to the callback: applied (R0), refused (R2–R4), unknown (R1); anything else is invalid. */
export function verdictOf(code: unknown): Verdict {
  if (code === SUCCESS) return 'applied';
  if (code === FAILED) return 'unknown';
  return isCode(code) ? 'refused' : 'invalid';
}
