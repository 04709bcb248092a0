import { mark } from '../model.js';
import { type Attempt, stampLag } from '../attempt.js';
import type { Reducer } from '../grader.js';

const ID = 'RETRY_BACKOFF';

/** Clock jitter allowed before a wait counts as shorter than the one before it. */
const tolerance = (ms: number) => Math.max(100, ms * 0.1);

/**
 * How much shorter than min_retry_gap_ms the gap between `p`'s and the resend's arrival stamps may
 * look, in proportion to the gap: a fifth for the client's and the network's jitter, and `p`'s
 * stamp lag (it may be stamped late, which shortens the gap; a late resend only lengthens it) up
 * to a quarter more. So at most 45%: a resend at once (tens of ms) fails any gap of 100 ms or more
 * however loaded the machine. A fixed floor (the time-out's 100 ms) would swallow a 100–150 ms gap.
 */
export const minGapAllowance = (minGap: number, p: { lag?: number }) => minGap * 0.2 + Math.min(p.lag ?? 0, minGap / 4);

/** How long the provider waited before `r`: from when it knew the previous attempt's outcome. */
const waitBefore = (p: Attempt, r: Attempt) => Math.max(0, r.at - Math.min(p.knownAt ?? r.at, r.at));

/**
 * Attempts of one transaction are spaced: never closer than min_retry_gap_ms, each wait not
 * shorter than the one before it, at most max_attempts of them. Each is judged once per transaction.
 */
export const retryBackoff: Reducer = {
  arrive(g, a, tx) {
    const p = tx.prev;
    if (!p || tx.last !== a) return;
    const { min_retry_gap_ms: minGap, max_attempts: max } = g.t;
    const tally = g.tally(ID);
    if (a.nth === 1) tally.exercise(a.user);
    const once = (what: string) => mark(tx, `${ID}:${what}`);
    // Cited: the first attempt, the last one allowed and the one past it (a fact that stays true
    // whatever is sent after it); the attempts between are counted in the words, not drawn.
    if (tx.count > max && once('max'))
      tally.violate(`#${a.id} was attempt ${tx.count} of ${a.tx} (max_attempts ${max})`, [tx.first, p, a], a.tx, undefined, tx);
    if (a.at - p.at < minGap - minGapAllowance(minGap, p) && once('gap'))
      tally.violate(`#${a.id} resent ${a.tx} ${a.at - p.at} ms after #${p.id} (at least ${minGap} ms)`, [p, a], a.tx, undefined, tx);
    const wait = waitBefore(p, a);
    const gap = a.at - p.at;
    const [before, beforeGap, waitedAfter] = [tx.wait, tx.gap, tx.waitedAfter];
    tx.wait = wait;
    tx.gap = gap;
    tx.waitedAfter = p;
    // A stamp is late, never early: the waits differ by at most p's two stamps' lags beyond the truth.
    // A back-off may grow the wait after each failure (retry libraries) or the gap between sends (a
    // policy that counts from the send, so a time-out eats into the next wait): it shrinks only
    // when both do.
    const shrinks = (now: number, then: number | undefined) => then !== undefined && now < then - tolerance(then) - stampLag(p, a, then);
    if (!shrinks(wait, before) || !shrinks(gap, beforeGap) || !once('shrink')) return;
    tally.violate(
      `${a.tx} waited ${wait} ms before #${a.id}, less than the ${before} ms it waited before #${p.id}: back-off must not shrink`,
      // The earlier wait ran from the reply to the attempt before #p: cited too, so both waits are drawn.
      [...(waitedAfter ? [waitedAfter] : []), p, a],
      a.tx,
      undefined,
      tx,
    );
  },
};
