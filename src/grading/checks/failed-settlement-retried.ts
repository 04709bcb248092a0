import { type CheckRun, describe, plural, violation } from '../check.js';
import { DEFINITE, type Facts, seconds } from '../facts.js';

/**
 * A bet_result answered R1 (or with no readable code) is resent, each time within retry_window_s,
 * until it gets R0 (or a definite refusal, after which resending is wrong anyway).
 */
export function failedSettlementRetried(f: Facts): CheckRun {
  const window = f.t.retry_window_s * 1000;
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  let settled = 0;
  for (const attempts of f.byTx.values()) {
    if (attempts[0]!.event !== 'bet_result') continue;
    const firstFailure = attempts.find((a) => a.outcome === 'R1' || a.outcome === 'failed');
    if (!firstFailure) continue;
    run.exercised++;
    for (const a of attempts.slice(firstFailure.nth)) {
      if (a.outcome === 'R0') {
        settled++;
        break;
      }
      if (DEFINITE.has(a.outcome)) break;
      if (a.outcome === 'waiting') {
        run.pending++;
        break;
      }
      const next = attempts[a.nth + 1];
      const deadline = a.end === undefined ? undefined : a.end + window;
      if (next && (deadline === undefined || next.at <= deadline)) continue;
      const what =
        a.nth === firstFailure.nth
          ? `${describe(a)} was answered ${a.outcome === 'failed' ? 'without a readable code' : a.outcome}`
          : `the resends of ${a.tx} stopped at #${a.id} (${a.outcome === 'lost' ? 'reply lost' : a.outcome}) before an R0`;
      if (next)
        run.violations.push(
          violation(
            `${what}; the next attempt came only ${seconds(next.at - a.end!)} later (#${next.id}), after the ${seconds(window)} window`,
            [firstFailure, a, next],
          ),
        );
      else if (deadline === undefined || f.now <= deadline) run.pending++;
      else run.violations.push(violation(`${what}, and it was not resent within ${seconds(window)}`, [firstFailure, a]));
      break;
    }
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'settlement')} answered R1: ${settled} resent until R0, ${run.pending} still within the window`;
  return run;
}
