import { useReducer, useState } from 'preact/hooks';
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

/**
 * The callbacks the page lists, and those held back while paused. Kept outside Preact's state so
 * that what comes off the stream is sorted in in the order it came, each change at once (a
 * restart must know which rows it found, not the ones a later render will have).
 */
export class Listed {
  shown: JournalEntry[] = [];
  /** Came in while paused, not shown yet. */
  waiting: JournalEntry[] = [];
  paused = false;
  /** Clear was used: the list is empty by choice, the journal is not. */
  cleared = false;
  /** Clear hides what the journal still holds: a re-read must not bring it back. */
  private clearedUpTo = 0;

  constructor(private readonly changed: () => void) {}

  /**
   * Callbacks from the stream or a read of the journal. One already listed (a re-read, the stream
   * reconnected) is not new: while paused it is neither counted nor held back twice.
   */
  add(more: JournalEntry[]): void {
    const fresh = more.filter((e) => e.id > this.clearedUpTo);
    if (!fresh.length) return;
    if (this.paused) {
      const shown = new Set(this.shown.map((e) => e.id));
      this.waiting = merge(
        this.waiting,
        fresh.filter((e) => !shown.has(e.id)),
      );
    } else this.shown = merge(this.shown, fresh);
    this.changed();
  }

  /** A callback asked for by id (a check's evidence): shown, paused or not. */
  reveal(entries: JournalEntry[]): void {
    this.shown = merge(this.shown, entries);
    this.changed();
  }

  pause(paused: boolean): void {
    this.paused = paused;
    if (!paused) {
      this.shown = merge(this.shown, this.waiting);
      this.waiting = [];
    }
    this.changed();
  }

  clear(): void {
    this.clearedUpTo = Math.max(this.clearedUpTo, ...this.ids());
    this.shown = [];
    this.waiting = [];
    this.cleared = true;
    this.changed();
  }

  /** Every id listed or held back. */
  ids(): Set<number> {
    return new Set([...this.shown, ...this.waiting].map((e) => e.id));
  }

  /**
   * The journal began again (a reset, a cleared journal: this page's or any other client's):
   * `journal` is what it holds now; of the rows listed, only those not in `before` (taken when the
   * restart was noticed: they came in since) stay.
   */
  restart(journal: JournalEntry[], before: Set<number>): void {
    const since = [...this.shown, ...this.waiting].filter((e) => !before.has(e.id));
    this.shown = [];
    this.waiting = [];
    this.clearedUpTo = 0;
    this.cleared = false;
    this.add([...journal, ...since]);
    this.changed();
  }
}

/** The page's one `Listed`, rendering the component again at each change. */
export function useListed(): Listed {
  const [, changed] = useReducer((n: number) => n + 1, 0);
  return useState(() => new Listed(() => changed(undefined)))[0];
}
