import { type CheckRun, describe, plural, violation } from '../check.js';
import { type Facts, seconds } from '../facts.js';
import { openedRounds } from '../rounds.js';

/** Every round opened by an R0 bet is settled within round_max_age_s; younger open rounds are pending. */
export function roundsSettled(f: Facts): CheckRun {
  const maxAge = f.t.round_max_age_s * 1000;
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const { round, opener, settlement } of openedRounds(f)) {
    run.exercised++;
    if (settlement) continue;
    const age = f.now - opener.at;
    if (age <= maxAge) run.pending++;
    else
      run.violations.push(
        violation(
          `round ${round.game} of ${round.user}, opened by ${describe(opener)}, is still open after ${seconds(age)} (at most ${seconds(maxAge)})`,
          round.bets.filter((b) => b.applied),
        ),
      );
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'round')} opened: ${run.exercised - run.pending - run.violations.length} settled, ${run.pending} open but younger than ${seconds(maxAge)}`;
  return run;
}
