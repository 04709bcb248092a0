import type {
  JournalEntry,
  JournalFilter,
  JournalListener,
  JournalStore,
  NewEntry,
  PendingEntry,
  ReplyTiming,
  StoredEntry,
} from '../core/exchange.js';
import { entryText, KeptEntry, textBound } from './entry-text.js';
import { Begun, InFlight } from './in-flight.js';
import { matchFields, matches } from './match.js';
import { jsonExcerpt, ownString } from '../text/json-excerpt.js';

export { entryText, textBound } from './entry-text.js';
export type {
  EntryHeaders,
  JournalEntry,
  JournalFilter,
  JournalListener,
  JournalStore,
  NewEntry,
  PendingEntry,
  ReplyTiming,
  StoredEntry,
} from '../core/exchange.js';
export type { Awaitable } from '../kernel/awaitable.js';

export const DEFAULT_JOURNAL_SIZE = 10_000;
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024;

/**
 * The last callbacks, bounded by count (`capacity`) and by the bytes of their JSON text
 * (`maxBytes`): memory stays bounded however long it runs and whatever callers send. A finished
 * callback of the usual kind (a readable body of a few KiB, no error) is kept as the entry it was
 * handed and its text is made each time it is read (`KeptEntry`), counted by a bound of that
 * text's length; any other entry is kept as its text. Reading the journal streams the texts
 * without building one giant string.
 */
export class Journal implements JournalStore {
  /** Kept entries from `head` on; a slot before it is emptied as its entry goes (nothing holds it until the next compaction). */
  private entries: (StoredEntry | undefined)[] = [];
  /** What each entry of `entries` counts against `maxBytes`. */
  private sizes: number[] = [];
  /** Index of the oldest entry in `entries` (a queue without shifting). */
  private head = 0;
  private bytes = 0;
  /** Characters of request bodies held by callbacks not answered yet (a delay_ms in progress). */
  private inFlightBytes = 0;
  private nextId = 1;
  /**
   * Callbacks begun and not finished, oldest first: a list through the records themselves. (A Map
   * filled and emptied by every callback rebuilt its table as it grew and shrank under load.)
   */
  private readonly pending = new InFlight();
  private readonly listeners = new Set<JournalListener>();

  constructor(
    readonly capacity = DEFAULT_JOURNAL_SIZE,
    readonly maxBytes = DEFAULT_JOURNAL_BYTES,
  ) {}

  /** Records a finished callback at once. */
  record(entry: Omit<NewEntry, 'id'>): StoredEntry {
    const id = this.nextId++;
    const text = entryText(id, entry);
    return this.keep({ id, ...matchFields(entry), text }, text.length);
  }

  /**
   * Records a callback whose reply is still to come: its id is taken now, it is listed by
   * `inFlight()` until `finish` keeps it with its reply time. The entry is held as given (not
   * copied): the caller hands it over. Its body (`chars` as received) counts against `maxBytes`
   * meanwhile: past the bound, only an excerpt of it is kept, so delayed replies cannot hold
   * memory without end (400 delayed bodies of 1 MiB are 400 MiB otherwise).
   */
  begin(entry: Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>, chars = 0): PendingEntry {
    const id = this.nextId++;
    chars = admitInFlight(entry, chars, this.inFlightBytes, this.maxBytes);
    this.inFlightBytes += chars;
    return this.pending.add(new Begun(this, id, entry, chars, this.epoch));
  }

  /** Bumped by `reset`: a callback begun before it is answered, but not kept in the journal cleared since. */
  private epoch = 0;

  /** The end of `begin`: the callback was answered (`Begun.finish`). */
  finished(begun: Begun, done: ReplyTiming): StoredEntry {
    this.pending.remove(begun);
    this.inFlightBytes -= begun.chars;
    const { id, entry } = begun;
    const size = textBound(entry, begun.chars);
    // (a reset came while it was answered, a delay_ms: the journal it began in is gone)
    const cleared = begun.epoch !== this.epoch;
    if (size !== undefined) {
      const kept = new KeptEntry(id, entry, done);
      return cleared ? kept : this.keep(kept, size);
    }
    const text = entryText(id, entry, done);
    const stored = { id, ...matchFields(entry), text };
    return cleared ? stored : this.keep(stored, text.length);
  }

  /** Callbacks decided but not answered yet, oldest first (no `replied_at`). */
  inFlight(): JournalEntry[] {
    // Through JSON, as every reader gets an entry: its headers masked.
    return this.pending
      .list()
      .filter((begun) => begun.epoch === this.epoch)
      .map(({ id, entry }) => JSON.parse(JSON.stringify({ id, ...entry, duration_ms: 0 })) as JournalEntry);
  }

  private keep(stored: StoredEntry, size: number): StoredEntry {
    for (const listener of this.listeners) listener(stored);
    if (this.capacity <= 0 || size > this.maxBytes) return stored;
    this.entries.push(stored);
    this.sizes.push(size);
    this.bytes += size;
    // Bodies in flight count too: the oldest kept entries make room for them.
    while (this.size > this.capacity || (this.size > 0 && this.bytes + this.inFlightBytes > this.maxBytes)) {
      this.entries[this.head] = undefined;
      this.bytes -= this.sizes[this.head++]!;
    }
    // Drop the evicted slots now and then, so the arrays do not grow forever.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    return stored;
  }

  private get size(): number {
    return this.entries.length - this.head;
  }

  /** The stored entries that pass the filter, by id (oldest first). Nothing is parsed. */
  select(filter: JournalFilter = {}): StoredEntry[] {
    const hits: StoredEntry[] = [];
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if ((filter.after === undefined || e.id > filter.after) && matches(e, filter)) hits.push(e);
    }
    return page(hits, filter, this.pending.oldest(this.epoch));
  }

  /** Parsed entries, oldest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    return this.select(filter).map((e) => JSON.parse(e.text) as JournalEntry);
  }

  count(filter: JournalFilter = {}): number {
    return this.select(filter).length;
  }

  /** Bytes of JSON text held, and of the bodies of callbacks still in flight (what --journal-bytes bounds). */
  get heldBytes(): number {
    return this.bytes + this.inFlightBytes;
  }

  /** Calls `listener` with every entry kept from now on; returns the unsubscribe function. */
  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  reset(): void {
    this.epoch++;
    this.entries = [];
    this.sizes = [];
    this.head = 0;
    this.bytes = 0;
  }
}

/**
 * A delayed callback's body while it waits: counted against the journal's byte bound with the
 * others in flight (`held`); past the bound only an excerpt is kept. Returns the characters held.
 */
export function admitInFlight(entry: { request: { body: unknown } }, chars: number, held: number, max: number): number {
  if (chars <= 0 || held + chars <= max) return Math.max(0, chars);
  entry.request.body = heldBackExcerpt(entry.request.body, chars);
  return EXCERPT_CHARS;
}

/** What a delayed callback's entry keeps of a body the byte bound has no room for. */
const EXCERPT_CHARS = 1024;
function heldBackExcerpt(body: unknown, chars: number): string {
  // A string of its own: a slice of the body's text would keep the whole text alive for the delay.
  const start = typeof body === 'string' ? ownString(body.slice(0, EXCERPT_CHARS)) : jsonExcerpt(body, EXCERPT_CHARS).text;
  return ownString(`${start}…(${chars} characters; the rest is not kept: --journal-bytes was held by other delayed callbacks)`);
}

/**
 * The entries that passed a filter, in arrival order (by id: a delayed reply is kept after quicker
 * ones that arrived later), cut to the page `after` and `limit` ask for. A page forward (`after`)
 * ends before `unwritten`, the oldest id given to a callback whose entry is not written yet: the
 * entries after it come again on the page after, behind it, so paging forward never passes one.
 */
export function page(hits: StoredEntry[], { after, limit }: JournalFilter, unwritten = Infinity): StoredEntry[] {
  hits.sort((a, b) => a.id - b.id);
  const last = hits.at(-1);
  if (after !== undefined && last && unwritten <= last.id) hits.length = hits.findIndex((e) => e.id >= unwritten);
  if (limit === undefined) return hits;
  return after === undefined ? hits.slice(Math.max(0, hits.length - limit)) : hits.slice(0, limit);
}
