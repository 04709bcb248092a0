import { describe, seconds, stampLag, timeoutTolerance } from '../attempt.js';
import type { Reducer } from '../grader.js';

const ID = 'NO_PREMATURE_RETRY';

/**
 * No resend while the previous attempt is unanswered (reply not written, connection not closed by
 * the wallet) and younger than client_timeout_s less the tolerance. A resend right after a dropped
 * connection is not premature. Only a resend that came while the previous attempt was unanswered
 * is a chance: one after a reply or a drop can never be premature, and counting it would let a
 * client that never waits out a time-out pass a check it never faced.
 */
export const noPrematureRetry: Reducer = {
  arrive(g, a, tx) {
    const p = tx.prev;
    if (!p || tx.last !== a) return;
    const unanswered = p.end === undefined || a.at < p.end;
    if (!unanswered) return;
    const tally = g.tally(ID);
    tally.exercise(a.user);
    const timeout = g.timeoutMs;
    // Up to half the time-out of lag: a burst of players on a starved machine stamps an attempt
    // 0.5-0.8 s late against a 2 s time-out, and a resend at once still falls well short.
    if (a.at - p.at >= timeout - timeoutTolerance(timeout) - stampLag(p, a, timeout, 0.5)) return;
    tally.violate(
      `${describe(a)} was sent ${seconds(a.at - p.at)} after #${p.id}, which was still unanswered: the declared client time-out is ${seconds(timeout)}`,
      [p, a],
    );
  },
};
