import { mark, marked, openWindow } from '../model.js';
import { type Attempt, describe, movesMoney, seconds, UNCERTAIN } from '../attempt.js';
import type { Grader, Reducer, Tx } from '../grader.js';
import { asGraded, sameBets } from '../graded-body.js';

const ID = 'RETRY_SAME_TRANSACTION';

type Watched = Map<string, Map<string, { tx: Tx; uncertain: Attempt }>>;
const none = (): Watched => new Map();
/** Transactions whose last news was a lost or failed reply, by player, event and game_no. */
const watched = (g: Grader) => g.state(ID, none);
const keyOf = (a: Attempt) => `${a.event}:${a.round}`;
/** What an uncertain outcome means, as the violation says it. */
const UNCERTAIN_WORDS: Partial<Record<Attempt['outcome'], string>> = {
  lost: 'was lost',
  R1: 'was R1 (not applied, or not known to be)',
  failed: 'had no readable code (not known to be applied)',
};

/**
 * Whether `a`, under a new transaction_id, is the uncertain callback `u` sent again. A round has one
 * settlement, so any other bet_result of it is; a round may have several bets, so another bet is
 * only when it carries the same bets (stake and bet_index values, as NO_RETRY_AFTER_REFUSAL compares
 * them): a different chip added meanwhile is a bet of its own.
 */
const sentAgain = (u: Attempt, a: Attempt) => a.effect !== 'opens' || sameBets(asGraded(u.body), asGraded(a.body));

/**
 * After a lost or failed (R1) bet or bet_result, and until that transaction gets a definite answer,
 * the same callback (same player, event_type and game_no; for a bet, the same bets) may not arrive
 * under a new transaction_id: the wallet may already have applied the first one (double debit,
 * double credit).
 */
export const retrySameTransaction: Reducer = {
  known(g, a, tx) {
    if (!movesMoney(a) || a.game === undefined) return;
    const tally = g.tally(ID);
    const all = watched(g);
    if (UNCERTAIN.has(a.outcome) && !tx.resolved && !marked(tx, ID)) {
      mark(tx, ID);
      tally.exercise(a.user);
      tally.pend(tx.id, a.user);
      const key = keyOf(a);
      let map = all.get(key);
      if (!map) all.set(key, (map = new Map()));
      map.set(tx.id, { tx, uncertain: a });
    } else if (tx.resolved === a) {
      // Most answers find nothing watched: no key is built for them.
      const key = all.size ? keyOf(a) : undefined;
      const map = key === undefined ? undefined : all.get(key);
      if (map?.delete(tx.id) && !map.size) all.delete(key!);
      tally.unpend(tx.id);
    }
  },
  ended(g, a, tx) {
    // Pending while the transaction may still be resent: until retry_window_s after its last attempt.
    if (!marked(tx, ID) || tx.resolved || tx.last !== a) return;
    openWindow(
      tx,
      ID,
      g.when(a.end! + g.windowMs, () => {
        tx.windows!.delete(ID);
        g.tally(ID).unpend(tx.id);
      }),
    );
  },
  arrive(g, a) {
    if (a.nth !== 0 || !movesMoney(a) || a.game === undefined) return;
    const all = watched(g);
    const map = all.size ? all.get(keyOf(a)) : undefined;
    if (!map) return;
    for (const [id, w] of map) {
      if (id === a.tx || w.uncertain.knownAt! > a.at || !sentAgain(w.uncertain, a)) continue;
      map.delete(id);
      if (!map.size) all.delete(keyOf(a));
      const tally = g.tally(ID);
      tally.unpend(id);
      tally.violate(
        `the reply to ${describe(w.uncertain)} ${UNCERTAIN_WORDS[w.uncertain.outcome] ?? `was ${w.uncertain.outcome}`}; ${seconds(a.at - w.uncertain.knownAt!)} later ${describe(a)} arrived for the same round ${a.game} under a new transaction_id instead of a resend of ${id}`,
        [w.uncertain, a],
        a.tx,
      );
    }
  },
};
