import { type Attempt, DEFINITE, describe, seconds } from '../attempt.js';
import type { Grader, Reducer, Tx } from '../grader.js';

const ID = 'FAILED_SETTLEMENT_RETRIED';
const DONE = `${ID}:done`;

/**
 * A bet_result answered R1 (or with no readable code) is resent, each time within retry_window_s
 * of the provider knowing the outcome, until it gets R0 (or a definite refusal, after which
 * resending is wrong anyway).
 */
export const failedSettlementRetried: Reducer = {
  known(g: Grader, a: Attempt, tx: Tx) {
    if (a.event !== 'bet_result' || tx.marks.has(DONE)) return;
    const tally = g.tally(ID);
    if (!tx.marks.has(ID)) {
      if (a.outcome !== 'R1' && a.outcome !== 'failed') return;
      tx.marks.add(ID);
      tally.exercise(a.user);
    }
    if (a.outcome === 'R0' || DEFINITE.has(a.outcome)) {
      tx.marks.add(DONE);
      tally.unpend(tx.id);
      return;
    }
    if (tx.last !== a) return; // already resent
    const window = g.windowMs;
    tally.pend(tx.id, a.user);
    tx.windows.get(ID)?.();
    tx.windows.set(
      ID,
      g.when(a.knownAt! + window, () => {
        tx.windows.delete(ID);
        tx.marks.add(DONE);
        tally.unpend(tx.id);
        const what =
          a.nth === 0 || a.outcome === 'R1' || a.outcome === 'failed'
            ? `${describe(a)} was answered ${a.outcome === 'failed' ? 'without a readable code' : a.outcome === 'lost' ? 'too late (reply lost)' : a.outcome}`
            : `the resends of ${a.tx} stopped at #${a.id} before an R0`;
        tally.violate(`${what}, and it was not resent within ${seconds(window)}: the round is not settled`, [tx.first, a]);
      }),
    );
  },
  arrive(g, a, tx) {
    if (!tx.marks.has(ID) || tx.marks.has(DONE) || a.nth === 0) return;
    tx.windows.get(ID)?.();
    tx.windows.delete(ID);
    g.tally(ID).pend(tx.id, a.user); // being answered
  },
};
