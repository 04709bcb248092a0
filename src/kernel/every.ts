/**
 * An object naming every field of T, optional ones included (`satisfies Every<T>`): a copy written
 * as one literal, where a spread cost more than the work it fed, still fails to compile when T
 * gains a field the literal does not name.
 */
export type Every<T> = { [K in keyof T]-?: unknown };
