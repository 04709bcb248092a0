import type { Finding } from '../protocol/findings.js';

/** One callback as the simulator saw it: a WireMock "serve event". */
export interface JournalEntry {
  id: number;
  /** When the request arrived (ISO 8601). */
  received_at: string;
  /**
   * When the wallet wrote its reply or closed the connection (a dropped reply); absent while the
   * callback is still being answered (a `delay_ms` in progress).
   */
  replied_at?: string;
  duration_ms: number;
  transaction_id?: string;
  event_type?: string;
  user_id?: string;
  request: { method: string; url: string; headers: Record<string, string>; body: unknown };
  reply: {
    status: number;
    headers: Record<string, string>;
    body: unknown;
    /** A scenario rule closed the connection instead of answering (the lost-reply case). */
    dropped: boolean;
    /** The caller had already closed the connection when the reply was written: it never read it. */
    client_gone?: boolean;
  };
  code?: string;
  reason?: string;
  rule?: { index: number; name: string };
  balance_before?: number;
  balance_after?: number;
  replayed: boolean;
  findings: Finding[];
}

export interface JournalFilter {
  user_id?: string;
  event_type?: string;
  transaction_id?: string;
  /** Only entries with an id greater than this (paging forward). */
  after?: number;
  /** Without `after`: keep the newest n. With `after`: the first n after it. */
  limit?: number;
}

/** A recorded entry as the journal keeps it: its JSON text and the fields the filters read. */
export interface StoredEntry {
  readonly id: number;
  readonly user_id?: string;
  readonly event_type?: string;
  readonly transaction_id?: string;
  /** The entry's JSON text; entries are parsed only when read. */
  readonly text: string;
}

export type JournalListener = (entry: StoredEntry) => void;

/** A callback recorded when it arrives and finished when it is answered. */
export interface PendingEntry {
  readonly id: number;
  /** Completes the entry with the reply's timing and keeps it in the journal. */
  finish(done: ReplyTiming): StoredEntry;
}

export interface ReplyTiming {
  replied_at: string;
  duration_ms: number;
  client_gone: boolean;
}

/** A value, or a promise of it: the in-memory journal answers at once, a shared one (Redis) later. */
export type Awaitable<T> = T | Promise<T>;

/**
 * What the routes need of a journal (WireMock's: record, list, count, reset). `Journal` below keeps
 * it in this process; src/journal/redis-journal.ts keeps it in a Redis stream that every wallet-sim
 * process sharing the ledger writes to and reads from.
 */
export interface JournalStore {
  record(entry: Omit<JournalEntry, 'id'>): Awaitable<StoredEntry>;
  begin(
    entry: Omit<JournalEntry, 'id' | 'replied_at' | 'duration_ms'>,
  ): Awaitable<{ readonly id: number; finish(done: ReplyTiming): Awaitable<StoredEntry> }>;
  /** Callbacks decided but not answered yet, oldest first. */
  inFlight(): Awaitable<JournalEntry[]>;
  select(filter?: JournalFilter): Awaitable<StoredEntry[]>;
  list(filter?: JournalFilter): Awaitable<JournalEntry[]>;
  count(filter?: JournalFilter): Awaitable<number>;
  /** Calls `listener` with every entry kept from now on; returns the unsubscribe function. */
  subscribe(listener: JournalListener): () => void;
  reset(): Awaitable<void>;
}

export const DEFAULT_JOURNAL_SIZE = 10_000;
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024;

/**
 * The last callbacks, bounded by count (`capacity`) and by the bytes of their JSON text
 * (`maxBytes`): memory stays bounded however long it runs and whatever callers send. Entries are
 * kept as text, so reading the journal streams them without building one giant string.
 */
export class Journal implements JournalStore {
  private entries: StoredEntry[] = [];
  /** Index of the oldest entry in `entries` (a queue without shifting). */
  private head = 0;
  private bytes = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Omit<JournalEntry, 'id'> & { id: number }>();
  private readonly listeners = new Set<JournalListener>();

  constructor(
    readonly capacity = DEFAULT_JOURNAL_SIZE,
    readonly maxBytes = DEFAULT_JOURNAL_BYTES,
  ) {}

  /** Records a finished callback at once. */
  record(entry: Omit<JournalEntry, 'id'>): StoredEntry {
    return this.keep({ id: this.nextId++, ...entry });
  }

  /**
   * Records a callback whose reply is still to come: its id is taken now, it is listed by
   * `inFlight()` until `finish` keeps it with its reply time.
   */
  begin(entry: Omit<JournalEntry, 'id' | 'replied_at' | 'duration_ms'>): PendingEntry {
    const id = this.nextId++;
    const full = { id, ...entry, duration_ms: 0 };
    this.pending.set(id, full);
    return {
      id,
      finish: ({ replied_at, duration_ms, client_gone }) => {
        this.pending.delete(id);
        const { received_at, ...rest } = full;
        return this.keep({ ...rest, id, received_at, replied_at, duration_ms, reply: { ...full.reply, client_gone } });
      },
    };
  }

  /** Callbacks decided but not answered yet, oldest first (no `replied_at`). */
  inFlight(): JournalEntry[] {
    return [...this.pending.values()].map((e) => structuredClone(e));
  }

  private keep(entry: JournalEntry): StoredEntry {
    const text = JSON.stringify(entry);
    const stored: StoredEntry = {
      id: entry.id,
      user_id: entry.user_id,
      event_type: entry.event_type,
      transaction_id: entry.transaction_id,
      text,
    };
    for (const listener of this.listeners) listener(stored);
    if (this.capacity <= 0 || text.length > this.maxBytes) return stored;
    this.entries.push(stored);
    this.bytes += text.length;
    while (this.size > this.capacity || this.bytes > this.maxBytes) this.bytes -= this.entries[this.head++]!.text.length;
    // Drop the evicted slots now and then, so the array does not grow forever.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
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
      if (filter.after !== undefined && e.id <= filter.after) continue;
      if (filter.user_id !== undefined && e.user_id !== filter.user_id) continue;
      if (filter.event_type !== undefined && e.event_type !== filter.event_type) continue;
      if (filter.transaction_id !== undefined && e.transaction_id !== filter.transaction_id) continue;
      hits.push(e);
    }
    // A delayed reply is kept after quicker ones that arrived later: order by arrival (id).
    hits.sort((a, b) => a.id - b.id);
    if (filter.limit === undefined) return hits;
    return filter.after === undefined ? hits.slice(Math.max(0, hits.length - filter.limit)) : hits.slice(0, filter.limit);
  }

  /** Parsed entries, oldest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    return this.select(filter).map((e) => JSON.parse(e.text) as JournalEntry);
  }

  count(filter: JournalFilter = {}): number {
    return this.select(filter).length;
  }

  /** Bytes of JSON text held (what --journal-bytes bounds). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Calls `listener` with every entry kept from now on; returns the unsubscribe function. */
  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  reset(): void {
    this.entries = [];
    this.head = 0;
    this.bytes = 0;
  }
}
