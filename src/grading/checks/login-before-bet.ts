import { type CheckRun, describe, plural, violation } from '../check.js';
import type { Facts } from '../facts.js';

/** A player's first bet comes after a login of theirs that the wallet accepted (R0). */
export function loginBeforeBet(f: Facts): CheckRun {
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const attempts of f.byUser.values()) {
    const bet = attempts.find((a) => a.event === 'bet');
    if (!bet) continue;
    run.exercised++;
    if (!attempts.some((a) => a.event === 'login' && a.applied && a.at < bet.at)) {
      run.violations.push(violation(`${describe(bet)} is the first bet of ${bet.user}, and no login of theirs succeeded before it`, [bet]));
    }
  }
  run.detail =
    run.exercised === 0 ? '' : `${plural(run.exercised, 'player')} betting: ${run.exercised - run.violations.length} logged in first`;
  return run;
}
