import { marked, mark, REPORTS_KEPT } from '../model.js';
import { NOT_ENOUGH_BALANCE } from '../../protocol/seed/codes.js';
import { type Attempt, DEFINITE, describe, movesMoney, seconds } from '../attempt.js';
import type { Grader, Reducer } from '../grader.js';
import { asGraded } from '../graded-body.js';

const ID = 'NO_RETRY_AFTER_REFUSAL';

/** What makes two bets (or settlements) the same but for their ids and timestamp: player, round and stake (amounts). */
const sameBody = (a: Attempt): string => JSON.stringify([a.user, a.event, a.game, asGraded(a.body).stake]);

/**
 * Refusals of a bet or bet_result still inside retry_window_s: by event and round, then by what
 * their body says (so a callback of a round with no refusal never has its body read).
 */
const none = () => new Map<string, Map<string, Attempt>>();
const refusals = (g: Grader) => g.state(ID, none);
const roundOf = (a: Attempt) => `${a.event}:${a.round}`;

/**
 * Whether a bet refused for want of balance (R4) was followed, before `a` arrived, by a reply that
 * reported a balance covering it (a win settled meanwhile): the same bet then is the player betting
 * again on what it was told, not a blind retry.
 */
function fundedSince(g: Grader, refused: Attempt, a: Attempt): boolean {
  if (refused.outcome !== NOT_ENOUGH_BALANCE || a.total === undefined) return false;
  const p = g.player(a.user);
  for (let i = 0; i < Math.min(p.reports, REPORTS_KEPT); i++) {
    const r = p.reportedBy![i]!;
    if (r.knownAt! > refused.knownAt! && r.knownAt! <= a.at && p.reportedBalance![i]! >= a.total) return true;
  }
  return false;
}

/**
 * A transaction answered R2, R3 or R4 (a definite answer the provider read) is not sent again: not
 * under its own transaction_id, nor — for a bet or bet_result — within retry_window_s as the same
 * body under a new transaction_id (a client that rebuilds the request on every try), unless the bet
 * was refused for its balance and a later reply reported enough (`fundedSince`).
 */
export const noRetryAfterRefusal: Reducer = {
  known(g, a, tx) {
    if (!DEFINITE.has(a.outcome) || tx.resolved !== a) return;
    g.tally(ID).exercise(a.user);
    if (!movesMoney(a) || a.game === undefined) return;
    const [round, key] = [roundOf(a), sameBody(a)];
    let byBody = refusals(g).get(round);
    if (!byBody) refusals(g).set(round, (byBody = new Map()));
    byBody.set(key, a);
    g.when(a.knownAt! + g.windowMs, () => {
      if (byBody.get(key) === a) byBody.delete(key);
      if (!byBody.size && refusals(g).get(round) === byBody) refusals(g).delete(round);
    });
  },
  arrive(g, a, tx) {
    const tally = g.tally(ID);
    const refusal = tx.resolved;
    // (A refusal written as the provider's time-out ran out may never have been read: resending it is right too.)
    if (
      a.nth > 0 &&
      refusal &&
      DEFINITE.has(refusal.outcome) &&
      refusal.near === undefined &&
      a.at >= refusal.knownAt! &&
      !marked(tx, ID)
    ) {
      mark(tx, ID);
      tally.violate(
        `${describe(refusal)} was refused with ${refusal.outcome}, a definite answer, yet #${a.id} sent it again`,
        [refusal, a],
        undefined,
        undefined,
        tx,
      );
      return;
    }
    if (a.nth !== 0 || !movesMoney(a) || a.game === undefined) return;
    const all = refusals(g);
    const byBody = all.size ? all.get(roundOf(a)) : undefined; // most sessions refuse nothing: no key built
    if (!byBody) return;
    const key = sameBody(a);
    const earlier = byBody.get(key);
    // (within the window only, however late it is folded: the clock may be held back by another callback)
    const outside = (e: Attempt) => a.at < e.knownAt! || a.at > e.knownAt! + g.windowMs;
    if (!earlier || earlier.tx === a.tx || outside(earlier) || earlier.near !== undefined || fundedSince(g, earlier, a)) return;
    byBody.delete(key);
    tally.violate(
      `${describe(earlier)} was refused with ${earlier.outcome}, a definite answer; ${seconds(a.at - earlier.knownAt!)} later ${describe(a)} sent the same ${a.event} (same round and amounts) again under a new transaction_id`,
      [earlier, a],
      a.tx,
      undefined,
      g.txs.get(earlier.tx), // the refused transaction is the chance, also when it was sent again under its own id
    );
  },
};
