// The JUnit failure's message attribute is the headline a CI page shows for a failing check: it
// counts every violation (the ones the report lists and the ones it only counts), quotes the
// first on one bounded line, and leaves the listing of all to the failure's body.
import t from 'tap';
import { XMLParser } from 'fast-xml-parser';
import { formatJUnit } from '../../src/grading/format.js';
import { probeJUnit } from '../../src/probe/report.js';
import type { ProbeReport } from '../../src/probe/types.js';
import { listedViolations } from '../../src/grading/listed-violations.js';
import type { Report, ReportCheck, ReportViolation } from '../../src/protocol/types.generated.js';

const lost = (n: number): ReportViolation => ({
  message: `the reply to bet b${n} of p1 (#${n}) was lost (the connection was closed without a reply) and the transaction was never resent within 60 s`,
  journal_ids: [n],
});

function reportOf(check: Partial<ReportCheck>): Report {
  return {
    generated_at: new Date(0).toISOString(),
    scenario: 's',
    session: { id: 's1', started_at: new Date(0).toISOString(), seed: null },
    summary: { pass: 0, fail: 1, pending: 0, not_exercised: 0 },
    checks: [
      {
        id: 'LOST_REPLY_RETRIED',
        side: 'provider',
        title: 'Retries a transaction whose reply was lost',
        severity: 'error',
        status: 'fail',
        exercised: 18,
        detail: '18 bet/bet_result transactions with a lost reply: 12 passed, 6 failed, 0 still within a window',
        fix: 'resend it',
        violations: [],
        ...check,
      },
    ],
    open_rounds: [],
    findings: {},
  } as unknown as Report;
}

/** The failing (or skipped) test case's message attribute and body. */
function failure(r: Report, failOn = 'error'): { message: string; body: string } {
  const xml = new XMLParser({ ignoreAttributes: false }).parse(formatJUnit(r, { url: 'u', failOn }));
  const c = xml.testsuites.testsuite.testcase;
  const f = c.failure ?? c.skipped;
  return { message: f['@_message'], body: typeof f === 'string' ? f : (f['#text'] ?? '') };
}

t.test('the headline counts the violations; the body lists each', async (t) => {
  const rows: [string, ReportViolation[], RegExp | string][] = [
    ['one violation: its message alone', [lost(1)], lost(1).message],
    ['six: the count, the first, how many more', [1, 2, 3, 4, 5, 6].map(lost), /^6 violations: the reply to bet b1 .* \(and 5 more\)$/],
    [
      'more than the report keeps: the ones only counted are counted too',
      listedViolations([1, 2].map(lost), 40, 'LOST_REPLY_RETRIED'),
      /^42 violations: the reply to bet b1 .* \(and 41 more\)$/,
    ],
    ['none listed: the detail', [], /^18 bet\/bet_result transactions/],
  ];
  for (const [name, violations, want] of rows) {
    const { message, body } = failure(reportOf({ violations }));
    if (typeof want === 'string') t.equal(message, want, name);
    else t.match(message, want, name);
    for (const v of violations) if (v.journal_ids.length) t.match(body, v.message, `${name}: the body lists ${v.message.slice(0, 22)}`);
  }
});

t.test('the headline stays one line of bounded length', async (t) => {
  const long: ReportViolation = { message: `first line\nsecond line ${'x'.repeat(5000)}`, journal_ids: [1] };
  const { message } = failure(reportOf({ violations: [long, lost(2)] }));
  t.notMatch(message, /\n/, 'one line');
  t.ok(message.length <= 300, `bounded (${message.length} characters)`);
  t.match(message, /^2 violations: first line second line x+… \(and 1 more\)$/);
});

t.test('a failing warning that does not fail the run: its skip message counts them too', async (t) => {
  const { message } = failure(reportOf({ severity: 'warning', violations: [1, 2, 3].map(lost) }));
  t.match(message, /^warning \(does not fail at --fail-on error\): 3 violations: the reply to bet b1 .* \(and 2 more\)$/);
});

/** A probe report of these checks, as JUnit parsed. */
function probeXml(checks: object[], walletChecks: object[]) {
  const report = {
    target: { url: 'http://127.0.0.1:1/callback', user: 'p1', currency: 'USD', scale: 2 },
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    checks,
    walletChecks,
    exchanges: [],
    latency: [],
    unsettled: [],
    balance: {},
  } as unknown as ProbeReport;
  return new XMLParser({ ignoreAttributes: false }).parse(probeJUnit(report));
}

t.test("probe's wallet checks: the same headline (before: every violation joined on one line)", async (t) => {
  const violations = Array.from({ length: 30 }, (_, i) => lost(i + 1));
  const xml = probeXml(
    [],
    [{ id: 'WALLET_REPLY_VALID', side: 'wallet', title: 't', severity: 'error', status: 'fail', exercised: 30, fix: 'f', violations }],
  );
  const message = xml.testsuites.testsuite[1].testcase.failure['@_message'];
  t.match(message, /^30 violations: the reply to bet b1 .* \(and 29 more\)$/);
  // The body carries every violation (the terminal shows three): it said "… and 27 more".
  const body = xml.testsuites.testsuite[1].testcase.failure['#text'] as string;
  for (let i = 1; i <= 30; i++) t.match(body, new RegExp(`bet b${i}\\b`), `violation ${i} in the body`);
  t.notMatch(body, /and \d+ more/);
});

t.test(
  'probe: a check passed with a warning, and a wallet check failing at warning severity, carry it in the case (before: a plain pass)',
  async (t) => {
    const xml = probeXml(
      [
        {
          name: 'login: unknown player',
          status: 'pass',
          durationMs: 1,
          assertions: [],
          warnings: ['the wallet created player zz-new (balance 0)'],
        },
        { name: 'login', status: 'pass', durationMs: 1, assertions: [] },
      ],
      [
        {
          id: 'WALLET_LATENCY',
          side: 'wallet',
          title: 't',
          severity: 'warning',
          status: 'fail',
          exercised: 1,
          fix: 'f',
          violations: [lost(1)],
        },
      ],
    );
    const [warned, plain] = xml.testsuites.testsuite[0].testcase;
    t.equal(warned['system-out'], 'WARNING: the wallet created player zz-new (balance 0)', 'the probe check');
    t.notOk(warned.failure, 'still a pass');
    t.notOk(plain['system-out'], 'a plain pass has no output');
    const wallet = xml.testsuites.testsuite[1].testcase;
    t.match(wallet['system-out'], /^WARNING: the reply to bet b1/, 'the wallet check');
    t.equal(xml.testsuites['@_failures'], '0', 'no failure counted');
  },
);
