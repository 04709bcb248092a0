import { marked, mark } from '../model.js';
import { type Attempt, DEFINITE, describe, seconds, UNCERTAIN } from '../attempt.js';
import type { Grader, Reducer, Round, Tx } from '../grader.js';
import { SUCCESS } from '../../protocol/seed/codes.js';

const ID = 'ROUNDS_SETTLED';
const LATE = `${ID}:late`;
/** The provider did its part and could do no more: the round is excused (counted apart, not passed). */
const ENDED = `${ID}:ended`;

/** Whether the provider read an R0 for one of the round's bets: then it knows the round is open. */
const betReadR0 = (round: Round) => round.bets.values().some((t) => t.resolved?.outcome === SUCCESS || t.last.outcome === SUCCESS);

/** A bet transaction given up on as it should be: max_attempts attempts, the last one left unanswered (lost, R1, no readable code). */
const exhausted = (g: Grader, tx: Tx) => !tx.resolved && tx.count >= g.t.max_attempts && UNCERTAIN.has(tx.last.outcome);

/**
 * Whether `a` (of `tx`) ended the provider's part in an open round: a definite refusal (R2–R4) that
 * a scenario rule forced or the upstream answered, read for its settlement, a resend of its
 * opening bet or another bet of it the wallet applied (the stake the provider knows is then not the
 * wallet's); its settlement given up on after max_attempts unanswered attempts; a bet of it given
 * up on so, where another bet was read as R0 (the stake is then unknown to the provider); or every
 * bet the wallet applied given up on so, with none read as R0. Either way it may not resend
 * (NO_RETRY_AFTER_REFUSAL, RETRY_BACKOFF) nor settle on a guess (NO_SETTLEMENT_OF_REFUSED_BET): the
 * operator resolves the round.
 */
function ends(g: Grader, a: Attempt, tx: Tx, round: Round): boolean {
  const opener = round.opener!.tx;
  if (a.imposed && DEFINITE.has(a.outcome)) return a.effect === 'settles' || (a.effect === 'opens' && (a.tx === opener || a.applied));
  if (!UNCERTAIN.has(a.outcome)) return false;
  if (a.effect === 'settles') return exhausted(g, tx);
  if (a.effect !== 'opens') return false;
  if (betReadR0(round)) return exhausted(g, tx);
  return round.bets.values().every((t) => !(t.id === opener || round.bets.applied(t.id)) || exhausted(g, t));
}

/**
 * When the round's age starts for the provider: its opening bet's arrival, or, when later, that of
 * the first attempt of its bets answered R0 (the replies before lost: it could not settle before).
 */
function ageFrom(round: Round): number {
  let first: number | undefined;
  for (const t of round.bets.values()) {
    const r0 = t.resolved?.outcome === SUCCESS ? t.resolved : t.last.outcome === SUCCESS ? t.last : undefined;
    if (r0 !== undefined && (first === undefined || r0.at < first)) first = r0.at;
  }
  return Math.max(round.opener!.at, first ?? round.opener!.at);
}

/** How old the round is at `at`, said from where its age starts. */
function age(round: Round, at: number): string {
  const from = ageFrom(round);
  return `${seconds(at - from)}${from > round.opener!.at ? ' from the first of its bets answered R0' : ''}`;
}

/**
 * Whether the round's settlement was sent within round_max_age_s and is still being resent (or was
 * until its R0): the provider did its part in time; the wallet's failures delayed it.
 */
function sentInTime(g: Grader, round: Round, maxAge: number): boolean {
  const tx = round.settling;
  return tx !== undefined && tx.first.at - ageFrom(round) <= maxAge;
}

/** A bet_result of the round that arrived before the bet that opened it (refused: no round yet), if the session holds one. */
function settledBeforeItsBet(g: Grader, round: Round): Attempt | undefined {
  const opener = round.opener!;
  for (const tx of g.txs.values()) {
    const a = tx.first;
    if (a.effect === 'settles' && a.at < opener.at && a.user === round.user && a.game === round.game && !a.applied) return a;
  }
  return undefined;
}

/**
 * Whether the provider still resends the settlement: its last attempt still being answered, or
 * within retry_window_s of the provider knowing its outcome, with fewer than max_attempts sent.
 */
const stillResending = (g: Grader, tx: Tx, now: number) =>
  !tx.resolved && (tx.last.knownAt === undefined || (tx.count < g.t.max_attempts && now - tx.last.knownAt <= g.t.retry_window_s * 1000));

/**
 * Every round opened by an R0 bet is settled within round_max_age_s: pending while it is younger,
 * failed once it is older — seen when it is settled late, or by a report while it is still open
 * (a late settlement does not undo that). Nothing is held per round but the open rounds themselves.
 *
 * A round stops being waited for, and is counted as excused, when the provider could do no more
 * (`ends`). A refusal of wallet-sim's own rules (a settlement whose stake or round is wrong) leaves
 * the round waiting for a correct one.
 */
export const roundsSettled: Reducer = {
  arrive(g, a, tx) {
    const round = a.game === undefined ? undefined : g.roundOf(a);
    // A settlement sent for an open round, its answer not known yet: the provider is doing its part (see `report`).
    // (a settlement refused for good gives way to the next one: the round waits for a correct settlement)
    if (a.effect === 'settles' && round?.opener && !round.settlement && (!round.settling || round.settling.resolved)) round.settling = tx;
    // A settlement the wallet answered with a garbled reply counts as sent: the provider may give up on it.
    if (!(a.applied || (a.excused && a.effect === 'settles')) || a.game === undefined) return;
    const tally = g.tally(ID);
    const key = a.round!;
    if (a.effect === 'opens' && !round?.opener) {
      tally.exercise(a.user);
      tally.pend(key, a.user);
    } else if (a.effect === 'settles' && round?.opener && !round.settlement) {
      tally.unpend(key);
      const maxAge = g.t.round_max_age_s * 1000;
      if (a.at - ageFrom(round) > maxAge && !marked(round, LATE) && !marked(round, ENDED) && !sentInTime(g, round, maxAge))
        tally.violate(
          `round ${round.game} of ${round.user}, opened by ${describe(round.opener)}, was settled only after ${age(round, a.at)} by ${describe(a)} (at most ${seconds(maxAge)})`,
          [round.opener, a],
        );
    }
  },
  known(g, a, tx) {
    if (a.round === undefined || !(DEFINITE.has(a.outcome) || UNCERTAIN.has(a.outcome))) return;
    const round = g.roundOf(a);
    if (!round?.opener || round.settlement || marked(round, LATE) || marked(round, ENDED)) return;
    // A settlement without an answer the provider could read: it resends it (or gives up at max_attempts).
    if (a.effect === 'settles' && UNCERTAIN.has(a.outcome)) round.settling ??= tx;
    if (!ends(g, a, tx, round)) return;
    mark(round, ENDED);
    const tally = g.tally(ID);
    tally.unpend(a.round);
    tally.excuse(round.user);
  },
  report(g: Grader, now: number) {
    const maxAge = g.t.round_max_age_s * 1000;
    const tally = g.tally(ID);
    for (const [key, round] of g.open) {
      if (now - ageFrom(round) <= maxAge || marked(round, LATE) || marked(round, ENDED)) continue;
      // Its settlement sent in time, or a bet of it, still being resent: pending (an R0 settles or
      // opens on, max_attempts excuses it); the provider is doing its part, the wallet failing it.
      if (sentInTime(g, round, maxAge) && stillResending(g, round.settling!, now)) continue;
      if (round.bets.values().some((t) => UNCERTAIN.has(t.last.outcome) && stillResending(g, t, now))) continue;
      mark(round, LATE);
      tally.unpend(key);
      const early = settledBeforeItsBet(g, round);
      tally.violate(
        `round ${round.game} of ${round.user}, opened by ${describe(round.opener!)}, is still open after ${age(round, now)} (at most ${seconds(maxAge)})` +
          (early
            ? `; ${describe(early)} came before that bet, and was refused as settling a round never bet: send it after the bet's R0`
            : ''),
        early ? [early, round.opener!] : [round.opener!],
        undefined,
        ageFrom(round) + maxAge, // decided when its age ran out, not when the report was read
      );
    }
  },
};
