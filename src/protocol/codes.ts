/** The reply codes of the spec (section 7). */
export const CODES = {
  R0: 'Success processing',
  R1: 'Failed processing',
  R2: 'Unauthorized request',
  R3: 'Validation failed',
  R4: 'Not enough balance',
} as const;

export type Code = keyof typeof CODES;
export const EVENT_TYPES = ['login', 'bet', 'bet_result'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
