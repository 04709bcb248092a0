import type { JournalEntry } from '../journal/journal.js';
import { describeMatch, matchFields, matches } from '../journal/match.js';
import { money } from '../kernel/money.js';
import type { Finding, Severity } from '../protocol/findings.js';
import type { Expectations, Report } from '../protocol/types.generated.js';
import type { JournalSource } from './admin-client.js';
import { count, noun } from '../text/plural.js';

export type Group = 'counts' | 'codes' | 'balances' | 'findings' | 'checks';

/** One expectation, held or not, with what a reader needs to see why. */
export interface VerifyResult {
  group: Group;
  name: string;
  passed: boolean;
  message: string;
  details: string[];
}

export interface VerifyOutcome {
  entries: number;
  results: VerifyResult[];
}

const MAX_DETAILS = 25;

/** Checks expectations against what the simulator recorded. Reads the journal once. */
export async function verify(x: Expectations, source: JournalSource): Promise<VerifyOutcome> {
  const entries = await source.journal();
  const results: VerifyResult[] = [];

  (x.counts ?? []).forEach((c, i) => {
    const hits = entries.filter((e) => matches(matchFields(e), c.where));
    const n = hits.length;
    const [ok, want] =
      c.count !== undefined
        ? [n === c.count, `exactly ${c.count}`]
        : c.min !== undefined && c.max !== undefined
          ? [n >= c.min && n <= c.max, `${c.min} to ${c.max}`]
          : c.max !== undefined
            ? [n <= c.max, `at most ${c.max}`]
            : [n >= (c.min ?? 1), `at least ${c.min ?? 1}`];
    results.push({
      group: 'counts',
      name: c.name ?? `counts[${i}] ${describeMatch(c.where)}`,
      passed: ok,
      message: ok ? `${count(n, noun('callback'))}` : `expected ${want}, got ${n}`,
      details: ok ? [] : limit(hits.map(line)),
    });
  });

  (x.codes ?? []).forEach((c, i) => {
    const allowed: string[] = Array.isArray(c.code) ? c.code : [c.code];
    const hits = entries.filter((e) => matches(matchFields(e), c.where));
    const off = hits.filter((e) => e.code === undefined || !allowed.includes(e.code));
    const want = allowed.join(' or ');
    const name = c.name ?? `codes[${i}] ${describeMatch(c.where)}`;
    if (!hits.length)
      results.push({ group: 'codes', name, passed: false, message: `expected ${want}, but no callback matched`, details: [] });
    else
      results.push({
        group: 'codes',
        name,
        passed: off.length === 0,
        message:
          off.length === 0
            ? `${count(hits.length, noun('callback'))}, all ${want}`
            : `expected ${want}; ${off.length} of ${hits.length} got ${[...new Set(off.map((e) => e.code ?? `HTTP ${e.reply.status}`))].join(', ')}`,
        details: limit(off.map(line)),
      });
  });

  for (const b of x.balances ?? []) {
    const name = `balance of ${b.user_id}`;
    const want = money(b.balance);
    const player = await source.player(b.user_id);
    if (!player) {
      results.push({
        group: 'balances',
        name,
        passed: false,
        message: `expected ${want.toFixed()}, but the simulator has no player ${b.user_id}`,
        details: [],
      });
      continue;
    }
    const problems: string[] = [];
    if (!player.balance.eq(want)) {
      const diff = player.balance.minus(want);
      problems.push(`expected ${want.toFixed()}, got ${player.balance.toFixed()} (${diff.isNeg() ? '' : '+'}${diff.toFixed()})`);
    }
    if (b.currency !== undefined && b.currency !== player.currency)
      problems.push(`expected currency ${b.currency}, got ${player.currency}`);
    results.push({
      group: 'balances',
      name,
      passed: problems.length === 0,
      message: problems.length ? problems.join('; ') : `${player.balance.toFixed()} ${player.currency}`,
      details: [],
    });
  }

  results.push(findingsResult(x.findings ?? {}, entries));
  results.push(...(await checkResults(x.checks ?? [], source)));
  if (x.no_pending_checks) results.push(await noPendingResult(source));
  return { entries: entries.length, results };
}

/** `no_pending_checks`: every window of the session's report has closed. */
async function noPendingResult(source: JournalSource): Promise<VerifyResult> {
  if (!source.report) throw new Error('verify: this journal source cannot read the certification report');
  const pending = (await source.report()).checks.filter((c) => c.status === 'pending');
  return {
    group: 'checks',
    name: 'no check is pending',
    passed: pending.length === 0,
    message: pending.length
      ? `${pending.length} still pending: ${pending.map((c) => c.id).join(', ')}; run verify once their windows closed (or wallet-sim report --wait <seconds>)`
      : 'every window has closed',
    details: limit(pending.map((c) => `  ${c.id}: ${c.detail ?? ''}`)),
  };
}

/** Each expected check status, read from the certification report (one report per user_id asked). */
async function checkResults(expected: NonNullable<Expectations['checks']>, source: JournalSource): Promise<VerifyResult[]> {
  if (!expected.length) return [];
  if (!source.report) throw new Error('verify: this journal source cannot read the certification report');
  const reports = new Map<string, Report>();
  const out: VerifyResult[] = [];
  for (const c of expected) {
    const key = c.user_id ?? '';
    if (!reports.has(key)) reports.set(key, await source.report(c.user_id));
    const check = reports.get(key)!.checks.find((k) => k.id === c.id);
    const allowed: string[] = Array.isArray(c.status) ? c.status : [c.status];
    const name = c.name ?? `check ${c.id}${c.user_id === undefined ? '' : ` for ${c.user_id}`} is ${allowed.join(' or ')}`;
    if (!check) {
      out.push({ group: 'checks', name, passed: false, message: `the report has no check ${c.id}`, details: [] });
      continue;
    }
    const passed = allowed.includes(check.status);
    out.push({
      group: 'checks',
      name,
      passed,
      message: passed
        ? `${check.status}${check.detail ? `: ${check.detail}` : ''}`
        : `expected ${allowed.join(' or ')}, got ${check.status}${check.detail ? ` (${check.detail})` : ''}`,
      details: passed ? [] : limit(check.violations.map((v) => `  #${v.journal_ids.join(' #')} ${v.message}`)),
    });
  }
  return out;
}

const RANK: Record<Severity | 'none', number> = { info: 0, warning: 1, error: 2, none: Infinity };

function findingsResult(f: NonNullable<Expectations['findings']>, entries: JournalEntry[]): VerifyResult {
  const failOn = f.fail_on ?? 'error';
  const allow = new Set(f.allow ?? []);
  const forbid = new Set(f.forbid ?? []);
  const fails = (g: Finding) => forbid.has(g.code) || (RANK[g.severity] >= RANK[failOn] && !allow.has(g.code));
  const bad = entries
    .filter((e) => matches(matchFields(e), f.where))
    .map((e) => ({ e, hits: e.findings.filter(fails) }))
    .filter((b) => b.hits.length);
  const rule =
    [
      failOn === 'none' ? undefined : `no finding of severity ${failOn}${failOn === 'error' ? '' : ' or worse'}`,
      forbid.size ? `none of ${[...forbid].join(', ')}` : undefined,
    ]
      .filter(Boolean)
      .join(', ') || 'findings ignored';
  const name = `findings: ${rule}${allow.size ? ` (allowed: ${[...allow].join(', ')})` : ''}${f.where ? ` in ${describeMatch(f.where)}` : ''}`;
  const details = bad.flatMap(({ e, hits }) => [
    line(e),
    ...hits.map((g) => `    ${g.severity} ${g.code}${g.pointer ? ` at ${g.pointer}` : ''}: ${g.message}`),
  ]);
  const findings = bad.reduce((n, b) => n + b.hits.length, 0);
  return {
    group: 'findings',
    name,
    passed: bad.length === 0,
    message: bad.length === 0 ? 'none' : `${count(findings, noun('finding'))} in ${count(bad.length, noun('callback'))}`,
    details: limit(details, MAX_DETAILS * 3),
  };
}

/** One journal entry on one line: "#7 bet player-2 tx-9 → R4 (R4: balance 3000 is less than …)". */
export function line(e: JournalEntry): string {
  const outcome = e.code ?? `HTTP ${e.reply.status}`;
  return `  #${e.id} ${e.event_type ?? '(unreadable)'} ${e.user_id ?? '-'} ${e.transaction_id ?? '-'} → ${outcome}${e.replayed ? ' (replay)' : ''}${e.reason ? ` (${e.reason})` : ''}`;
}

function limit(lines: string[], max = MAX_DETAILS): string[] {
  return lines.length <= max ? lines : [...lines.slice(0, max), `  … and ${lines.length - max} more`];
}
