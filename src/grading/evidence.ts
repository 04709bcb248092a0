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

/**
 * One cited attempt as a violation keeps it (`origin`: its session's, Grader.origin): its times and
 * bounded excerpts of its request (headers as journalled, secrets masked as they are written here)
 * and reply, so the HTML report shows them after the journal has rotated the entry out.
 */
export function excerptOf(a: Attempt, origin: number): ReportEvidence {
  const e: ReportEvidence = { journal_id: a.id, received_at: new Date(origin + a.at).toISOString() };
  if (a.end !== undefined) e.replied_at = new Date(origin + a.end).toISOString();
  if (a.headers && a.reply) {
    const body = a.body;
    // A graded body is kept as an excerpt of its JSON text: shown as the JSON it is, not as a string.
    e.request = isGraded(body) ? cut(`{"headers":${json(a.headers)},"body":${body.excerpt}}`) : cut(json({ headers: a.headers, body }));
    e.reply = cut(json({ status: a.reply.status, body: a.reply.body }));
  }
  return e;
}
