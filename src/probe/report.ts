import { formatExchange } from '../client/format.js';
import { type JUnitSuite, junitXml } from '../report/junit.js';
import type { WalletCheckReport } from '../grading/wallet/wallet-grader.js';
import { violationsHeadline } from '../grading/listed-violations.js';
import { latencyText } from './latency.js';
import { count as counted } from '../text/plural.js';
import type { CheckResult, LabeledExchange, ProbeReport, ProbeWalletCheck } from './types.js';
import { DEFAULT_CLIENT_TIMEOUT_MS } from './wire.js';

/** Exchanges shown per failing check (the rest are counted: one root cause, a few lines). */
const SHOWN = 3;

/** 2: the probe could not check the wallet; 1: the wallet fails a check; 0: it passes. */
export function probeExitCode(r: ProbeReport): 0 | 1 | 2 {
  if (r.stopped) return 2;
  return r.checks.some((c) => c.status === 'fail') || r.walletChecks.some(walletFails) ? 1 : 0;
}

/** A wallet check that fails the run (a warning is shown, not counted). */
export const walletFails = (c: WalletCheckReport) => c.status === 'fail' && c.severity === 'error';

/**
 * The check the probe stopped at (a wrong URL, refused credentials, an unfunded player): its one
 * line is about what the probe was given, not the wallet's behaviour, so no fix for the wallet.
 */
export const stopOf = (c: CheckResult) => c.assertions.find((a) => a.name === 'stopped' && !a.passed);
export const stoppedAt = (c: CheckResult) => stopOf(c) !== undefined;

/** What failed in one check: each failed rule, the fix, and the exchanges it is about (the terminal's first `limit`; JUnit's all). */
export function failureDetails(c: CheckResult, limit = SHOWN): string {
  const failed = c.assertions.filter((a) => !a.passed);
  const lines = failed.map((a) => `✗ ${a.message}`);
  if (c.fix && !stoppedAt(c)) lines.push(`fix: ${c.fix}`);
  const shown = [...new Set(failed.map((a) => a.exchange).filter((i): i is number => i !== undefined))];
  for (const i of shown.slice(0, limit)) lines.push(formatExchange(c.exchanges[i]!, '  '));
  if (shown.length > limit) lines.push(`  … and ${shown.length - limit} more exchanges`);
  return lines.join('\n');
}

/** A failing wallet check: its violations, the fix, and the exchanges they cite (the terminal's first `limit`; JUnit's all). */
export function walletFailureDetails(c: WalletCheckReport, exchanges: LabeledExchange[], limit = SHOWN): string {
  const lines = c.violations.slice(0, limit).map((v) => `✗ ${v.message}`);
  if (c.violations.length > limit) lines.push(`… and ${c.violations.length - limit} more`);
  lines.push(`fix: ${c.fix}`);
  const ids = [...new Set(c.violations.slice(0, limit).flatMap((v) => v.journal_ids))];
  for (const id of ids.slice(0, limit)) {
    const x = exchanges[id - 1];
    if (x) lines.push(formatExchange({ ...x, label: `#${id} ${x.label}` }, '  '));
  }
  return lines.join('\n');
}

/** The first line of a probe report: what is probed. */
export const formatProbeHeader = (t: ProbeReport['target']): string =>
  `wallet-sim probe → ${t.url}  user ${t.user}  ${t.currency} (${t.scale} fraction digits)  provider's time-out ${t.clientTimeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS} ms\n`;

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');

/** One check as it finished: PASS, FAIL (with each failed rule, the fix and its exchanges) or SKIP. */
export function formatCheck(c: CheckResult): string {
  const mark = c.status === 'pass' ? (c.warnings ? 'WARN' : 'PASS') : c.status === 'fail' ? 'FAIL' : 'SKIP';
  const line = `${mark}  ${c.name.padEnd(28)} ${c.description}${skipText(c)}`;
  if (c.status === 'pass' && c.warnings) return [line, ...c.warnings.map((w) => `      ⚠ ${w}`)].join('\n');
  if (c.status !== 'fail') return line;
  const stop = stopOf(c);
  if (stop) return `${line}\n      ${stop.message}`; // one line says it all: no exchange dump
  return `${line}\n${indent(failureDetails(c))}`;
}

/** Why a check was not judged: another check's root cause ("see" it), or what it could not read. */
function skipText(c: CheckResult): string {
  if (c.skipped === undefined) return '';
  if (c.status !== 'skip') return ` (stopped: ${c.skipped})`;
  return c.see ? ` (not judged, see ${c.see}: ${c.skipped})` : ` (could not judge: ${c.skipped})`;
}

/** The checks that pass with a warning, for the verdict line. */
const warned = (r: ProbeReport) => r.checks.filter((c) => c.status === 'pass' && c.warnings).map((c) => c.name);

const WALLET_MARK = { pass: 'PASS', fail: 'FAIL', pending: 'WAIT', not_exercised: 'IDLE' } as const;

export function formatWalletCheck(c: ProbeWalletCheck, exchanges: LabeledExchange[]): string {
  const mark =
    c.status === 'fail' && c.severity === 'warning' ? 'WARN' : c.see && c.status === 'not_exercised' ? 'SKIP' : WALLET_MARK[c.status];
  const line = `${mark}  ${c.id.padEnd(28)} ${c.detail}`;
  return c.status === 'fail' ? `${line}\n${indent(walletFailureDetails(c, exchanges))}` : line;
}

/** After the active checks: the wallet checks, latency, rounds, balance and the verdict (or why the probe stopped). */
export function formatProbeSummary(r: ProbeReport): string {
  if (r.stopped) return `\nstopped, nothing else checked (exit 2): ${r.stopped.message}`;
  const count = (s: CheckResult['status']) => r.checks.filter((c) => c.status === s).length;
  const walletFailed = r.walletChecks.filter(walletFails).length;
  const lines = [
    '',
    `wallet checks (the same ${r.walletChecks.length} as proxy mode grades):`,
    ...r.walletChecks.map((c) => formatWalletCheck(c, r.exchanges)),
  ];
  lines.push('', `latency: ${latencyText(r.latency) || 'no replies'}`);
  lines.push(
    r.unsettled.length
      ? `rounds left open (${r.unsettled.length}):\n${r.unsettled.map((u) => `  ${u.game_no}: ${u.why}`).join('\n')}`
      : 'rounds: every round the wallet acknowledged was settled',
  );
  const cur = r.target.currency;
  lines.push(
    `balance of ${r.target.user}: before ${r.balance.before?.toFixed() ?? 'not reported'} ${cur}, after ${r.balance.after?.toFixed() ?? 'not reported'} ${cur}`,
  );
  const code = probeExitCode(r);
  lines.push(
    '',
    `${r.checks.length} probe checks: ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} could not judge; ` +
      `${r.walletChecks.length} wallet checks: ${walletFailed} failed (${r.exchanges.length} callbacks, ${r.durationMs} ms) → ${code === 0 ? 'PASS' : 'FAIL'}` +
      (warned(r).length ? ` (${counted(warned(r).length, { one: 'warning', other: 'warnings' })}: ${warned(r).join(', ')})` : ''),
  );
  return lines.join('\n');
}

export function formatProbeReport(r: ProbeReport): string {
  return [formatProbeHeader(r.target), ...r.checks.map(formatCheck), formatProbeSummary(r)].join('\n');
}

export function probeJUnit(r: ProbeReport): string {
  const probe: JUnitSuite = {
    name: 'wallet-sim probe',
    timestamp: r.startedAt,
    time: r.durationMs / 1000,
    properties: { url: r.target.url, user: r.target.user, currency: r.target.currency },
    cases: r.checks.map((c) => {
      const failed = c.assertions.filter((a) => !a.passed);
      // (where the probe stopped nothing was judged: an error, not a failure of the wallet, and no fix for it)
      if (stoppedAt(c))
        return {
          name: c.name,
          classname: 'wallet-sim.probe',
          time: c.durationMs / 1000,
          status: 'error' as const,
          message: r.stopped?.message ?? failed[0]?.message,
        };
      return {
        name: c.name,
        classname: 'wallet-sim.probe',
        time: c.durationMs / 1000,
        status: c.status,
        message:
          c.status === 'skip'
            ? `${c.see ? `see ${c.see}: ` : ''}${c.skipped}`
            : c.warnings
              ? c.warnings.join('; ')
              : failed.map((a) => a.message).join('; '),
        details: c.status === 'fail' ? failureDetails(c, Infinity) : undefined,
        warning: c.status === 'pass' && c.warnings ? c.warnings.join('; ') : undefined,
      };
    }),
    systemOut: formatProbeSummary(r),
  };
  const wallet: JUnitSuite = {
    name: 'wallet-sim probe: wallet checks',
    timestamp: r.startedAt,
    cases: r.walletChecks.map((c) => ({
      name: c.id,
      classname: 'wallet-sim.wallet',
      status: walletFails(c) ? 'fail' : c.status === 'not_exercised' ? 'skip' : 'pass',
      message: c.status === 'fail' ? violationsHeadline(c.violations) : c.detail,
      details: c.status === 'fail' ? walletFailureDetails(c, r.exchanges, Infinity) : undefined,
      warning: c.status === 'fail' && !walletFails(c) ? violationsHeadline(c.violations) : undefined,
    })),
  };
  return junitXml(r.stopped ? [probe] : [probe, wallet]);
}
