import type { JournalEntry } from '../journal/journal.js';
import type { CheckStatus, Report, ReportCheck } from '../protocol/types.generated.js';
import type { CheckRun } from './check.js';
import { CHECKS } from './checks.js';
import { deriveFacts } from './facts.js';
import { openRounds } from './rounds.js';
import type { Thresholds } from './thresholds.js';

/** Violations listed per check; the rest are counted in a last line. */
export const MAX_VIOLATIONS = 100;

const statusOf = (run: CheckRun): CheckStatus =>
  run.violations.length ? 'fail' : run.pending ? 'pending' : run.exercised ? 'pass' : 'not_exercised';

/**
 * The certification report: grades the provider's behaviour across callbacks from journal entries
 * (answered ones, and ones still being answered, without replied_at) at the moment `now`.
 * No HTTP, no clock of its own.
 */
export function grade(entries: readonly JournalEntry[], thresholds: Thresholds, now: Date, scenario: string, userId?: string): Report {
  const facts = deriveFacts(entries, thresholds, now.getTime());
  const checks: ReportCheck[] = CHECKS.map((c) => {
    const run = c.run(facts);
    const status = statusOf(run);
    const violations =
      run.violations.length <= MAX_VIOLATIONS
        ? run.violations
        : [
            ...run.violations.slice(0, MAX_VIOLATIONS),
            { message: `… and ${run.violations.length - MAX_VIOLATIONS} more violations of ${c.id}`, journal_ids: [] },
          ];
    return {
      id: c.id,
      title: c.title,
      severity: c.severity,
      status,
      exercised: run.exercised,
      detail: status === 'not_exercised' ? `not exercised: ${c.idle}` : run.detail,
      fix: c.fix,
      violations,
    };
  });
  const summary = { pass: 0, fail: 0, pending: 0, not_exercised: 0 };
  for (const c of checks) summary[c.status]++;
  const findings: Record<string, number> = {};
  for (const e of entries) for (const code of new Set(e.findings.map((f) => f.code))) findings[code] = (findings[code] ?? 0) + 1;
  return {
    generated_at: now.toISOString(),
    scenario,
    ...(userId === undefined ? {} : { user_id: userId }),
    thresholds: { ...thresholds },
    summary,
    checks,
    open_rounds: openRounds(facts),
    findings,
  };
}

export { CHECKS } from './checks.js';
export { DEFAULT_THRESHOLDS, type Thresholds, thresholdsOf } from './thresholds.js';
