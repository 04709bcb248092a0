import { marked, mark } from '../model.js';
import { DEFINITE, describe, seconds } from '../attempt.js';
import type { Grader, Reducer } from '../grader.js';

const ID = 'ROUNDS_SETTLED';
const LATE = `${ID}:late`;
/** The provider did its part: the round's settlement, or its applied bet, was refused by an answer not of wallet-sim's rules. */
const ENDED = `${ID}:ended`;

/**
 * Every round opened by an R0 bet is settled within round_max_age_s: pending while it is younger,
 * failed once it is older — seen when it is settled late, or by a report while it is still open
 * (a late settlement does not undo that). Nothing is held per round but the open rounds themselves.
 *
 * A round stops being waited for when the provider read a definite refusal (R2–R4) that a scenario
 * rule forced or the upstream answered (proxy mode) to its settlement, or to a resend of the bet
 * that opened it: the provider sent what it had to, and resending it would break
 * NO_RETRY_AFTER_REFUSAL; what is left is the operator's to resolve. A refusal of wallet-sim's own
 * rules (a settlement whose stake or round is wrong) leaves the round waiting for a correct one.
 */
export const roundsSettled: Reducer = {
  arrive(g, a) {
    // A settlement the wallet answered with a garbled reply counts as sent: the provider may give up on it.
    if (!(a.applied || (a.excused && a.effect === 'settles')) || a.game === undefined) return;
    const round = g.roundOf(a);
    const tally = g.tally(ID);
    const key = a.round!;
    if (a.effect === 'opens' && !round?.opener) {
      tally.exercise(a.user);
      tally.pend(key, a.user);
    } else if (a.effect === 'settles' && round?.opener && !round.settlement) {
      tally.unpend(key);
      const maxAge = g.t.round_max_age_s * 1000;
      if (a.at - round.opener.at > maxAge && !marked(round, LATE) && !marked(round, ENDED))
        tally.violate(
          `round ${round.game} of ${round.user}, opened by ${describe(round.opener)}, was settled only after ${seconds(a.at - round.opener.at)} by ${describe(a)} (at most ${seconds(maxAge)})`,
          [round.opener, a],
        );
    }
  },
  known(g, a) {
    if (!a.imposed || !DEFINITE.has(a.outcome) || a.round === undefined) return;
    const round = g.roundOf(a);
    if (!round?.opener || round.settlement || marked(round, LATE)) return;
    if (a.effect === 'settles' || (a.effect === 'opens' && a.tx === round.opener.tx)) {
      mark(round, ENDED);
      g.tally(ID).unpend(a.round);
    }
  },
  report(g: Grader, now: number) {
    const maxAge = g.t.round_max_age_s * 1000;
    const tally = g.tally(ID);
    for (const [key, round] of g.open) {
      if (now - round.opener!.at <= maxAge || marked(round, LATE) || marked(round, ENDED)) continue;
      mark(round, LATE);
      tally.unpend(key);
      tally.violate(
        `round ${round.game} of ${round.user}, opened by ${describe(round.opener!)}, is still open after ${seconds(now - round.opener!.at)} (at most ${seconds(maxAge)})`,
        [round.opener!],
        undefined,
        round.opener!.at + maxAge, // decided when its age ran out, not when the report was read
      );
    }
  },
};
