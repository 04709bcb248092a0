import { describe, roundKey, seconds } from '../attempt.js';
import type { Reducer } from '../grader.js';

const ID = 'ROUNDS_SETTLED';

/**
 * Every round opened by an R0 bet is settled within round_max_age_s: pending while it is younger,
 * failed once it is older (a late settlement does not undo that).
 */
export const roundsSettled: Reducer = {
  arrive(g, a) {
    if (!a.applied || a.game === undefined) return;
    const round = g.roundOf(a);
    const tally = g.tally(ID);
    const key = roundKey(a.user, a.game);
    if (a.event === 'bet' && !round?.opener) {
      tally.exercise(a.user);
      tally.pend(key, a.user);
      const maxAge = g.t.round_max_age_s * 1000;
      g.when(a.at + maxAge, () => {
        if (!g.open.has(key)) return; // settled in time
        tally.unpend(key);
        tally.violate(`round ${a.game} of ${a.user}, opened by ${describe(a)}, was still open after ${seconds(maxAge)}`, [a]);
      });
    } else if (a.event === 'bet_result' && round?.opener && !round.settlement) tally.unpend(key);
  },
};
