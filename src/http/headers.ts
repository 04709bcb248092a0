/** A header's value as Node hands it over (a repeated header is an array): its first. */
export const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
