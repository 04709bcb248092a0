import type { JournalEntry } from './types.js';

/** The most callbacks the page holds; older ones drop off the bottom (the journal keeps its own). */
export const MAX_ROWS = 2000;
/** The callbacks the page loads when it opens. */
export const INITIAL = 200;

/** Newest first, one row per id. */
export function merge(rows: JournalEntry[], more: JournalEntry[]): JournalEntry[] {
  const byId = new Map(rows.map((e) => [e.id, e]));
  for (const e of more) byId.set(e.id, e);
  return [...byId.values()].sort((a, b) => b.id - a.id).slice(0, MAX_ROWS);
}
