import type { ReportEvidence } from '../protocol/types.generated.js';
import type { Attempt } from './attempt.js';
import { isGraded } from './graded-body.js';

/** Characters kept of a request's or a reply's JSON in a violation's evidence. */
export const EXCERPT_CHARS = 2000;

const cut = (text: string) => (text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}… (${text.length} characters)`);

const json = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return '(not serialisable)';
  }
};

/** What became of an attempt's reply by the time a check cited it (the report's `fate`). */
function fateOf(a: Attempt): NonNullable<ReportEvidence['fate']> {
  if (a.end === undefined) return a.closedAt === undefined ? 'unanswered' : 'caller_gone';
  if (a.fault?.dropped) return 'dropped';
  return a.closedAt !== undefined && a.closedAt <= a.end ? 'caller_gone' : 'written';
}

/**
 * One cited attempt as a violation keeps it (`origin`: its session's, Grader.origin): its times, what
 * became of its reply (written, dropped, held by a rule, forced), what the provider learnt and when,
 * and bounded excerpts of its request (headers as journalled, secrets masked as they are written
 * here) and reply, so the HTML report shows them, and draws them, after the journal has rotated the
 * entry out. A dropped reply's excerpt says it was never sent; one not written yet, that it was not.
 */
export function excerptOf(a: Attempt, origin: number): ReportEvidence {
  const iso = (t: number) => new Date(origin + t).toISOString();
  const e: ReportEvidence = { journal_id: a.id, received_at: iso(a.at) };
  if (a.end !== undefined) e.replied_at = iso(a.end);
  e.transaction_id = a.tx;
  e.event_type = a.event;
  e.fate = fateOf(a);
  if (a.fault?.delayMs) e.delay_ms = a.fault.delayMs;
  if (a.fault?.forced !== undefined) e.forced = a.fault.forced;
  if (a.closedAt !== undefined) e.closed_at = iso(a.closedAt);
  e.outcome = a.outcome;
  if (a.knownAt !== undefined) e.known_at = iso(a.knownAt);
  e.attempt = a.nth + 1;
  if (a.headers && a.reply) {
    const body = a.body;
    // A graded body is kept as an excerpt of its JSON text: shown as the JSON it is, not as a string.
    e.request = isGraded(body) ? cut(`{"headers":${json(a.headers)},"body":${body.excerpt}}`) : cut(json({ headers: a.headers, body }));
    const reply = { status: a.reply.status, body: a.reply.body };
    // A reply not written when the check cited it (held by a rule, or still being answered) is quoted as
    // decided, not as sent: no time of its writing is known yet (a rule's hold says when it was due).
    const unwritten =
      a.end === undefined
        ? { not_yet_written: true, decided: reply, ...(a.fault?.delayMs ? { held_ms: a.fault.delayMs } : {}) }
        : undefined;
    e.reply = cut(json(e.fate === 'dropped' ? { dropped: true, never_sent: reply } : (unwritten ?? reply)));
  }
  return e;
}
