import { esc, PAGE_STYLE } from '../report/html.js';
import { DRAWN_PER_CHECK, timelineSvg } from '../report/timeline.js';
import { violationTally } from '../grading/listed-violations.js';
import { formatExchange } from '../client/format.js';
import { latencyText } from './latency.js';
import { probeExitCode, stoppedAt, walletFails } from './report.js';
import type { CheckResult, LabeledExchange, ProbeReport, ProbeWalletCheck } from './types.js';
import { DEFAULT_CLIENT_TIMEOUT_MS } from './wire.js';

/** The request and reply of one exchange (Api-Key masked), as evidence. */
const exchangeHtml = (x: LabeledExchange) => `<pre>${esc(formatExchange(x, ''))}</pre>`;

function probeRow(c: CheckResult): string {
  const failed = c.assertions.filter((a) => !a.passed);
  const ids = [...new Set(failed.map((a) => a.exchange).filter((i): i is number => i !== undefined))];
  const body =
    c.status === 'fail'
      ? `<ul>${failed.map((a) => `<li>${esc(a.message)}</li>`).join('')}</ul>${c.fix && !stoppedAt(c) ? `<div class="fix"><b>Fix:</b> ${esc(c.fix)}</div>` : ''}${ids
          .map((i) => exchangeHtml(c.exchanges[i]!))
          .join('')}`
      : c.status === 'skip'
        ? c.see
          ? `not judged, see <code>${esc(c.see)}</code>: ${esc(c.skipped ?? '')}`
          : `could not judge: ${esc(c.skipped ?? '')}`
        : c.warnings
          ? `<ul>${c.warnings.map((w) => `<li>warning: ${esc(w)}</li>`).join('')}</ul>`
          : '';
  const cls = c.status === 'pass' && c.warnings ? 'warn' : c.status;
  return `<tr class="${cls}"><td><span class="badge ${cls}">${c.status.toUpperCase()}</span>${c.warnings ? '<br><small>warning</small>' : ''}</td><td><code>${esc(c.name)}</code><div class="title">${esc(c.description)}</div></td><td>${body}</td><td class="num">${c.exchanges.length}</td></tr>`;
}

/** A wallet check's first violations drawn as timelines (the wallet leg of each callback), each under its message. */
function timelines(c: ProbeWalletCheck, clientTimeoutMs: number): string {
  const { total } = violationTally(c.violations);
  const more = total > DRAWN_PER_CHECK ? `<p class="meta">The first ${DRAWN_PER_CHECK} of ${total} violations are drawn.</p>` : '';
  return (
    more +
    c.violations
      .slice(0, DRAWN_PER_CHECK)
      .map((v) => {
        const svg = timelineSvg(v, { thresholds: { client_timeout_s: clientTimeoutMs / 1000 } });
        return svg ? `<figure class="picture"><figcaption>${esc(v.message)}</figcaption>${svg}</figure>` : '';
      })
      .join('')
  );
}

function walletRow(c: ProbeWalletCheck, exchanges: LabeledExchange[], clientTimeoutMs: number): string {
  const evidence = [...new Set(c.violations.flatMap((v) => v.journal_ids))]
    .slice(0, 10)
    .map((id) => exchanges[id - 1])
    .filter((x): x is LabeledExchange => x !== undefined)
    .map((x) => exchangeHtml({ ...x, label: `#${x.id} ${x.label}` }))
    .join('');
  const body =
    c.status === 'fail'
      ? `${esc(c.detail)}<ul>${c.violations.map((v) => `<li>${esc(v.message)}</li>`).join('')}</ul><div class="fix"><b>Fix:</b> ${esc(c.fix)}</div>${timelines(c, clientTimeoutMs)}${evidence}`
      : esc(c.detail);
  const cls = c.status === 'fail' && !walletFails(c) ? 'warn' : c.status;
  return `<tr class="${cls}"><td><span class="badge ${cls}">${c.status.replace('_', ' ').toUpperCase()}</span>${c.severity === 'warning' ? '<br><small>warning</small>' : ''}</td><td><code>${esc(c.id)}</code><div class="title">${esc(c.title)}</div></td><td>${body}</td><td class="num">${c.exercised}</td></tr>`;
}

/** One HTML file, no external asset: styles inline, no script, no link to fetch; every text escaped. */
export function formatProbeHtml(r: ProbeReport): string {
  const code = probeExitCode(r);
  const verdict = r.stopped
    ? `Not checked: ${r.stopped.message}`
    : code === 0
      ? 'The wallet passes every check'
      : `The wallet fails ${r.checks.filter((c) => c.status === 'fail').length + r.walletChecks.filter(walletFails).length} checks`;
  const t = r.target;
  const unsettled = r.unsettled.length
    ? `<h2>Rounds left open</h2><ul>${r.unsettled.map((u) => `<li><code>${esc(u.game_no)}</code>: ${esc(u.why)}</li>`).join('')}</ul>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>wallet-sim probe: ${esc(t.url)}</title>
<style>
${PAGE_STYLE}
</style>
</head>
<body>
<h1>wallet-sim probe</h1>
<div class="meta">Wallet <b>${esc(t.url)}</b> · player <b>${esc(t.user)}</b> · ${esc(t.currency)} (${t.scale} fraction digits) · started ${esc(r.startedAt)} · ${r.exchanges.length} callbacks in ${r.durationMs} ms</div>
<div class="meta">Provider's time-out ${t.clientTimeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS} ms (--client-timeout) · latency: ${esc(latencyText(r.latency) || 'no replies')}</div>
<div class="verdict ${code === 0 ? 'ok' : 'ko'}">${esc(verdict)}</div>
<h2>Probe checks</h2>
<table><tr><th>status</th><th>check</th><th>detail</th><th>callbacks</th></tr>
${r.checks.map(probeRow).join('\n')}
</table>
${
  r.walletChecks.length
    ? `<h2>Wallet checks</h2><table><tr><th>status</th><th>check</th><th>detail</th><th>exercised</th></tr>
${r.walletChecks.map((c) => walletRow(c, r.exchanges, t.clientTimeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS)).join('\n')}
</table>`
    : ''
}
${unsettled}
<div class="meta">Balance of ${esc(t.user)}: before ${esc(r.balance.before?.toFixed() ?? 'not reported')}, after ${esc(r.balance.after?.toFixed() ?? 'not reported')} ${esc(t.currency)}</div>
</body>
</html>
`;
}
