import { marked, mark } from '../model.js';
import { describe } from '../attempt.js';
import type { Reducer } from '../grader.js';

const ID = 'ONE_SETTLEMENT_PER_ROUND';

/** A round opened and settled in the session gets no bet_result under another transaction_id. */
export const oneSettlementPerRound: Reducer = {
  arrive(g, a) {
    if (a.effect !== 'settles') return;
    const round = g.roundOf(a);
    if (!round?.opener) return;
    const tally = g.tally(ID);
    const settled = round.settlement;
    if (!settled) {
      if (a.applied) tally.exercise(a.user);
      return;
    }
    if (a.nth !== 0 || a.tx === settled.tx || marked(round, ID)) return;
    mark(round, ID);
    tally.violate(
      `round ${round.game} was settled by ${describe(settled)}; ${describe(a)} settles it again under a new transaction_id`,
      [settled, a],
      a.tx,
    );
  },
};
