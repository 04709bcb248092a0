import { MaskedHeaders } from '../kernel/secrets.js';
import type { EntryHeaders, JournalEntry, NewEntry, ReplyTiming, StoredEntry } from '../core/exchange.js';
import { type MatchSource, roundFields } from './match.js';

/**
 * A finished callback's entry as it was handed over (the route hands it over and changes it no
 * more), its JSON text made when read: most entries are never read, and making the text of every
 * callback was the journal's whole cost (a sixth of a callback's CPU, with its garbage).
 */
export class KeptEntry implements StoredEntry, ReplyTiming {
  // The reply's timing, copied: no object of its own kept per entry.
  readonly replied_at: string;
  readonly duration_ms: number;
  readonly client_gone: boolean;
  // The filter language's fields (src/journal/match.ts) that lie in the body, read once; the others
  // are the entry's own, read from it (each field kept here is 8 bytes more per entry kept).
  readonly game_no?: string;
  readonly table_no?: string;

  constructor(
    readonly id: number,
    private readonly entry: MatchSource,
    done: ReplyTiming,
  ) {
    this.replied_at = done.replied_at;
    this.duration_ms = done.duration_ms;
    this.client_gone = done.client_gone;
    const round = roundFields(entry.request.body);
    this.game_no = round.game_no;
    this.table_no = round.table_no;
  }

  get user_id(): string | undefined {
    return this.entry.user_id;
  }
  get event_type(): string | undefined {
    return this.entry.event_type;
  }
  get transaction_id(): string | undefined {
    return this.entry.transaction_id;
  }
  get code(): string | undefined {
    return this.entry.code;
  }
  get replayed(): boolean | undefined {
    return this.entry.replayed;
  }
  get rule(): string | undefined {
    return this.entry.rule?.name;
  }

  get text(): string {
    return entryText(this.id, this.entry, this);
  }
}

/** Largest body (characters as received) whose entry is kept as objects rather than text. */
const KEPT_AS_OBJECTS_CHARS = 16 * 1024;

/**
 * At least the length of a finished entry's JSON text, without making it, for an entry that is
 * kept as objects: a body parsed from `chars` characters (an object or array) of a callback with no
 * error finding; undefined for any other entry. Re-written as JSON, a body grows only where a
 * number was written short (`1e20` has 21 digits: at most five times its characters); a header
 * (printable) at most doubles with its escapes; any other string may be caller text, whose
 * control characters take six each. Plus 1,024 characters for the names and fixed fields.
 */
export function textBound(entry: Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>, chars: number): number | undefined {
  const body = entry.request.body;
  if (body === null || typeof body !== 'object' || chars <= 0 || chars > KEPT_AS_OBJECTS_CHARS) return undefined;
  let size = 1024 + 5 * chars + headerChars(entry.request.headers) + headerChars(entry.reply.headers);
  for (const f of entry.findings) {
    if (f.severity === 'error') return undefined;
    size += 64 + escaped(f.message) + escaped(f.pointer);
  }
  size += escaped(entry.request.url) + escaped(entry.reason) + escaped(entry.rule?.name) + escaped(entry.user_id);
  return size + escaped(entry.event_type) + escaped(entry.transaction_id) + jsonChars(entry.reply.body, 2);
}

const escaped = (s: string | undefined) => 6 * (s?.length ?? 0);

/** The longest text JSON.stringify writes for a number (`-2.2250738585072014e-308`). */
const NUMBER_CHARS = 24;

/**
 * At least the length of a value's JSON text: the wallet's reply (a flat object of strings and
 * numbers) bounded field by field, as writing its text cost a microsecond; anything deeper than
 * `depth` (a scenario rule's own reply body) measured by writing it.
 */
function jsonChars(value: unknown, depth: number): number {
  if (typeof value === 'string') return 2 + escaped(value);
  if (typeof value === 'number') return NUMBER_CHARS;
  if (value === null || typeof value !== 'object' || depth === 0 || Array.isArray(value) || 'toJSON' in value)
    return (JSON.stringify(value) as string | undefined)?.length ?? 0;
  let n = 2;
  for (const key of Object.keys(value)) n += 4 + escaped(key) + jsonChars((value as Record<string, unknown>)[key], depth - 1);
  return n;
}

/**
 * Characters of a header object's JSON text at most. Headers masked when written are bounded by
 * the values as received (a masked value is never longer; repeated ones are joined with ", ").
 */
function headerChars(headers: EntryHeaders): number {
  const raw = headers instanceof MaskedHeaders ? MaskedHeaders.rawOf(headers) : headers;
  let n = 0;
  for (const name in raw) {
    const value = raw[name];
    const chars = value === undefined ? 0 : typeof value === 'string' ? value.length : value.join(', ').length;
    n += 6 + 2 * (name.length + chars);
  }
  return n;
}

/**
 * An entry's JSON text: exactly what JSON.stringify writes for `{ id, ...entry }` (a recorded
 * entry) or, for a finished one, for the entry with its reply's timing — `duration_ms`,
 * `received_at`, `replied_at` after the entry's own fields, `client_gone` last in `reply` — but
 * field by field, without copying the entry into new objects first (those copies were a tenth of a
 * callback's CPU, with their garbage).
 */
export function entryText(id: number, entry: object, done?: ReplyTiming): string {
  let text = `{"id":${id}`;
  const fields = entry as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (key === 'id' || (done && (key === 'received_at' || key === 'replied_at' || key === 'duration_ms'))) continue;
    const value = fields[key];
    const json = done && key === 'reply' ? replyText(value, done.client_gone) : JSON.stringify(value);
    if (json !== undefined) text += `,${JSON.stringify(key)}:${json}`;
  }
  if (!done) return `${text}}`;
  const receivedAt = JSON.stringify(fields.received_at);
  return `${text},"duration_ms":${JSON.stringify(done.duration_ms)}${receivedAt === undefined ? '' : `,"received_at":${receivedAt}`},"replied_at":${JSON.stringify(done.replied_at)}}`;
}

/** `{ ...reply, client_gone }` as JSON. */
function replyText(reply: unknown, clientGone: boolean): string {
  const plain =
    reply !== null && typeof reply === 'object' && !Array.isArray(reply) && !Object.hasOwn(reply, 'client_gone') && !('toJSON' in reply);
  if (!plain) return JSON.stringify({ ...(reply as object), client_gone: clientGone });
  const text = JSON.stringify(reply);
  return text === '{}' ? `{"client_gone":${clientGone}}` : `${text.slice(0, -1)},"client_gone":${clientGone}}`;
}

/**
 * An object naming every field of T, optional ones included: the literal below still fails to
 * compile when an entry gains a field it does not write.
 */
type Every<T> = { [K in keyof T]-?: unknown };

/**
 * The text `entryText(0, entry, done)` makes, for an entry of the one shape the pipeline builds
 * (src/core/handle.ts: every field present, in the type's order), written from one literal: a
 * sealed entry's text is made for every callback on Redis, and copying the entry with spreads
 * first cost as much as the writing (test/redis/journal-seal.test.ts checks the text).
 */
export function finishedText(entry: Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>, done: ReplyTiming): string {
  const { reply } = entry;
  const finished: Every<JournalEntry> & { reply: Every<JournalEntry['reply']> } = {
    id: 0,
    transaction_id: entry.transaction_id,
    event_type: entry.event_type,
    user_id: entry.user_id,
    request: entry.request,
    reply: { status: reply.status, headers: reply.headers, body: reply.body, dropped: reply.dropped, client_gone: done.client_gone },
    code: entry.code,
    reason: entry.reason,
    rule: entry.rule,
    balance_before: entry.balance_before,
    balance_after: entry.balance_after,
    replayed: entry.replayed,
    findings: entry.findings,
    upstream: entry.upstream,
    duration_ms: done.duration_ms,
    received_at: entry.received_at,
    replied_at: done.replied_at,
  };
  return JSON.stringify(finished);
}
