/*
 * The start of a value's JSON, as a string of its own. Neither JSON.stringify of the whole value
 * (a 1 MiB body is a 1 MiB string) nor a slice of it (V8 keeps a slice's whole parent string alive:
 * an excerpt cut from a body's text held the whole text while its reply was delayed).
 */

/** The first `max` characters of `value`'s JSON (a string of its own), and whether it was cut. `small`: its JSON is known to be short. */
export function jsonExcerpt(value: unknown, max: number, small = false): { text: string; cut: boolean } {
  let cut = false;
  let text: string;
  try {
    // `small`: the caller knows the value's JSON is short; written whole, as fast as it gets.
    if (small) text = JSON.stringify(value) ?? 'null';
    else
      // Long strings are cut before they are written: what is built stays near `max` characters per string.
      text =
        JSON.stringify(value, (_key, v: unknown) => {
          if (typeof v !== 'string' || v.length <= max) return v;
          cut = true;
          return v.slice(0, max);
        }) ?? 'null';
  } catch {
    return { text: '(not serialisable)', cut: false };
  }
  // A string JSON.stringify made shares nothing; a slice of it would keep it whole.
  if (text.length <= max) return { text, cut };
  return { text: ownString(text.slice(0, max)), cut: true };
}

/** A copy that shares nothing with `text` (a slice or a concatenation would keep its parts alive). */
export const ownString = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');
