import type { JournalMatch } from '../protocol/types.generated.js';
import type { JournalEntry, MatchFields } from '../core/exchange.js';

export type { MatchFields } from '../core/exchange.js';

/*
 * The journal's one filter language (schemas/journal-match.schema.json, `JournalMatch`): the
 * `where` of an expectations file, the query of GET /admin/journal and GET /admin/events, the
 * filters of `wallet-sim tail`. Every listed field must equal; an empty match takes every entry.
 */

export type { JournalMatch };

/** The parts of an entry the fields come from (a recorded entry, finished or not). */
export type MatchSource = Pick<JournalEntry, 'user_id' | 'event_type' | 'transaction_id' | 'code' | 'replayed' | 'rule'> & {
  request: { body: unknown };
};

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The fields of an entry: a few property reads, done once per callback. */
export function matchFields(e: MatchSource): MatchFields {
  const { game_no, table_no } = roundFields(e.request.body);
  return {
    user_id: e.user_id,
    event_type: e.event_type,
    transaction_id: e.transaction_id,
    game_no,
    table_no,
    code: e.code,
    replayed: e.replayed,
    rule: e.rule?.name,
  };
}

/** The fields of a request body that name its round: data.game_no and data.table_no, when strings. */
export function roundFields(body: unknown): { game_no?: string; table_no?: string } {
  const data = body !== null && typeof body === 'object' ? (body as { data?: unknown }).data : undefined;
  const round = data !== null && typeof data === 'object' ? (data as { game_no?: unknown; table_no?: unknown }) : undefined;
  return { game_no: text(round?.game_no), table_no: text(round?.table_no) };
}

/** Whether an entry's fields pass `m` (absent or empty: every entry). Reads only the language's fields of `m`. */
export function matches(e: MatchFields, m: JournalMatch | undefined): boolean {
  if (!m) return true;
  return (
    (m.user_id === undefined || e.user_id === m.user_id) &&
    (m.event_type === undefined || e.event_type === m.event_type) &&
    (m.transaction_id === undefined || e.transaction_id === m.transaction_id) &&
    (m.code === undefined || e.code === m.code) &&
    (m.replayed === undefined || e.replayed === m.replayed) &&
    (m.rule === undefined || e.rule === m.rule) &&
    (m.game_no === undefined || e.game_no === m.game_no) &&
    (m.table_no === undefined || e.table_no === m.table_no)
  );
}

/** A match as text, field by field as given: "user_id=player-1 event_type=bet"; "all callbacks" when empty. */
export const describeMatch = (m: JournalMatch | undefined): string =>
  m && Object.keys(m).length
    ? Object.entries(m)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')
    : 'all callbacks';
