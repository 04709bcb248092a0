import { describe } from '../attempt.js';
import type { Reducer } from '../grader.js';

const ID = 'BET_WITHIN_REPORTED_BALANCE';

/** A new bet's total is at most the latest_balance last read by the provider for that player. */
export const betWithinReportedBalance: Reducer = {
  arrive(g, a) {
    if (a.effect !== 'opens' || a.nth !== 0 || a.total === undefined) return;
    const p = g.player(a.user);
    const report = p.reported;
    if (!report || report.id > a.id) return;
    const tally = g.tally(ID);
    tally.exercise(a.user);
    // Both are JSON numbers as parsed: parsing keeps the order of the decimals written (equal
    // doubles are not "more"), so comparing the numbers is exact here.
    if (a.total > p.balance)
      tally.violate(
        `${describe(a)} stakes ${a.total}, more than the balance ${p.balance} reported by the reply to #${report.id}`,
        [report, a],
        a.tx,
      );
  },
};
