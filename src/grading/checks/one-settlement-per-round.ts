import { type CheckRun, describe, plural, violation } from '../check.js';
import type { Facts } from '../facts.js';
import { openedRounds } from '../rounds.js';

/** A settled round gets no bet_result under another transaction_id. */
export function oneSettlementPerRound(f: Facts): CheckRun {
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const { round, settlement } of openedRounds(f)) {
    if (!settlement) continue;
    run.exercised++;
    const again = round.results.filter(
      (r) => r.nth === 0 && r.tx !== settlement.tx && (r.at > settlement.at || (r.at === settlement.at && r.id > settlement.id)),
    );
    if (again.length)
      run.violations.push(
        violation(
          `round ${round.game} was settled by ${describe(settlement)}; ${describe(again[0]!)} settles it again under a new transaction_id`,
          [settlement, ...again],
          again[0]!.tx,
        ),
      );
  }
  run.detail =
    run.exercised === 0 ? '' : `${plural(run.exercised, 'settled round')}: ${run.exercised - run.violations.length} settled once`;
  return run;
}
