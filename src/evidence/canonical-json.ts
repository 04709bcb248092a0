/**
 * JSON in the canonical form of RFC 8785 (JCS): object keys sorted by UTF-16 code units, no
 * whitespace, strings and numbers as ECMAScript's JSON.stringify writes them (which is what JCS
 * specifies). The same document always gives the same bytes, so its sha256 names it: the signed
 * report's configuration names the scenario by the digest of its canonical JSON.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`canonical JSON has no ${value}`);
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
