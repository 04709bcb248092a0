import { describe } from '../attempt.js';
import type { Reducer } from '../grader.js';
import { reportBefore } from '../model.js';

const ID = 'BET_WITHIN_REPORTED_BALANCE';

/**
 * A new bet's total is at most the latest_balance the provider had read for that player when it
 * sent the bet: from a reply written before the bet arrived. A reply written after (another of the
 * player's callbacks in flight at once) is not held against it.
 */
export const betWithinReportedBalance: Reducer = {
  arrive(g, a) {
    if (a.effect !== 'opens' || a.nth !== 0 || a.total === undefined) return;
    const p = g.player(a.user);
    const slot = reportBefore(p, a.at, a.id);
    if (slot < 0) return;
    const report = p.reportedBy![slot]!;
    const balance = p.reportedBalance![slot]!;
    const tally = g.tally(ID);
    tally.exercise(a.user);
    // Both are JSON numbers as parsed: parsing keeps the order of the decimals written (equal
    // doubles are not "more"), so comparing the numbers is exact here.
    if (a.total > balance)
      tally.violate(
        `${describe(a)} stakes ${a.total}, more than the balance ${balance} reported by the reply to #${report.id}`,
        [report, a],
        a.tx,
      );
  },
};
