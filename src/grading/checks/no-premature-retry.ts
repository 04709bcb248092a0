import { type CheckRun, describe, plural, violation } from '../check.js';
import { type Facts, seconds } from '../facts.js';

/**
 * No resend while the previous attempt is unanswered (reply not written, connection not closed)
 * and younger than client_timeout_s. A resend right after a dropped connection is not premature.
 */
export function noPrematureRetry(f: Facts): CheckRun {
  const timeout = f.t.client_timeout_s * 1000;
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const attempts of f.byTx.values()) {
    for (const r of attempts.slice(1)) {
      run.exercised++;
      const p = attempts[r.nth - 1]!;
      const unanswered = p.end === undefined || r.at < p.end;
      if (unanswered && r.at - p.at < timeout) {
        run.violations.push(
          violation(
            `${describe(r)} was sent ${seconds(r.at - p.at)} after #${p.id}, which was still unanswered: the client's time-out is ${seconds(timeout)}`,
            [p, r],
          ),
        );
      }
    }
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'resend')}: ${run.exercised - run.violations.length} sent after the previous attempt was answered or timed out`;
  return run;
}
