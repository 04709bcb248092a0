import type { Redis } from 'ioredis';
import { DEFAULT_REDIS_TIMEOUT_MS, REDIS_OPTIONS } from '../backends/redis/connection.js';
import { readyWithin } from '../backends/redis/channels.js';
import { finishedText } from './entry-text.js';
import { ADD, type JournalClient, RESET } from './redis-journal-scripts.js';
import { JournalIds } from './journal-ids.js';
import {
  admitInFlight,
  DEFAULT_JOURNAL_BYTES,
  DEFAULT_JOURNAL_SIZE,
  type JournalEntry,
  type JournalFilter,
  type JournalListener,
  type JournalStore,
  type NewEntry,
  type ReplyTiming,
  page,
  type StoredEntry,
} from './journal.js';
import { type MatchFields, matchFields, matches } from './match.js';
import type { SealedEntry } from '../ledger/store.js';

/**
 * The journal of every wallet-sim process sharing one Redis: a capped stream, so /admin/journal,
 * the report and the dashboard of any process see every callback whichever process served it.
 * Entry ids come from one counter (`journal:id`), so they are unique and in the order decided across
 * processes.
 *
 * Bounded as the in-memory journal is: by --journal-size entries and by --journal-bytes characters
 * of entry JSON, the oldest entries going first, in one script with the add (every process sees
 * the same bound). Differences, said plainly: callbacks still being answered (`inFlight`, a
 * `delay_ms` in progress) are known to the process serving them only. While Redis is unreachable entries are not kept (the callback
 * is still answered; its log line has it).
 *
 *   journal       stream: fields id, n (the JSON's length: the byte bound's), e (the entry's JSON). A filter
 *                 reads the JSON (once per entry read): the entry's fields are not repeated beside it, as
 *                 every callback paid for them in Redis and only admin reads use them. Entries written
 *                 by a wallet-sim before 29 Nov 2026 (session 20) also hold u, ev, tx, rp, c, r, g, tb:
 *                 still read.
 *   journal:id    the last id given
 *   journal:bytes the characters of JSON the stream holds (the sum of its entries' n)
 *   journal:sizes "<stream id> <n>" of each entry, oldest first: a full journal drops its oldest
 *                 without reading it (src/backends/redis/journal-add.ts)
 *   journal:floor the last id given when the journal was last cleared: a callback begun before (its id
 *                 at most this), answered after (a delay_ms), is not kept in the journal cleared meanwhile
 */
export class RedisJournal implements JournalStore {
  private readonly pending = new Map<number, Omit<NewEntry, 'id'> & { id: number }>();
  private readonly listeners = new Set<JournalListener>();
  private reader?: Redis;

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    readonly capacity = DEFAULT_JOURNAL_SIZE,
    readonly maxBytes = DEFAULT_JOURNAL_BYTES,
    /** Why Redis cannot serve now (the store's link): entries are then not waited for. */
    private readonly unavailable: () => string | undefined = () => undefined,
  ) {
    // EVALSHA (the script is sent once per connection), as the store's own scripts are.
    client.defineCommand('walletJournalAdd', { numberOfKeys: 3, lua: ADD });
    client.defineCommand('walletJournalReset', { numberOfKeys: 4, lua: RESET });
    this.ids = new JournalIds(client, `${prefix}journal:id`, unavailable);
  }

  private readonly ids: JournalIds;

  private get streamKey(): string {
    return `${this.prefix}journal`;
  }

  private get bytesKey(): string {
    return `${this.prefix}journal:bytes`;
  }

  /** The last id given before the journal was last cleared: an entry begun before it is not kept. */
  private get floorKey(): string {
    return `${this.prefix}journal:floor`;
  }

  async record(entry: Omit<NewEntry, 'id'>): Promise<StoredEntry> {
    return this.keep({ id: await this.nextId(), ...entry });
  }

  /** Bodies of this process's callbacks in flight, counted against --journal-bytes as in memory. */
  private inFlightBytes = 0;

  async begin(entry: Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>, chars = 0) {
    const held = admitInFlight(entry, chars, this.inFlightBytes, this.maxBytes);
    this.inFlightBytes += held;
    const id = await this.nextId();
    const full = { id, ...entry, duration_ms: 0 };
    if (id) this.pending.set(id, full);
    return {
      id,
      finish: ({ replied_at, duration_ms, client_gone }: ReplyTiming): Promise<StoredEntry> => {
        this.pending.delete(id);
        this.inFlightBytes -= held;
        const { received_at, ...rest } = full;
        return this.keep({ ...rest, id, received_at, replied_at, duration_ms, reply: { ...full.reply, client_gone } });
      },
    };
  }

  /**
   * The entry of a callback answered at once, as its commit script writes it (src/backends/redis/commit.ts):
   * finished as `begin` + `finish` would, its JSON without the id (the script numbers it). Undefined
   * when it must go apart: not kept (no room in the bounds) or Redis away (the commit fails anyway).
   */
  seal(entry: Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>, timing: ReplyTiming) {
    const text = finishedText(entry, timing);
    // (an id of 16 digits at most)
    if (this.capacity <= 0 || text.length + 16 > this.maxBytes || this.unavailable()) return undefined;
    const tail = text.slice(ID_ZERO.length);
    const sealed: SealedEntry = {
      keys: [this.streamKey, this.bytesKey, this.ids.key],
      capacity: this.capacity,
      maxBytes: this.maxBytes,
      tail,
      chars: text.length - 1,
    };
    const match = matchFields(entry);
    return { entry: sealed, stored: (id: number): StoredEntry => ({ id, ...match, text: `{"id":${id}${tail}` }) };
  }

  /** 0 when Redis cannot give one (or the journal is closed): the entry is then not kept. */
  private async nextId(): Promise<number> {
    const id = this.closed ? 0 : await this.ids.next();
    if (id) this.unwritten.add(id);
    return id;
  }

  /** Ids this process gave and has not written (or given up) yet: a page forward ends before the oldest (journal.ts, `page`). */
  private readonly unwritten = new Set<number>();

  private keep(entry: NewEntry & { id: number }): Promise<StoredEntry> {
    return this.write(entry).finally(() => this.unwritten.delete(entry.id));
  }

  /** Closed with its store: a callback still answered writes nothing more (hosted mode: its tenant deleted, its keys swept). */
  private closed = false;

  inFlight(): JournalEntry[] {
    // Through JSON, as every reader gets an entry: its headers masked.
    return [...this.pending.values()].filter((e) => e.id > this.floor).map((e) => JSON.parse(JSON.stringify(e)) as JournalEntry);
  }

  private async write(entry: NewEntry & { id: number }): Promise<StoredEntry> {
    const text = JSON.stringify(entry);
    const stored: StoredEntry = { id: entry.id, ...matchFields(entry), text };
    if (!entry.id || this.capacity <= 0 || text.length > this.maxBytes || this.closed) return stored;
    // Not kept (id 0): Redis is away. The route then answers an R0 with R1 (see `unjournalled`).
    if (this.unavailable()) return { ...stored, id: 0 };
    try {
      const keys = [this.streamKey, this.bytesKey, this.floorKey];
      const client = this.client as JournalClient;
      // (-1: a reset, by any process, cleared the journal while it was answered, a delay_ms: the journal it began in is gone)
      await client.walletJournalAdd(...keys, this.capacity, this.maxBytes, text.length, ...streamFields(stored));
    } catch {
      return { ...stored, id: 0 };
    }
    return stored;
  }

  async select(filter: JournalFilter = {}): Promise<StoredEntry[]> {
    const hits: StoredEntry[] = [];
    // Read in pages: the stream is bounded by --journal-size, each page by 1,000 entries.
    for (let from = '-'; ;) {
      const entries = await this.client.xrange(this.streamKey, from, '+', 'COUNT', 1000);
      for (const [, fields] of entries) {
        const e = toStored(fields);
        if ((filter.after === undefined || e.id > filter.after) && matches(e, filter)) hits.push(e);
      }
      if (entries.length < 1000) break;
      from = `(${entries.at(-1)![0]}`;
    }
    // Kept in reply order; listed in arrival order (id), as the in-memory journal does.
    return page(hits, filter, filter.after === undefined ? Infinity : await this.oldestUnwritten());
  }

  /** The oldest id given here not written yet, above the floor of the last reset by any process (one at or below it was cleared). */
  private async oldestUnwritten(): Promise<number> {
    if (!this.unwritten.size) return Infinity;
    const floor = Math.max(this.floor, Number((await this.client.get(this.floorKey)) ?? 0));
    return Math.min(...[...this.unwritten].filter((id) => id > floor));
  }

  async list(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    return (await this.select(filter)).map((e) => JSON.parse(e.text) as JournalEntry);
  }

  async count(filter: JournalFilter = {}): Promise<number> {
    return (await this.select(filter)).length;
  }

  async reset(): Promise<void> {
    const floor = await (this.client as JournalClient).walletJournalReset(this.streamKey, this.bytesKey, this.ids.key, this.floorKey);
    this.floor = Number(floor);
  }

  /** The floor as this process's own last reset set it: its callbacks begun before are not listed in flight. */
  private floor = 0;

  /**
   * Every entry added to the stream from now on, by any process: read on a connection of its own
   * (XREAD BLOCK), started with the first listener and stopped with the last.
   */
  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    // From now, by the clock (stream ids start with Redis's time in ms): the reader's connection
    // is not up yet, and "$" would miss what is added meanwhile.
    if (!this.reader) void this.follow(`${Date.now()}-0`);
    return () => {
      this.listeners.delete(listener);
      if (!this.listeners.size) this.stopReading();
    };
  }

  private stopReading(): void {
    this.reader?.disconnect();
    this.reader = undefined;
  }

  private async follow(from: string): Promise<void> {
    // XREAD BLOCK 5000 waits 5 s by design: its time-out is the block plus the commands' own.
    const commandTimeout = BLOCK_MS + (this.client.options.commandTimeout ?? DEFAULT_REDIS_TIMEOUT_MS);
    const reader = this.client.duplicate({ ...REDIS_OPTIONS, commandTimeout, lazyConnect: true });
    reader.on('error', () => {
      /* reconnects by itself */
    });
    this.reader = reader;
    let last = from;
    await readyWithin(reader); // (not ready in time: XREAD fails and is tried again below)
    while (this.reader === reader) {
      try {
        const reply = await reader.xread('COUNT', 1000, 'BLOCK', BLOCK_MS, 'STREAMS', this.streamKey, last);
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            last = id;
            const stored = toStored(fields);
            for (const listener of this.listeners) listener(stored);
          }
        }
      } catch {
        // Disconnected (or stopped): wait for the reconnect.
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.stopReading();
  }
}

/** The stream fields of an entry (see the key list above). */
const streamFields = (e: StoredEntry): string[] => ['id', String(e.id), 'n', String(e.text.length), 'e', e.text];

function toStored(fields: string[]): StoredEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  const opt = (v: string | undefined) => (v ? v : undefined);
  const id = Number(f.id);
  const text = f.e ?? '{}';
  // Written without the filter's fields (as now, and by a wallet-sim from before `rp` was in the stream): read them from the JSON.
  if (f.rp === undefined) return { id, ...fieldsOfText(text), text };
  const [replayed, code, rule, game_no, table_no] = [f.rp === '1', f.c, f.r, f.g, f.tb];
  return { id, user_id: opt(f.u), event_type: opt(f.ev), transaction_id: opt(f.tx), replayed, code, rule, game_no, table_no, text };
}

function fieldsOfText(text: string): MatchFields {
  try {
    const entry = JSON.parse(text) as Partial<JournalEntry>;
    return matchFields({ ...entry, replayed: entry.replayed === true, request: { body: entry.request?.body } });
  } catch {
    return {};
  }
}

const BLOCK_MS = 5000;
/** How an entry's JSON begins before its id is known: `{"id":0`. */
const ID_ZERO = '{"id":0';
