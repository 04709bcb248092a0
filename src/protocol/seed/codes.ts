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
