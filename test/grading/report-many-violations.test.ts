// A check with more violations than a report keeps (100 a check, the rest counted on a last line):
// the text, the HTML page and the probe's page count them all, and draw at most 20.
import t from 'tap';
import { DEFAULT_THRESHOLDS, grade } from '../../src/grading/grade.js';
import { formatText } from '../../src/grading/format.js';
import { formatHtml } from '../../src/grading/format-html.js';
import { formatProbeHtml } from '../../src/probe/format-html.js';
import type { ProbeReport } from '../../src/probe/types.js';
import { bet, journal, T0 } from './journal-builder.js';

t.test('150 bets without a login: 150 violations counted in the text and on the page', async (t) => {
  const bets = Array.from({ length: 150 }, (_, i) => bet(`p${i}`, `b${i}`, i * 10));
  const r = grade(journal(...bets), DEFAULT_THRESHOLDS, new Date(T0 + 60_000), 'test');
  const c = r.checks.find((c) => c.id === 'LOGIN_BEFORE_BET')!;
  t.equal(c.violations.length, 101, '100 kept, and a line counting the rest');
  const text = formatText(r, { url: 'http://127.0.0.1:1', failOn: 'error', colour: false });
  t.match(text, /… and 145 more \(GET /, 'the five shown, and the 145 others (before: 96)');
  const html = formatHtml(r, { url: 'http://127.0.0.1:1', failOn: 'error' });
  t.match(
    html,
    /The first 20 of 150 violations are drawn; the first 100 are listed above, the rest counted\./,
    '(before: "of 101 … all are listed")',
  );
});

t.test("the probe's page draws the first 20 of a wallet check's violations, and says how many there were", async (t) => {
  const evidence = (i: number) => ({
    journal_id: i,
    received_at: new Date(T0 + i * 1000).toISOString(),
    replied_at: new Date(T0 + i * 1000 + 50).toISOString(),
    leg: 'upstream' as const,
    fate: 'written' as const,
    transaction_id: `tx${i}`,
    event_type: 'bet',
  });
  const violations = Array.from({ length: 30 }, (_, i) => ({ message: `m${i}`, journal_ids: [i + 1], evidence: [evidence(i + 1)] }));
  const check = {
    id: 'WALLET_REPLY_VALID',
    title: 't',
    severity: 'error',
    status: 'fail',
    exercised: 30,
    detail: 'd',
    fix: 'f',
    violations,
  };
  const report = {
    target: { url: 'http://127.0.0.1:1', user: 'u', currency: 'USD', scale: 2 },
    startedAt: new Date(T0).toISOString(),
    exchanges: [],
    durationMs: 1,
    latency: [],
    checks: [],
    unsettled: [],
    balance: {},
    walletChecks: [check],
  } as unknown as ProbeReport;
  const html = formatProbeHtml(report);
  t.equal(html.match(/<svg class="timeline"/g)?.length, 20, '20 drawn (before: all 30)');
  t.match(html, /The first 20 of 30 violations are drawn\./);
});
