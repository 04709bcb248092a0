import { formatExchange } from '../client/format.js';
import type { WalletCheckReport } from '../wallet-checks/wallet-grader.js';
import { latencyText } from './latency.js';
import { probeExitCode, walletFails } from './report.js';
import type { CheckResult, LabeledExchange, ProbeReport } from './types.js';
import { DEFAULT_CLIENT_TIMEOUT_MS } from './wire.js';

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The request and reply of one exchange (Api-Key masked), as evidence. */
const exchangeHtml = (x: LabeledExchange) => `<pre>${esc(formatExchange(x, ''))}</pre>`;

function probeRow(c: CheckResult): string {
  const failed = c.assertions.filter((a) => !a.passed);
  const ids = [...new Set(failed.map((a) => a.exchange).filter((i): i is number => i !== undefined))];
  const body =
    c.status === 'fail'
      ? `<ul>${failed.map((a) => `<li>${esc(a.message)}</li>`).join('')}</ul>${c.fix ? `<div class="fix"><b>Fix:</b> ${esc(c.fix)}</div>` : ''}${ids
          .map((i) => exchangeHtml(c.exchanges[i]!))
          .join('')}`
      : c.status === 'skip'
        ? `could not judge: ${esc(c.skipped ?? '')}`
        : '';
  return `<tr class="${c.status}"><td><span class="badge ${c.status}">${c.status.toUpperCase()}</span></td><td><code>${esc(c.name)}</code><div class="title">${esc(c.description)}</div></td><td>${body}</td><td class="num">${c.exchanges.length}</td></tr>`;
}

function walletRow(c: WalletCheckReport, exchanges: LabeledExchange[]): string {
  const evidence = [...new Set(c.violations.flatMap((v) => v.journal_ids))]
    .slice(0, 10)
    .map((id) => exchanges[id - 1])
    .filter((x): x is LabeledExchange => x !== undefined)
    .map((x) => exchangeHtml({ ...x, label: `#${x.id} ${x.label}` }))
    .join('');
  const body =
    c.status === 'fail'
      ? `${esc(c.detail)}<ul>${c.violations.map((v) => `<li>${esc(v.message)}</li>`).join('')}</ul><div class="fix"><b>Fix:</b> ${esc(c.fix)}</div>${evidence}`
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
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#1d2330}
h1{font-size:1.4em;margin-bottom:.2em}.meta{color:#5b6475}
.verdict{font-size:1.2em;font-weight:600;padding:.6em 1em;border-radius:6px;margin:1em 0}
.verdict.ok{background:#e3f5e8;color:#17603a}.verdict.ko{background:#fde7e7;color:#9b1c1c}
table{border-collapse:collapse;width:100%;margin:1em 0}th,td{border-bottom:1px solid #e2e5eb;padding:.5em;text-align:left;vertical-align:top}
th{background:#f5f6f8}.num{text-align:right}.title{color:#5b6475}
.badge{display:inline-block;border-radius:4px;padding:.1em .5em;font-size:.8em;font-weight:700;white-space:nowrap}
.badge.pass{background:#e3f5e8;color:#17603a}.badge.fail{background:#fde7e7;color:#9b1c1c}.badge.warn,.badge.pending{background:#fff4d6;color:#7a5a00}
.badge.skip,.badge.not_exercised{background:#eceef2;color:#5b6475}
.fix{margin:.4em 0}pre{white-space:pre-wrap;word-break:break-all;background:#f5f6f8;padding:.5em;border-radius:4px;font-size:12px;margin:.2em 0}code{font-family:ui-monospace,monospace}
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
${r.walletChecks.map((c) => walletRow(c, r.exchanges)).join('\n')}
</table>`
    : ''
}
${unsettled}
<div class="meta">Balance of ${esc(t.user)}: before ${esc(r.balance.before?.toFixed() ?? 'not reported')}, after ${esc(r.balance.after?.toFixed() ?? 'not reported')} ${esc(t.currency)}</div>
</body>
</html>
`;
}
