import { type CheckRun, describe, plural, violation } from '../check.js';
import { DEFINITE, type Facts } from '../facts.js';

/** A transaction answered R2, R3 or R4 (a definite answer the provider read) is not sent again. */
export function noRetryAfterRefusal(f: Facts): CheckRun {
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const attempts of f.byTx.values()) {
    const refusal = attempts.find((a) => DEFINITE.has(a.outcome));
    if (!refusal) continue;
    run.exercised++;
    const again = attempts.filter((a) => a.nth > refusal.nth && a.at >= refusal.knownAt!);
    if (again.length)
      run.violations.push(
        violation(
          `${describe(refusal)} was refused with ${refusal.outcome}, a definite answer, yet it was sent again ${plural(again.length, 'time')} (#${again.map((a) => a.id).join(', #')})`,
          [refusal, ...again],
        ),
      );
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'transaction')} refused with R2/R3/R4: ${run.exercised - run.violations.length} not sent again`;
  return run;
}
