import { closeWindow, mark, marked, openWindow } from '../model.js';
import { type Attempt, describe, movesMoney, seconds } from '../attempt.js';
import type { Grader, Reducer, Tx } from '../grader.js';

const ID = 'LOST_REPLY_RETRIED';
const FAILED = `${ID}:failed`;
/** The lost attempt each window waits on: it ends retry_window_s after its `knownAt` (a resend after that is late, however late folded). */
const lostOf = new WeakMap<Tx, Attempt>();

/**
 * Every lost reply of a bet or bet_result is followed by a resend of its transaction_id within
 * retry_window_s of the moment the provider knew it was lost (connection closed, its time-out ran
 * out). The window opens when the loss is known and closes at the resend.
 */
export const lostReplyRetried: Reducer = {
  known(g: Grader, a: Attempt, tx: Tx) {
    if (!movesMoney(a) || a.outcome !== 'lost' || marked(tx, FAILED)) return;
    const tally = g.tally(ID);
    if (!marked(tx, ID)) {
      mark(tx, ID);
      tally.exercise(a.user);
    }
    // Already resent (before the loss was known: a late reply): nothing to wait for. Nor after
    // max_attempts attempts: one more would fail RETRY_BACKOFF, so giving up there is right.
    if (tx.last !== a || tx.windows?.has(ID) || tx.count >= g.t.max_attempts) return;
    const window = g.windowMs;
    tally.pend(tx.id, a.user);
    let due = a.knownAt! + window;
    lostOf.set(tx, a);
    const expire = () => {
      // The caller closed the connection after its declared time-out, before the window ended: it
      // knew then (Grader.closed moved knownAt), and the window runs from then.
      if (a.knownAt! + window > due) return openWindow(tx, ID, g.when((due = a.knownAt! + window), expire));
      tx.windows!.delete(ID);
      mark(tx, FAILED);
      tally.unpend(tx.id);
      // Written a moment after its time-out ran out: the provider may have read it, and then rightly kept it.
      if (a.near !== undefined) return tally.excuse(a.user);
      tally.violate(
        `the reply to ${describe(a)} ${howLost(a, g.timeoutMs)} and the transaction was never resent within ${seconds(window)}`,
        [a],
      );
    };
    openWindow(tx, ID, g.when(due, expire));
  },
  arrive(g: Grader, a: Attempt, tx: Tx) {
    // A resend after the window's end leaves it to run out, even while the session's clock is held
    // back (another callback still being decided): the verdict never depends on another's pace.
    const lost = lostOf.get(tx);
    if (a.nth === 0 || (lost && a.at > lost.knownAt! + g.windowMs) || !closeWindow(tx, ID)) return;
    g.tally(ID).unpend(tx.id);
  },
};

/** How the provider lost an attempt's reply (its time-out: the scenario's client_timeout_s). */
export function howLost(a: Attempt, timeoutMs: number): string {
  if (a.fault?.dropped) return 'was lost (the connection was closed without a reply)';
  if (a.closedAt !== undefined && (a.end === undefined || a.closedAt < a.end)) return 'was lost (the caller closed the connection first)';
  if (a.end !== undefined && a.end - a.at > timeoutMs)
    return `was lost: written after ${seconds(a.end - a.at)}, past the client_timeout_s of ${seconds(timeoutMs)} (to a provider with that time-out, no reply)`;
  return `was lost (none within the client_timeout_s of ${seconds(timeoutMs)})`;
}
