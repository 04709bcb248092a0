/**
 * What a journal entry keeps of a request's texts, each the same object as the last equal text of
 * its kind: a caller sends the same URL and headers with every callback, and every entry kept a
 * copy of each (Node's parser makes them anew per request): a fifth of an entry's bytes, copied
 * again by every young-generation collection that found the entry alive (docs/bench.md). A text is
 * kept for reuse only when short, and at most KINDS kinds are (a caller chooses header names).
 */
const MAX_CHARS = 256;
const KINDS = 64;
const last = new Map<string, string>();

/** `text`, or the last equal text seen as `kind`. */
export function interned(kind: string, text: string): string {
  const seen = last.get(kind);
  if (seen === text) return seen;
  if (text.length <= MAX_CHARS) {
    if (seen === undefined && last.size >= KINDS) last.clear();
    last.set(kind, text);
  }
  return text;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** A copy of a request's headers (names in their order), each value `interned` by its name. */
export function internedHeaders(raw: Headers): Headers {
  const copy: Record<string, string | string[] | undefined> = {};
  for (const name of Object.keys(raw)) {
    const value = raw[name];
    const kept = typeof value === 'string' ? interned(name, value) : value;
    // (a header named __proto__, which Node's parser drops but a hand-made object may hold, stays a header)
    if (name === '__proto__') Object.defineProperty(copy, name, { value: kept, enumerable: true, writable: true, configurable: true });
    else copy[name] = kept;
  }
  return copy;
}
