/** A header's value as Node hands it over (a repeated header is an array): its first. */
export const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

const TOKEN = /^[\w!#$%&'*+.^`|~-]+$/;

/**
 * Whether Fastify reads `value` as a media type (`type/subtype`, parameters aside), as it checks a
 * request's Content-Type before any body parser (its lib/content-type.js): one it does not (`json`,
 * an empty value) it refuses 415 without reading the body.
 */
export function isMediaType(value: string): boolean {
  const semicolon = value.indexOf(';');
  const media = semicolon < 0 ? value : value.slice(0, semicolon);
  const slash = media.indexOf('/');
  return slash >= 0 && TOKEN.test(media.slice(0, slash).trimStart()) && TOKEN.test(media.slice(slash + 1).trimEnd());
}
