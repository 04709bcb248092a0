import { type Attempt, describe } from '../attempt.js';
import type { Reducer } from '../grader.js';
import { type Player, REPLY_READ_MARGIN_MS, REPORTS_KEPT, reportBefore } from '../model.js';

const ID = 'BET_WITHIN_REPORTED_BALANCE';

/**
 * A new bet's total is at most the latest_balance the provider had read for that player when it
 * sent the bet: from a reply written at least REPLY_READ_MARGIN_MS before the bet arrived (more by
 * how late this process stamped the bet, up to as much again). A reply written later (another of
 * the player's callbacks in flight at once, whose reply the provider may not have read yet) is not
 * held against it; but it may have been read, so a bet within the balance it reported (a win
 * settled meanwhile) is not held against the older one either, nor one within the balance of a
 * callback that arrived while `sure`'s was in flight (`mayHaveRead`).
 */
export const betWithinReportedBalance: Reducer = {
  arrive(g, a) {
    if (a.effect !== 'opens' || a.nth !== 0 || a.total === undefined) return;
    const p = g.player(a.user);
    // The bet may be stamped late by this process's lag (up to the margin again: a second in all).
    const slot = reportBefore(p, a.at, a.id, REPLY_READ_MARGIN_MS + Math.min(a.lag ?? 0, REPLY_READ_MARGIN_MS));
    if (slot < 0) return;
    const report = p.reportedBy![slot]!;
    const balance = p.reportedBalance![slot]!;
    const tally = g.tally(ID);
    tally.exercise(a.user);
    // Both are JSON numbers as parsed: parsing keeps the order of the decimals written (equal
    // doubles are not "more"), so comparing the numbers is exact here.
    if (a.total > balance && a.total > mayHaveRead(p, report, a))
      tally.violate(
        `${describe(a)} stakes ${a.total}, more than the balance ${balance} reported by the reply to #${report.id}`,
        [report, a],
        a.tx,
      );
  },
};

/**
 * The highest balance a bet within which is not judged, of the replies (to earlier callbacks)
 * written before `a` arrived:
 * - those written after `sure`: whether the provider had read them cannot be told;
 * - those to a callback that arrived after `sure`'s, before `sure`'s reply was written: the wallet
 *   may have applied it after `sure`'s, so its balance may be the newer one though its reply came
 *   first (a settlement's win answered while a bet's reply is held). One that arrived before
 *   `sure`'s was applied before it: bets sent at once are judged by the last reply.
 */
function mayHaveRead(p: Player, sure: Attempt, a: Attempt): number {
  let most = -Infinity;
  for (let i = 0; i < Math.min(p.reports, REPORTS_KEPT); i++) {
    const r = p.reportedBy![i]!;
    if (r.id >= a.id || r.knownAt! > a.at) continue;
    const appliedAfter = r.id > sure.id && r.at < sure.knownAt!;
    if (r.knownAt! > sure.knownAt! || appliedAfter) most = Math.max(most, p.reportedBalance![i]!);
  }
  return most;
}
