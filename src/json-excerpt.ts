/*
 * The start of a value's JSON, as a string of its own. Neither JSON.stringify of the whole value
 * (a 1 MiB body is a 1 MiB string) nor a slice of it (V8 keeps a slice's whole parent string alive:
 * an excerpt cut from a body's text held the whole text while its reply was delayed).
 */

/** The first `max` characters of `value`'s JSON (a string of its own), and whether it was cut. */
export function jsonExcerpt(value: unknown, max: number): { text: string; cut: boolean } {
  let cut = false;
  let text: string;
  try {
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
  if (text.length > max) {
    cut = true;
    text = text.slice(0, max);
  }
  return { text: ownString(text), cut };
}

/** A copy that shares nothing with `text` (a slice or a concatenation would keep its parts alive). */
export const ownString = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');
