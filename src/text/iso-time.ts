let second = Number.NaN;
let prefix = '';

/**
 * `new Date(now).toISOString()` for the current time at a tenth of its cost (two per callback in
 * the journal): the text up to the second is made once a second, the milliseconds are appended.
 * Exactly the same text for any time from 1970 to 9999 (tested against toISOString).
 */
export function isoTime(now: number = Date.now()): string {
  const s = Math.floor(now / 1000);
  if (s !== second) {
    second = s;
    prefix = new Date(s * 1000).toISOString().slice(0, 20);
  }
  const ms = now - s * 1000;
  return `${prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}
