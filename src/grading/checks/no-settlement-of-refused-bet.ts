import { marked, mark } from '../model.js';
import { type Attempt, describe } from '../attempt.js';
import type { Grader, Reducer, Round } from '../grader.js';

const ID = 'NO_SETTLEMENT_OF_REFUSED_BET';
const FAILED = `${ID}:failed`;

/**
 * What the provider knew about a round's bets when `a` arrived: `applied` when one of them was read
 * as R0, `refused` when every bet transaction had ended without an R0 (refused R1–R4, or lost and
 * not resent), `open` otherwise (a bet still being answered).
 */
function betsKnown(round: Round): { state: 'applied' | 'refused' | 'open'; last?: Attempt } {
  let last: Attempt | undefined;
  let refused = true;
  for (const tx of round.bets.values()) {
    if (tx.resolved?.outcome === 'R0') return { state: 'applied' };
    if (tx.last.knownAt === undefined) refused = false;
    if (!last || tx.last.at > last.at) last = tx.last;
  }
  return { state: refused && last ? 'refused' : 'open', last };
}

/** No bet_result for a round none of whose bets was applied (as far as the provider knew). */
export const noSettlementOfRefusedBet: Reducer = {
  known(g: Grader, a: Attempt) {
    // Exercised once a bet of the round was refused or lost: the provider then had to hold back.
    if (a.effect !== 'opens' || a.outcome === 'R0') return;
    const round = g.roundOf(a);
    if (!round || marked(round, ID)) return;
    mark(round, ID);
    g.tally(ID).exercise(a.user);
  },
  arrive(g, a) {
    if (a.effect !== 'settles' || a.nth !== 0) return;
    const round = g.roundOf(a);
    if (!round?.bets.size || marked(round, FAILED)) return;
    const { state, last } = betsKnown(round);
    if (state !== 'refused') return;
    mark(round, FAILED);
    if (!marked(round, ID)) {
      mark(round, ID);
      g.tally(ID).exercise(a.user);
    }
    const why =
      last!.outcome === 'lost'
        ? `the reply to its bet ${describe(last!)} was lost and the bet was never resent, so the provider could not know it was applied`
        : `its bets were refused (${[...new Set([...round.bets.values()].map((t) => t.last.outcome))].join(', ')}) and staked nothing`;
    g.tally(ID).violate(`${describe(a)} settles round ${a.game}, but ${why}`, [last!, a], a.tx);
  },
};
