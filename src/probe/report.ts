import { formatExchange } from '../client/format.js';
import { type JUnitSuite, junitXml } from '../report/junit.js';
import { type ProbeReport, signed } from './battery.js';
import type { CheckResult } from './session.js';

/** What failed in one check, each failed rule with the exchange it is about. */
export function failureDetails(c: CheckResult): string {
  const failed = c.assertions.filter((a) => !a.passed);
  const lines = failed.map((a) => `✗ ${a.name}: ${a.message}`);
  const shown = [...new Set(failed.map((a) => a.exchange).filter((i): i is number => i !== undefined))];
  for (const i of shown) lines.push(formatExchange(c.exchanges[i]!, '  '));
  return lines.join('\n');
}

export function balanceSummary(r: ProbeReport): string {
  const b = r.balance;
  const cur = r.target.currency;
  if (b.before === undefined) return `balance of ${r.target.user}: unknown (login gave no balance)`;
  const lines = [`balance of ${r.target.user}: before ${b.before.toFixed()} ${cur}, after ${b.after?.toFixed() ?? 'unknown'} ${cur}`];
  const byCheck = new Map<string, typeof b.lines>();
  for (const l of b.lines) byCheck.set(l.check, [...(byCheck.get(l.check) ?? []), l]);
  lines.push(`  ${b.before.toFixed().padStart(14)}  start`);
  for (const [check, ls] of byCheck) {
    const net = ls.reduce((m, l) => m.plus(l.delta), ls[0]!.delta.minus(ls[0]!.delta));
    const parts = ls.length <= 4 ? ls.map((l) => `${l.what} ${signed(l.delta)}`).join(', ') : `${ls.length} acknowledged changes`;
    lines.push(`  ${signed(net).padStart(14)}  ${check}: ${parts}`);
  }
  lines.push(`  ${'='.repeat(14)}`);
  const ok = b.after !== undefined && b.expected !== undefined && b.after.eq(b.expected);
  lines.push(`  ${b.expected?.toFixed().padStart(14)}  expected; observed ${b.after?.toFixed() ?? 'unknown'} ${ok ? '✓' : '✗'}`);
  return lines.join('\n');
}

/** The first line of a probe report: what is probed. */
export const formatProbeHeader = (t: ProbeReport['target']): string =>
  `wallet-sim probe → ${t.url}  user ${t.user}  ${t.currency} (${t.scale} fraction digits)\n`;

/** One check as it finished: PASS, FAIL (with each failed rule and its exchange) or SKIP. */
export function formatCheck(c: CheckResult): string {
  const mark = c.status === 'pass' ? 'PASS' : c.status === 'fail' ? 'FAIL' : 'SKIP';
  // A check that failed before it could finish says why it stopped; only a SKIP is "skipped".
  const why = c.skipped === undefined ? '' : c.status === 'skip' ? ` (skipped: ${c.skipped})` : ` (stopped: ${c.skipped})`;
  const line = `${mark}  ${c.name.padEnd(24)} ${c.description}${why}`;
  if (c.status !== 'fail') return line;
  const refused = c.assertions.find((a) => a.name === 'credentials' && !a.passed);
  if (refused) return `${line}\n      ${refused.message}`; // one line says it all: no exchange dump
  return `${line}\n${failureDetails(c)
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n')}`;
}

/** After the checks: the balance reconciliation and the counts (or why the battery stopped). */
export function formatProbeSummary(r: ProbeReport): string {
  if (r.stopped) return '\nstopped: every other check needs accepted credentials';
  const count = (s: CheckResult['status']) => r.checks.filter((c) => c.status === s).length;
  return [
    '',
    balanceSummary(r),
    '',
    `${r.checks.length} checks: ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped (${r.durationMs} ms)`,
  ].join('\n');
}

export function formatProbeReport(r: ProbeReport): string {
  return [formatProbeHeader(r.target), ...r.checks.map(formatCheck), formatProbeSummary(r)].join('\n');
}

export function probeJUnit(r: ProbeReport): string {
  const suite: JUnitSuite = {
    name: 'wallet-sim probe',
    timestamp: r.startedAt,
    time: r.durationMs / 1000,
    properties: { url: r.target.url, user: r.target.user, currency: r.target.currency },
    cases: r.checks.map((c) => {
      const failed = c.assertions.filter((a) => !a.passed);
      return {
        name: c.name,
        classname: 'wallet-sim.probe',
        time: c.durationMs / 1000,
        status: c.status,
        message: c.status === 'skip' ? c.skipped : failed.map((a) => `${a.name}: ${a.message}`).join('; '),
        details: c.status === 'fail' ? failureDetails(c) : undefined,
      };
    }),
    systemOut: balanceSummary(r),
  };
  return junitXml([suite]);
}
