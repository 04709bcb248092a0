import type { Finding } from '../protocol/findings.js';

/** One callback as the simulator saw it: a WireMock "serve event". */
export interface JournalEntry {
  id: number;
  received_at: string;
  duration_ms: number;
  transaction_id?: string;
  event_type?: string;
  user_id?: string;
  request: { method: string; url: string; headers: Record<string, string>; body: unknown };
  reply: { status: number; headers: Record<string, string>; body: unknown; dropped: boolean };
  code?: string;
  reason?: string;
  rule?: { index: number; name: string };
  balance_before?: number;
  balance_after?: number;
  replayed: boolean;
  findings: Finding[];
}

export interface JournalFilter { user_id?: string; event_type?: string; transaction_id?: string; limit?: number }

/** The last `capacity` callbacks, in a ring buffer: memory stays bounded however long it runs. */
export class Journal {
  private entries: JournalEntry[] = [];
  private start = 0;
  private nextId = 1;

  constructor(readonly capacity = 10_000) {}

  record(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const full = { id: this.nextId++, ...entry };
    if (this.capacity <= 0) return full;
    if (this.entries.length < this.capacity) this.entries.push(full);
    else {
      this.entries[this.start] = full;
      this.start = (this.start + 1) % this.capacity;
    }
    return full;
  }

  /** Oldest first; `limit` keeps the newest n. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const ordered = [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
    const hits = ordered.filter((e) =>
      (filter.user_id === undefined || e.user_id === filter.user_id)
      && (filter.event_type === undefined || e.event_type === filter.event_type)
      && (filter.transaction_id === undefined || e.transaction_id === filter.transaction_id));
    return filter.limit === undefined ? hits : hits.slice(Math.max(0, hits.length - filter.limit));
  }

  count(filter: JournalFilter = {}): number {
    return this.list(filter).length;
  }

  reset(): void {
    this.entries = [];
    this.start = 0;
  }
}
