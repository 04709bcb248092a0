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
 * One cited attempt as a violation keeps it: its times and bounded excerpts of its request (headers
 * as journalled, secrets masked as they are written here) and reply, so the HTML report shows them
 * after the journal has rotated the entry out.
 */
export function excerptOf(a: Attempt): ReportEvidence {
  const e: ReportEvidence = { journal_id: a.id, received_at: new Date(a.at).toISOString() };
  if (a.end !== undefined) e.replied_at = new Date(a.end).toISOString();
  if (a.source) {
    const body = a.source.request.body;
    // A graded body is kept as an excerpt of its JSON text: shown as the JSON it is, not as a string.
    e.request = isGraded(body)
      ? cut(`{"headers":${json(a.source.request.headers)},"body":${body.excerpt}}`)
      : cut(json({ headers: a.source.request.headers, body }));
    e.reply = cut(json({ status: a.source.reply.status, body: a.source.reply.body }));
  }
  return e;
}
