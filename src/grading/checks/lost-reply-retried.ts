import { type CheckRun, describe, plural, violation } from '../check.js';
import { type Facts, movesMoney, seconds } from '../facts.js';

/**
 * Every lost reply of a bet or bet_result is followed by a resend of its transaction_id within
 * retry_window_s of the moment the wallet finished with it (reply written or connection closed).
 */
export function lostReplyRetried(f: Facts): CheckRun {
  const window = f.t.retry_window_s * 1000;
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  let resent = 0;
  for (const attempts of f.byTx.values()) {
    if (!movesMoney(attempts[0]!) || !attempts.some((a) => a.outcome === 'lost')) continue;
    run.exercised++;
    let ok = true;
    for (const a of attempts) {
      if (a.outcome !== 'lost') continue;
      const next = attempts[a.nth + 1];
      const deadline = a.end === undefined ? undefined : a.end + window;
      if (next && (deadline === undefined || next.at <= deadline)) continue;
      ok = false;
      if (next)
        run.violations.push(
          violation(
            `the reply to ${describe(a)} was lost; it was resent only ${seconds(next.at - a.end!)} later (#${next.id}), after the ${seconds(window)} window`,
            [a, next],
          ),
        );
      else if (deadline === undefined || f.now <= deadline) run.pending++;
      else
        run.violations.push(
          violation(`the reply to ${describe(a)} was lost and the transaction was never resent within ${seconds(window)}`, [a]),
        );
      break;
    }
    if (ok) resent++;
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'bet/bet_result transaction')} with a lost reply: ${resent} resent in time, ${run.pending} still within the window, ${run.violations.length} not resent in time`;
  return run;
}
