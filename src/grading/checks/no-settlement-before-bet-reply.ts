import { heldAttempts, marked, mark } from '../model.js';
import { DEFINITE, describe, seconds } from '../attempt.js';
import type { Reducer } from '../grader.js';
import { SUCCESS } from '../../protocol/seed/codes.js';

const ID = 'NO_SETTLEMENT_BEFORE_BET_REPLY';

/**
 * No bet_result while a bet of its round is unanswered: when it arrived, an attempt of that bet was
 * still being answered and none had been answered R0 or refused for good (an R1 answers nothing: a
 * resend of it is still to be answered). (A timed-out bet resent and answered at once is answered,
 * even while its first attempt's late reply is still to come.) Judged by the times, so a bet
 * answered before the settlement was graded (proxy mode grades a callback once its upstream
 * answered) is judged as it stood when the settlement arrived.
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
      const attempts = heldAttempts(bet);
      const answering = attempts.some((b) => b.at <= a.at && (b.end === undefined || b.end > a.at));
      const answered = attempts.some((b) => (b.outcome === SUCCESS || DEFINITE.has(b.outcome)) && b.knownAt! <= a.at);
      if (!answering || answered) continue;
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
