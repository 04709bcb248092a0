import { closeWindow, mark, marked, openWindow } from '../model.js';
import { type Attempt, DEFINITE, describe, seconds } from '../attempt.js';
import type { Grader, Reducer, Tx } from '../grader.js';
import { FAILED, SUCCESS } from '../../protocol/seed/codes.js';
import type { ReportViolation } from '../../protocol/types.generated.js';

const ID = 'FAILED_SETTLEMENT_RETRIED';
const DONE = `${ID}:done`;
/** The attempt each open window waits on (its window ends retry_window_s after its `knownAt`). */
const waitingOn = new WeakMap<Tx, Attempt>();

/**
 * A bet_result answered R1 (or with no readable code) is resent, each time within retry_window_s
 * of the provider knowing the outcome, until it gets R0 (or a definite refusal, after which
 * resending is wrong anyway).
 */
export const failedSettlementRetried: Reducer = {
  known(g: Grader, a: Attempt, tx: Tx) {
    if (a.effect !== 'settles') return;
    if (marked(tx, DONE)) return lateAnswer(g, a, tx);
    const tally = g.tally(ID);
    if (a.excused) {
      // The wallet garbled its reply: giving up is as right as resending (but a late resend does not undo the window it missed).
      if (marked(tx, ID) && !lateResends.has(tx)) {
        mark(tx, DONE);
        closeWindow(tx, ID);
        tally.unpend(tx.id);
      }
      return;
    }
    if (!marked(tx, ID)) {
      if (a.outcome !== FAILED && a.outcome !== 'failed') return;
      mark(tx, ID);
      tally.exercise(a.user);
    }
    if (a.outcome === SUCCESS || DEFINITE.has(a.outcome)) {
      mark(tx, DONE);
      tally.unpend(tx.id);
      return;
    }
    // Already resent; or max_attempts used up, where one more would fail RETRY_BACKOFF: giving up is right.
    if (tx.last !== a || tx.count >= g.t.max_attempts) {
      if (tx.last === a) tally.unpend(tx.id);
      return;
    }
    if (lateResends.has(tx)) return; // a late resend: the window it missed runs out first
    const window = g.windowMs;
    tally.pend(tx.id, a.user);
    waitingOn.set(tx, a);
    let due = a.knownAt! + window;
    const expire = () => {
      // The caller closed the connection late, within the window: it knew then (Grader.closed), and the window runs from then.
      if (a.knownAt! + window > due) return openWindow(tx, ID, g.when((due = a.knownAt! + window), expire));
      {
        tx.windows!.delete(ID);
        mark(tx, DONE);
        tally.unpend(tx.id);
        // Its R0 (or definite refusal) written a moment after the time-out ran out: the provider may have read it, and rightly stopped.
        if (a.near !== undefined && (a.near === SUCCESS || DEFINITE.has(a.near))) return tally.excuse(a.user);
        const what =
          a.nth === 0 || a.outcome === FAILED || a.outcome === 'failed'
            ? `${describe(a)} was answered ${a.outcome === 'failed' ? 'without a readable code' : a.outcome === 'lost' ? 'too late (reply lost)' : a.outcome}`
            : `the resends of ${a.tx} stopped at #${a.id} (its reply lost) before an R0`;
        // Past tense: a resend after the window is added to it when it comes (`arrive`).
        const v = tally.violate(`${what}, and it was not resent within ${seconds(window)}, so its round was left unsettled`, [tx.first, a]);
        if (v) late(g).set(tx.id, { v, after: a });
        // A resend after the window's end, folded before it ran out (the session's clock held back meanwhile).
        const early = lateResends.get(tx);
        lateResends.delete(tx);
        if (early) {
          failedSettlementRetried.arrive!(g, early, tx);
          if (early.knownAt !== undefined) lateAnswer(g, early, tx); // (its answer already known, too)
        }
      }
    };
    openWindow(tx, ID, g.when(due, expire));
  },
  arrive(g, a, tx) {
    if (!marked(tx, ID) || a.nth === 0) return;
    if (marked(tx, DONE)) {
      const missed = late(g).get(tx.id);
      if (!missed || missed.resend) return;
      missed.resend = a;
      const known =
        missed.after.outcome === 'lost'
          ? 'the loss'
          : `the ${missed.after.outcome === 'failed' ? 'unreadable reply' : missed.after.outcome}`;
      g.tally(ID).amend(
        missed.v,
        `; it was resent late: #${a.id} arrived ${seconds(roughly(a.at - missed.after.knownAt!))} after ${known} was known`,
        a,
      );
      return;
    }
    // After the window's end, however early it is folded (another callback held the clock back): late.
    const waited = waitingOn.get(tx);
    if (waited && tx.windows?.has(ID) && a.at > waited.knownAt! + g.windowMs) {
      if (!lateResends.has(tx)) lateResends.set(tx, a);
      return;
    }
    closeWindow(tx, ID);
    g.tally(ID).pend(tx.id, a.user); // being answered
  },
};

/** The first resend after a window's end that arrived while the window was still open (to be added to its violation). */
const lateResends = new WeakMap<Tx, Attempt>();

/**
 * Violations kept (at most MAX_VIOLATIONS) of settlements not resent within the window, by
 * transaction_id: a resend that comes later is added to its violation.
 */
interface Missed {
  v: ReportViolation;
  after: Attempt;
  resend?: Attempt;
}
/** Whole seconds from 10 s on: "90 s", not "90.0 s" for 89,995 ms. */
const roughly = (ms: number) => (ms < 10_000 ? ms : Math.round(ms / 1000) * 1000);
const late = (g: Grader) => g.state(ID, () => new Map<string, Missed>());

const ANSWERED: Record<string, string> = { lost: ' (its reply lost)', failed: ' (its reply had no readable code)' };

/** The outcome of a late resend, once the provider knew it: added to the violation, its excerpt taken again. */
function lateAnswer(g: Grader, a: Attempt, tx: Tx): void {
  const missed = late(g).get(tx.id);
  if (missed?.resend !== a) return;
  late(g).delete(tx.id);
  g.tally(ID).amend(missed.v, ANSWERED[a.outcome] ?? ` (answered ${a.outcome})`, a);
}
