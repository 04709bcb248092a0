import { esc, PAGE_STYLE } from '../report/html.js';
import { gapHistogramSvg } from '../report/histogram.js';
import { DRAWN_PER_CHECK, timelineSvg } from '../report/timeline.js';
import { FAILED } from '../protocol/seed/codes.js';
import { duration } from '../report/timeline-marks.js';
import type { Report, ReportEvidence, ReportViolation } from '../protocol/types.generated.js';
import { type FailOn, failsRun, LABEL } from './format.js';
import { sidesOf } from './sides.js';
import { violationTally } from './listed-violations.js';
import { failingWarnings, sessionLine, timingPhrases, warningsLine } from './timing-text.js';

/** One HTML file, no external asset: styles inline, no script, no link to fetch. */
export function formatHtml(r: Report, o: { url: string; failOn: FailOn }): string {
  const failing = r.checks.filter((c) => failsRun(c, o.failOn));
  const sides = sidesOf(r);
  const rowsOf = (checks: Report['checks']) =>
    checks
      .map((c) => {
        const violations = c.violations
          .map(
            (v) => `<li><span class="ids">${v.journal_ids.map((id) => `#${id}`).join(' ')}</span> ${esc(v.message)}${evidenceHtml(v)}</li>`,
          )
          .join('');
        return `<tr class="${c.status}">
  <td><span class="badge ${c.status}">${LABEL[c.status]}</span>${c.severity === 'warning' ? '<br><small>warning</small>' : ''}</td>
  <td><code>${esc(c.id)}</code><div class="title">${esc(c.title)}</div></td>
  <td>${esc(c.detail ?? '')}${c.status === 'fail' ? `<div class="fix"><b>Fix:</b> ${esc(c.fix ?? '')}</div><ul>${violations}</ul>` : ''}</td>
  <td class="num">${c.exercised}</td>
</tr>${c.status === 'fail' ? picturesRow(r, c) : ''}`;
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
${PAGE_STYLE}
</style>
</head>
<body>
<h1>wallet-sim certification report</h1>
<div class="meta">Scenario <b>${esc(r.scenario)}</b>${r.user_id === undefined ? '' : ` · player <b>${esc(r.user_id)}</b>`} · simulator ${esc(o.url)} · graded ${esc(r.generated_at)}</div>
${r.upstream === undefined ? '' : `<div class="meta">Wallet under test <b>${esc(r.upstream)}</b> (proxy mode: every callback was forwarded there)</div>`}
<div class="meta">${esc(sessionLine(r))} (only callbacks of this session, with the right credentials, are graded)</div>
${t ? `<div class="meta">Thresholds: retry window ${t.retry_window_s} s · client time-out ${t.client_timeout_s} s · retries ≥ ${t.min_retry_gap_ms} ms apart · ≤ ${t.max_attempts} attempts · rounds settled within ${t.round_max_age_s} s</div>` : ''}
${
  t
    ? `<div class="meta">Timing profile: ${timingPhrases(r, (x) => `<b class="warn">${esc(x)} (!)</b>`)
        .map((x) => (x.startsWith('<b') ? x : esc(x)))
        .join(' · ')}</div>`
    : ''
}
${t && r.timing.retry_gap_ms?.buckets ? picture('Retry gaps: the timing profile as a histogram, with the declared minimum gap and time-out', gapHistogramSvg(r.timing.retry_gap_ms.buckets, t)) : ''}
${r.forgotten.transactions || r.forgotten.rounds ? `<div class="meta">Grading state is bounded: the session's ${r.forgotten.transactions} oldest transactions and ${r.forgotten.rounds} oldest rounds were forgotten (judged until then).</div>` : ''}
<div class="verdict ${failing.length ? 'ko' : 'ok'}">${failing.length ? `FAIL: ${failing.map((c) => esc(c.id)).join(', ')}` : 'No check fails'} (fail on ${o.failOn}) · ${s.pass} pass · ${s.fail} fail · ${s.pending} pending · ${s.not_exercised} not exercised</div>
${failingWarnings(r) && !failing.some((c) => c.severity === 'warning') ? `<div class="meta">${esc(warningsLine(r))}.</div>` : ''}
${sides
  .map(
    ({ heading, checks }) => `${sides.length > 1 ? `<h2>${esc(heading)}</h2>` : ''}<table>
<tr><th>status</th><th>check</th><th>why (journal ids as evidence)</th><th>exercised</th></tr>
${rowsOf(checks)}
</table>`,
  )
  .join('\n')}
${rounds}
${findingsHtml}
<p class="meta">Journal entries (#id) are in GET /admin/journal of the simulator while it retains them; the excerpts above were kept with each violation. Checks are defined in docs/checks.md of wallet-sim.</p>
</body>
</html>
`;
}

/** A picture with its words beside it (for screen readers and text dumps). */
const picture = (caption: string, svg: string) =>
  svg ? `<figure class="picture"><figcaption>${esc(caption)}</figcaption>${svg}</figure>` : '';

/** A failing check's violations drawn as timelines, one per violation, each under its message, across the table's width. */
function picturesRow(r: Report, c: Report['checks'][number]): string {
  const relayed = c.side === 'wallet' && r.upstream !== undefined;
  const figures = c.violations
    .slice(0, DRAWN_PER_CHECK)
    .map((v) =>
      picture(
        `${v.journal_ids.map((id) => `#${id}`).join(' ')} ${v.message}`,
        timelineSvg(v, { thresholds: r.thresholds, relayed, check: c.id, failedCode: FAILED }),
      ),
    )
    .join('');
  const { total, itemized } = violationTally(c.violations);
  const listed = itemized < total ? `the first ${itemized} are listed above, the rest counted` : 'all are listed above';
  const more =
    total > DRAWN_PER_CHECK ? `<p class="meta">The first ${DRAWN_PER_CHECK} of ${total} violations are drawn; ${listed}.</p>` : '';
  return figures ? `\n<tr class="pictures" data-check="${esc(c.id)}"><td colspan="4">${more}${figures}</td></tr>` : '';
}

/** What a violation cites, as kept when it was found: times, request and reply (secrets masked). */
function evidenceHtml(v: ReportViolation): string {
  if (!v.evidence?.length) return '';
  const items = v.evidence
    .map(
      (e) =>
        `<div><b>#${e.journal_id}</b> received ${esc(e.received_at)}, ${esc(fateText(e))}${e.request ? `<pre>request ${esc(e.request)}</pre>` : ''}${e.reply ? `<pre>reply ${esc(e.reply)}</pre>` : ''}</div>`,
    )
    .join('');
  return `<details><summary>evidence: the callbacks it cites</summary>${items}</details>`;
}

/**
 * What became of a cited callback's reply, in the words of the timeline's tooltips: a time beside
 * the picture is never called an answer the client did not get (a dropped connection, a caller
 * gone before the reply).
 */
export function fateText(e: ReportEvidence): string {
  const facts: string[] = [];
  if (e.delay_ms) facts.push(`held ${duration(e.delay_ms)} by a scenario rule`);
  if (e.forced) facts.push(`${e.forced} forced by a scenario rule`);
  if (e.outcome) facts.push(`the provider learnt: ${e.outcome}${e.known_at ? ` at ${e.known_at}` : ''}`);
  const also = (why?: string) => {
    const all = why ? [why, ...facts] : facts;
    return all.length ? ` (${all.join('; ')})` : '';
  };
  const gone = e.closed_at !== undefined && (e.replied_at === undefined || e.closed_at <= e.replied_at);
  if (e.fate === 'dropped') return `dropped at ${e.replied_at ?? '?'}${also('the connection was closed without a reply')}`;
  if (e.fate === 'no_reply') return `no reply from the wallet${also(`given up at ${e.replied_at ?? '?'}`)}`;
  if (gone)
    return e.replied_at === undefined
      ? `the caller gone at ${e.closed_at}, before any reply${also()}`
      : `the caller gone at ${e.closed_at}; the reply written at ${e.replied_at}, after it had gone${also()}`;
  if (e.replied_at === undefined) return `still unanswered when the check decided${also()}`;
  // Without a fate (a report from before fates were kept) the time may be a closed connection's.
  return `${e.fate === 'written' ? 'reply written at' : 'the reply written or the connection closed at'} ${e.replied_at}${also()}`;
}
