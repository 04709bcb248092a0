import { type JUnitCase, junitXml } from '../report/junit.js';
import { terminalText } from '../text/terminal-text.js';
import type { Report, ReportCheck } from '../protocol/types.generated.js';
import { FINDINGS } from '../protocol/findings.js';
import { violationsHeadline, violationTally } from './listed-violations.js';
import { sidesOf } from './sides.js';
import { failingWarnings, sessionLine, timingPhrases, warningsLine } from './timing-text.js';

/*
 * The report for people: a terminal checklist, JUnit for CI (one test case per check) and a
 * self-contained HTML page to attach to a certification ticket.
 */

/** `--fail-on`: a comma list of `warning` and `pending` (`error`, the default, adds nothing: failing errors always fail). */
export type FailOn = string;

/**
 * A check that fails the run at this --fail-on: a failing error always; a failing warning with
 * `warning`; a check still pending with `pending`; one nothing exercised with `not_exercised`.
 */
export const failsRun = (c: ReportCheck, failOn: FailOn) =>
  (c.status === 'fail' && (c.severity === 'error' || failOn.split(',').includes('warning'))) ||
  (c.status === 'pending' && failOn.split(',').includes('pending')) ||
  (c.status === 'not_exercised' && failOn.split(',').includes('not_exercised'));

/** The findings of the session that refused a callback (R2/R3: the caller's errors), as `CODE ×n`. */
export function refusingFindings(r: Report): string[] {
  return Object.entries(r.findings)
    .filter(([code]) => (FINDINGS as Record<string, readonly [string, string]>)[code]?.[0] === 'error')
    .map(([code, n]) => `${code} ×${n}`);
}

/** Whether the run fails at this --fail-on: a check fails it, or (`findings`) a callback was refused for the caller's error. */
export const runFails = (r: Report, failOn: FailOn): boolean =>
  r.checks.some((c) => failsRun(c, failOn)) || (failOn.split(',').includes('findings') && refusingFindings(r).length > 0);

export const LABEL: Record<ReportCheck['status'], string> = {
  pass: 'PASS',
  fail: 'FAIL',
  pending: 'PENDING',
  not_exercised: 'NOT EXERCISED',
};
const MARK: Record<ReportCheck['status'], string> = { pass: '✓', fail: '✗', pending: '…', not_exercised: '-' };
const COLOUR: Record<ReportCheck['status'], number> = { pass: 32, fail: 31, pending: 33, not_exercised: 90 };
const SHOWN = 5;

const evidence = (c: ReportCheck) =>
  c.violations.slice(0, SHOWN).map((v) => `${v.journal_ids.length ? `#${v.journal_ids.join(' #')} ` : ''}${terminalText(v.message)}`);

/** The admin API's path under the URL the report was read from (a hosted tenant's: /t/<id>/admin). */
function adminPathOf(url: string): string {
  try {
    return `${new URL(url).pathname.replace(/\/+$/, '')}/admin`;
  } catch {
    return '/admin';
  }
}

export function formatText(r: Report, o: { url: string; failOn: FailOn; colour: boolean }): string {
  const paint = (code: number, s: string) => (o.colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const admin = adminPathOf(o.url);
  const t = r.thresholds;
  const out = [
    `wallet-sim report → ${o.url} · scenario ${r.scenario}${r.user_id === undefined ? '' : ` · player ${terminalText(r.user_id)}`} · ${r.generated_at}`,
    ...(r.upstream === undefined
      ? []
      : [`wallet under test: ${terminalText(r.upstream)} (proxy mode: every callback was forwarded there)`]),
    sessionLine(r),
    ...(t
      ? [
          `thresholds: retry window ${t.retry_window_s} s, client time-out ${t.client_timeout_s} s, retries ≥ ${t.min_retry_gap_ms} ms apart, ≤ ${t.max_attempts} attempts, rounds settled within ${t.round_max_age_s} s`,
        ]
      : []),
    ...(t ? [`timing: ${timingPhrases(r, (x) => paint(33, `${x} (!)`)).join(' · ')}`] : []),
    '',
  ];
  const sides = sidesOf(r);
  for (const { heading, checks } of sides) {
    if (sides.length > 1) out.push(o.colour ? `\u001b[1m${heading}\u001b[0m` : heading);
    for (const c of checks) {
      // (a warning's severity matters only when it fails: it does not fail the run; "PASS (warning)" read as passed with a warning)
      const label = `${MARK[c.status]} ${LABEL[c.status]}${c.severity === 'warning' && c.status === 'fail' ? ' (warning)' : ''}`;
      out.push(`${paint(COLOUR[c.status], label.padEnd(24))} ${o.colour ? `\u001b[1m${c.id}\u001b[0m` : c.id}  ${c.title}`);
      const pad = ' '.repeat(25);
      if (c.detail) out.push(`${pad}why: ${c.detail}`);
      if (c.status === 'fail') {
        if (c.fix) out.push(`${pad}fix: ${c.fix}`);
        for (const line of evidence(c)) out.push(`${pad}evidence: ${line}`);
        const { total } = violationTally(c.violations);
        if (total > SHOWN) out.push(`${pad}… and ${total - SHOWN} more (GET ${admin}/report)`);
      }
    }
  }
  const s = r.summary;
  out.push('', `${r.checks.length} checks: ${s.pass} pass, ${s.fail} fail, ${s.pending} pending, ${s.not_exercised} not exercised`);
  if (r.open_rounds.length)
    out.push(
      `open rounds: ${r.open_rounds.map((x) => `${terminalText(x.user_id)} ${terminalText(x.game_no)} (stake ${x.stake}, ${x.age_s} s old)`).join('; ')}`,
    );
  if (r.forgotten.transactions || r.forgotten.rounds)
    out.push(
      `forgotten: the session's ${r.forgotten.transactions} oldest transactions and ${r.forgotten.rounds} oldest rounds (grading state is bounded; they were judged until then)`,
    );
  const findings = Object.entries(r.findings);
  if (findings.length)
    out.push(`findings in single callbacks: ${findings.map(([code, n]) => `${code} ×${n}`).join(', ')} (GET ${admin}/journal)`);
  const failing = r.checks.filter((c) => failsRun(c, o.failOn));
  const warnings = failingWarnings(r);
  if (warnings && !failing.some((c) => c.severity === 'warning')) out.push(warningsLine(r));
  const refused = refusingFindings(r);
  const onFindings = o.failOn.split(',').includes('findings') && refused.length > 0;
  // A green line over a session that proved nothing, or refused the caller's callbacks, says so.
  if (!failing.length && !onFindings) {
    if (r.checks.every((c) => c.status === 'not_exercised'))
      out.push(paint(33, 'note: no check was exercised, so none could fail (--fail-on not_exercised fails such a run)'));
    // In proxy mode the wallet answered them, not wallet-sim: they were not graded.
    const had = r.upstream === undefined ? 'were refused for' : 'had (the provider checks grade none of them)';
    if (refused.length)
      out.push(paint(33, `note: callbacks ${had} the caller's errors: ${refused.join(', ')} (--fail-on findings fails such a run)`));
    const provider = r.checks.filter((c) => c.side !== 'wallet');
    if (r.findings.CREDENTIALS_WRONG && provider.every((c) => c.status === 'not_exercised'))
      out.push(
        paint(
          33,
          "note: no callback carried the scenario's credentials, so no provider check graded any: if the provider's are right, " +
            "the scenario's credentials are wrong (GET /admin/scenario shows them)",
        ),
      );
  }
  const named = [...failing.map((c) => c.id), ...(onFindings ? [`findings ${refused.join(', ')}`] : [])];
  out.push(
    named.length
      ? paint(31, `FAIL: ${named.join(', ')} (--fail-on ${o.failOn})`)
      : paint(32, `OK: no check fails at --fail-on ${o.failOn}`),
  );
  return out.join('\n');
}

export function formatJUnit(r: Report, o: { url: string; failOn: FailOn; seconds?: number }): string {
  const properties = { url: o.url, scenario: r.scenario, ...(r.user_id === undefined ? {} : { user_id: r.user_id }), fail_on: o.failOn };
  return junitXml(
    sidesOf(r).map(({ side, checks }) => ({
      // The provider's suite keeps its name; proxy mode adds the wallet's.
      name: side === 'wallet' ? 'wallet-sim certification: operator wallet' : 'wallet-sim certification',
      timestamp: r.generated_at,
      time: o.seconds,
      properties,
      cases: checks.map((c) => junitCase(c, o.failOn)),
    })),
  );
}

function junitCase(c: ReportCheck, failOn: FailOn): JUnitCase {
  const name = `${c.id}: ${c.title}`;
  const classname = c.side === 'wallet' ? `wallet-sim.report.wallet.${c.severity}` : `wallet-sim.report.${c.severity}`;
  if (failsRun(c, failOn))
    return {
      name,
      classname,
      status: 'fail',
      // The headline a CI page shows: every violation counted; the body lists each.
      message: violationsHeadline(c.violations) ?? c.detail ?? c.id,
      details: [
        c.detail ?? '',
        `fix: ${c.fix ?? ''}`,
        ...c.violations.map((v) => `journal #${v.journal_ids.join(', #')}: ${v.message}`),
      ].join('\n'),
    };
  if (c.status === 'pass') return { name, classname, status: 'pass' };
  const why =
    c.status === 'fail'
      ? `warning (does not fail at --fail-on ${failOn}): ${violationsHeadline(c.violations) ?? ''}`
      : c.status === 'not_exercised'
        ? (c.detail ?? 'not exercised') // the detail says "not exercised: …" already
        : `pending: ${c.detail ?? ''}`;
  return { name, classname, status: 'skip', message: why };
}
