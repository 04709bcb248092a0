// The HTML report's evidence beside each picture says what became of each reply, as the
// timeline's tooltips do: written, dropped, the caller gone, or still unanswered. Before, any
// reply with a time was "answered", a dropped connection and a caller gone before the reply too.
import t from 'tap';
import { formatHtml } from '../../src/grading/format-html.js';
import type { Report, ReportEvidence } from '../../src/protocol/types.generated.js';

const AT = '2026-11-30T09:00:49.708Z';
const LATER = '2026-11-30T09:00:59.708Z';
const LAST = '2026-11-30T09:01:01.708Z';

/** The evidence line of one excerpt, as a failing check's violation shows it. */
function evidenceLine(e: Partial<ReportEvidence>): string {
  const r = {
    generated_at: LAST,
    scenario: 's',
    session: { id: 's1', started_at: AT, seed: null },
    summary: { pass: 0, fail: 1, pending: 0, not_exercised: 0 },
    checks: [
      {
        id: 'LOST_REPLY_RETRIED',
        side: 'provider',
        title: 'Retries',
        severity: 'error',
        status: 'fail',
        exercised: 1,
        violations: [{ message: 'lost', journal_ids: [7], evidence: [{ journal_id: 7, received_at: AT, ...e }] }],
      },
    ],
    open_rounds: [],
    findings: {},
    timing: {},
    forgotten: { transactions: 0, rounds: 0 },
  } as unknown as Report;
  const html = formatHtml(r, { url: 'u', failOn: 'error' });
  const line = /<div><b>#7<\/b> ([^<]*)/.exec(html);
  return line ? line[1]! : '';
}

t.test("each fate in words, with the time the report has for it; 'answered' only for a reply written", async (t) => {
  const rows: [string, Partial<ReportEvidence>, string][] = [
    ['written', { fate: 'written', replied_at: LATER }, `received ${AT}, reply written at ${LATER}`],
    [
      'dropped: the connection closed without a reply',
      { fate: 'dropped', replied_at: AT },
      `received ${AT}, dropped at ${AT} (the connection was closed without a reply)`,
    ],
    [
      'the caller gone before a reply (a 12 s reply, the caller left at +10 s)',
      { fate: 'caller_gone', closed_at: LATER },
      `received ${AT}, the caller gone at ${LATER}, before any reply`,
    ],
    [
      'the caller gone, the reply written after',
      { fate: 'caller_gone', closed_at: LATER, replied_at: LAST, delay_ms: 12_000 },
      `received ${AT}, the caller gone at ${LATER}; the reply written at ${LAST}, after it had gone (held 12 s by a scenario rule)`,
    ],
    ['still unanswered', { fate: 'unanswered' }, `received ${AT}, still unanswered when the check decided`],
    [
      'upstream: the wallet gave no reply',
      { fate: 'no_reply', replied_at: LATER, leg: 'upstream' },
      `received ${AT}, no reply from the wallet (given up at ${LATER})`,
    ],
    [
      'forced',
      { fate: 'written', replied_at: LATER, forced: 'R1' },
      `received ${AT}, reply written at ${LATER} (R1 forced by a scenario rule)`,
    ],
    [
      'what the provider learnt',
      { fate: 'dropped', replied_at: AT, outcome: 'lost', known_at: LATER },
      `received ${AT}, dropped at ${AT} (the connection was closed without a reply; the provider learnt: lost at ${LATER})`,
    ],
    // A report written before fates were kept: its times alone.
    ['no fate, a time', { replied_at: LATER }, `received ${AT}, the reply written or the connection closed at ${LATER}`],
    ['no fate, no time', {}, `received ${AT}, still unanswered when the check decided`],
  ];
  for (const [name, e, want] of rows) t.equal(evidenceLine(e), want, name);
});
