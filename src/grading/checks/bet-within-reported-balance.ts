import { money } from '../../money.js';
import { type CheckRun, describe, plural, violation } from '../check.js';
import type { Attempt, Facts } from '../facts.js';

/** A new bet's total is at most the latest_balance last read by the provider for that player. */
export function betWithinReportedBalance(f: Facts): CheckRun {
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const attempts of f.byUser.values()) {
    const reports = attempts.filter((a) => a.balance !== undefined).sort((a, b) => a.knownAt! - b.knownAt!);
    let r = -1;
    for (const bet of attempts) {
      if (bet.event !== 'bet' || bet.nth !== 0 || bet.total === undefined) continue;
      while (r + 1 < reports.length && reports[r + 1]!.knownAt! <= bet.at) r++;
      // The latest reply read by then to a callback sent before the bet (times are in ms: the
      // bet's own reply may carry the same millisecond).
      let report: Attempt | undefined;
      for (let k = r; k >= 0 && !report; k--) if (reports[k]!.id < bet.id) report = reports[k];
      if (!report) continue;
      run.exercised++;
      if (money(bet.total).gt(money(report.balance!))) {
        run.violations.push(
          violation(
            `${describe(bet)} stakes ${bet.total}, more than the balance ${report.balance} reported by the reply to #${report.id}`,
            [report, bet],
            bet.tx,
          ),
        );
      }
    }
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'bet')} placed after a reported balance: ${run.exercised - run.violations.length} within it`;
  return run;
}
