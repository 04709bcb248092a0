import { marked, mark } from '../model.js';
import { describe, seconds } from '../attempt.js';
import type { Reducer } from '../grader.js';

const ID = 'NO_SETTLEMENT_BEFORE_BET_REPLY';

/**
 * No bet_result while a bet of its round is unanswered: an attempt of that bet is still being
 * answered and no attempt of it had been answered yet. (A timed-out bet resent and answered at once
 * is answered, even while its first attempt's late reply is still to come.)
 */
export const noSettlementBeforeBetReply: Reducer = {
  arrive(g, a, tx) {
    if (a.effect !== 'settles') return;
    const round = g.roundOf(a);
    if (!round?.bets.size) return;
    const tally = g.tally(ID);
    if (a.nth === 0) tally.exercise(a.user);
    if (marked(tx, ID)) return;
    for (const bet of round.bets.values()) {
      if (bet.running === 0 || bet.read) continue;
      mark(tx, ID);
      tally.violate(
        `${describe(a)} arrived ${seconds(a.at - bet.last.at)} after ${describe(bet.last)}, while that bet was still unanswered`,
        [bet.last, a],
        a.tx,
      );
      return;
    }
  },
};
