import { junitXml } from '../report/junit.js';
import { terminalText } from '../terminal-text.js';
import type { Report, ReportCheck } from '../protocol/types.generated.js';

/*
 * The report for people: a terminal checklist, JUnit for CI (one test case per check) and a
 * self-contained HTML page to attach to a certification ticket.
 */

export type FailOn = 'error' | 'warning';

/** A failing check that fails the run at this --fail-on level (warnings only with --fail-on warning). */
export const failsRun = (c: ReportCheck, failOn: FailOn) => c.status === 'fail' && (c.severity === 'error' || failOn === 'warning');

const LABEL: Record<ReportCheck['status'], string> = { pass: 'PASS', fail: 'FAIL', pending: 'PENDING', not_exercised: 'NOT EXERCISED' };
const MARK: Record<ReportCheck['status'], string> = { pass: '✓', fail: '✗', pending: '…', not_exercised: '-' };
const COLOUR: Record<ReportCheck['status'], number> = { pass: 32, fail: 31, pending: 33, not_exercised: 90 };
const SHOWN = 5;

const evidence = (c: ReportCheck) =>
  c.violations.slice(0, SHOWN).map((v) => `${v.journal_ids.length ? `#${v.journal_ids.join(' #')} ` : ''}${terminalText(v.message)}`);

export function formatText(r: Report, o: { url: string; failOn: FailOn; colour: boolean }): string {
  const paint = (code: number, s: string) => (o.colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const t = r.thresholds;
  const out = [
    `wallet-sim report → ${o.url} · scenario ${r.scenario}${r.user_id === undefined ? '' : ` · player ${terminalText(r.user_id)}`} · ${r.generated_at}`,
    ...(t
      ? [
          `thresholds: retry window ${t.retry_window_s} s, client time-out ${t.client_timeout_s} s, retries ≥ ${t.min_retry_gap_ms} ms apart, ≤ ${t.max_attempts} attempts, rounds settled within ${t.round_max_age_s} s`,
        ]
      : []),
    '',
  ];
  for (const c of r.checks) {
    const label = `${MARK[c.status]} ${LABEL[c.status]}${c.severity === 'warning' ? ' (warning)' : ''}`;
    out.push(`${paint(COLOUR[c.status], label.padEnd(24))} ${o.colour ? `\u001b[1m${c.id}\u001b[0m` : c.id}  ${c.title}`);
    const pad = ' '.repeat(25);
    if (c.detail) out.push(`${pad}why: ${c.detail}`);
    if (c.status === 'fail') {
      if (c.fix) out.push(`${pad}fix: ${c.fix}`);
      for (const line of evidence(c)) out.push(`${pad}evidence: ${line}`);
      if (c.violations.length > SHOWN) out.push(`${pad}… and ${c.violations.length - SHOWN} more (GET /admin/report)`);
    }
  }
  const s = r.summary;
  out.push('', `${r.checks.length} checks: ${s.pass} pass, ${s.fail} fail, ${s.pending} pending, ${s.not_exercised} not exercised`);
  if (r.open_rounds.length)
    out.push(
      `open rounds: ${r.open_rounds.map((x) => `${terminalText(x.user_id)} ${terminalText(x.game_no)} (stake ${x.stake}, ${x.age_s} s old)`).join('; ')}`,
    );
  const findings = Object.entries(r.findings);
  if (findings.length)
    out.push(`findings in single callbacks: ${findings.map(([code, n]) => `${code} ×${n}`).join(', ')} (GET /admin/journal)`);
  const failing = r.checks.filter((c) => failsRun(c, o.failOn));
  out.push(
    failing.length
      ? paint(31, `FAIL: ${failing.map((c) => c.id).join(', ')} (--fail-on ${o.failOn})`)
      : paint(32, `OK: no check fails at --fail-on ${o.failOn}`),
  );
  return out.join('\n');
}

export function formatJUnit(r: Report, o: { url: string; failOn: FailOn; seconds?: number }): string {
  return junitXml([
    {
      name: 'wallet-sim certification',
      timestamp: r.generated_at,
      time: o.seconds,
      properties: { url: o.url, scenario: r.scenario, ...(r.user_id === undefined ? {} : { user_id: r.user_id }), fail_on: o.failOn },
      cases: r.checks.map((c) => {
        const name = `${c.id}: ${c.title}`;
        const classname = `wallet-sim.report.${c.severity}`;
        if (failsRun(c, o.failOn))
          return {
            name,
            classname,
            status: 'fail' as const,
            message: c.violations[0]?.message ?? c.detail ?? c.id,
            details: [
              c.detail ?? '',
              `fix: ${c.fix ?? ''}`,
              ...c.violations.map((v) => `journal #${v.journal_ids.join(', #')}: ${v.message}`),
            ].join('\n'),
          };
        if (c.status === 'pass') return { name, classname, status: 'pass' as const };
        const why =
          c.status === 'fail'
            ? `warning (does not fail at --fail-on ${o.failOn}): ${c.violations[0]?.message ?? ''}`
            : `${c.status.replace('_', ' ')}: ${c.detail ?? ''}`;
        return { name, classname, status: 'skip' as const, message: why };
      }),
    },
  ]);
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** One HTML file, no external asset: styles inline, no script, no link to fetch. */
export function formatHtml(r: Report, o: { url: string; failOn: FailOn }): string {
  const failing = r.checks.filter((c) => failsRun(c, o.failOn));
  const rows = r.checks
    .map((c) => {
      const violations = c.violations
        .map((v) => `<li><span class="ids">${v.journal_ids.map((id) => `#${id}`).join(' ')}</span> ${esc(v.message)}</li>`)
        .join('');
      return `<tr class="${c.status}">
  <td><span class="badge ${c.status}">${LABEL[c.status]}</span>${c.severity === 'warning' ? '<br><small>warning</small>' : ''}</td>
  <td><code>${esc(c.id)}</code><div class="title">${esc(c.title)}</div></td>
  <td>${esc(c.detail ?? '')}${c.status === 'fail' ? `<div class="fix"><b>Fix:</b> ${esc(c.fix ?? '')}</div><ul>${violations}</ul>` : ''}</td>
  <td class="num">${c.exercised}</td>
</tr>`;
    })
    .join('\n');
  const rounds = r.open_rounds.length
    ? `<h2>Open rounds</h2><table><tr><th>player</th><th>game_no</th><th>stake</th><th>opened at</th><th>age</th></tr>${r.open_rounds.map((x) => `<tr><td>${esc(x.user_id)}</td><td>${esc(x.game_no)}</td><td class="num">${x.stake}</td><td>${esc(x.opened_at)}</td><td class="num">${x.age_s} s</td></tr>`).join('')}</table>`
    : '';
  const findings = Object.entries(r.findings);
  const findingsHtml = findings.length
    ? `<h2>Findings in single callbacks</h2><ul>${findings.map(([code, n]) => `<li><code>${esc(code)}</code> × ${n}</li>`).join('')}</ul>`
    : '';
  const t = r.thresholds;
  const s = r.summary;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wallet-sim certification report: ${esc(r.scenario)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1d2330}
h1{font-size:1.4em;margin-bottom:.2em}.meta{color:#5b6475}
.verdict{font-size:1.2em;font-weight:600;padding:.6em 1em;border-radius:6px;margin:1em 0}
.verdict.ok{background:#e3f5e8;color:#17603a}.verdict.ko{background:#fde7e7;color:#9b1c1c}
table{border-collapse:collapse;width:100%;margin:1em 0}th,td{border-bottom:1px solid #e2e5eb;padding:.5em;text-align:left;vertical-align:top}
th{background:#f5f6f8}.num{text-align:right}.title{color:#5b6475}
.badge{display:inline-block;border-radius:4px;padding:.1em .5em;font-size:.8em;font-weight:700;white-space:nowrap}
.badge.pass{background:#e3f5e8;color:#17603a}.badge.fail{background:#fde7e7;color:#9b1c1c}
.badge.pending{background:#fff4d6;color:#7a5a00}.badge.not_exercised{background:#eceef2;color:#5b6475}
.fix{margin:.4em 0}.ids{font-family:ui-monospace,monospace;color:#5b6475}code{font-family:ui-monospace,monospace}
</style>
</head>
<body>
<h1>wallet-sim certification report</h1>
<div class="meta">Scenario <b>${esc(r.scenario)}</b>${r.user_id === undefined ? '' : ` · player <b>${esc(r.user_id)}</b>`} · simulator ${esc(o.url)} · graded ${esc(r.generated_at)}</div>
${t ? `<div class="meta">Thresholds: retry window ${t.retry_window_s} s · client time-out ${t.client_timeout_s} s · retries ≥ ${t.min_retry_gap_ms} ms apart · ≤ ${t.max_attempts} attempts · rounds settled within ${t.round_max_age_s} s</div>` : ''}
<div class="verdict ${failing.length ? 'ko' : 'ok'}">${failing.length ? `FAIL: ${failing.map((c) => esc(c.id)).join(', ')}` : 'No check fails'} (fail on ${o.failOn}) · ${s.pass} pass · ${s.fail} fail · ${s.pending} pending · ${s.not_exercised} not exercised</div>
<table>
<tr><th>status</th><th>check</th><th>why (journal ids as evidence)</th><th>exercised</th></tr>
${rows}
</table>
${rounds}
${findingsHtml}
<p class="meta">Journal entries (#id) are in GET /admin/journal of the simulator. Checks are defined in docs/certification.md of wallet-sim.</p>
</body>
</html>
`;
}
