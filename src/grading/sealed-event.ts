import type { Completion, JournalledExchange } from '../core/exchange.js';
import type { Arrival } from './attempt.js';
import { arrivalOf } from './feed.js';

/**
 * A callback answered at once, as its commit script wrote it (src/backends/redis/commit.ts):
 * arrival, completion and findings (the `a`, `c` and `f` events in one), its journal id `i` a field
 * of its own (the script numbers the entry).
 */
export interface SealedEvent {
  t: 's';
  a?: Arrival;
  d?: Completion;
  u?: string;
  c?: string[];
  i?: number;
}

/**
 * What grading reads of a reply body (`replyOutcome`, `replyBalance` in src/grading/attempt.ts):
 * its code when a string, its latest_balance when a number; whatever else a rule's body holds is
 * in the journal, not needed to fold.
 */
export function replyFacts(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { code, latest_balance } = body as { code?: unknown; latest_balance?: unknown };
  return {
    code: typeof code === 'string' ? code : undefined,
    latest_balance: typeof latest_balance === 'number' ? latest_balance : undefined,
  };
}

/** The one grading event (JSON) of a callback answered at once; undefined: nothing to grade. */
export function sealedEvent(x: JournalledExchange, d: Completion, codes: Iterable<string>): string | undefined {
  const a = arrivalOf(x);
  const c = [...codes];
  if (!a && !c.length) return undefined;
  const u = x.out.entry.user_id;
  const e: SealedEvent = { t: 's' };
  // As `arrive` and `complete` write them: of the reply, what evidence cites and folding reads.
  if (a)
    Object.assign(e, {
      a: a.reply ? { ...a, reply: { status: a.reply.status, body: a.reply.body } } : a,
      d: { ...d, body: replyFacts(d.body) },
    });
  if (c.length) Object.assign(e, u === undefined ? { c } : { u, c });
  return JSON.stringify(e);
}
