import { marked, mark } from '../model.js';
import { type Attempt, DEFINITE, describe } from '../attempt.js';
import type { Grader, Reducer, Round, Tx } from '../grader.js';
import { FAILED as PROCESSING_FAILED, SUCCESS } from '../../protocol/seed/codes.js';

const ID = 'NO_SETTLEMENT_OF_REFUSED_BET';
const FAILED = `${ID}:failed`;
/** A bet transaction read as R0 after a first definite answer that was not (a refused bet resent and then applied). */
const APPLIED = `${ID}:applied`;
/** A bet transaction the wallet answered with a garbled reply (proxy mode): it may have been applied. */
const EXCUSED = `${ID}:excused`;

/** Whether the provider read an R0 for one of the transaction's attempts (or may have: one written as its time-out ran out). */
const readR0 = (tx: Tx) => tx.resolved?.outcome === SUCCESS || tx.last.near === SUCCESS || marked(tx, APPLIED) || marked(tx, EXCUSED);

/**
 * What the provider knew about a round's bets when a settlement arrived: `applied` when one of them
 * was read as R0, `refused` when every bet transaction had ended without an R0 (answered R1–R4 or
 * with no readable code, or lost and not resent), `open` otherwise (a bet still being answered).
 */
function betsKnown(round: Round, at: number, timeoutMs: number): 'applied' | 'refused' | 'open' {
  let refused = round.bets.size > 0;
  for (const tx of round.bets.values()) {
    if (readR0(tx)) return 'applied';
    // When the provider learnt its last outcome: its time-out, if that ran out first (a clock held back may not have
    // reached it); learnt after the settlement arrived, still open then (proxy mode may grade the bet's answer first).
    const last = tx.last;
    const known = last.knownAt ?? (last.outcome === 'waiting' && last.at + timeoutMs <= at ? last.at + timeoutMs : undefined);
    if (known === undefined || known > at) refused = false;
  }
  return refused ? 'refused' : 'open';
}

/**
 * What the provider last learnt of one bet, and what that meant: only facts the report can cite (an
 * R0 is never among them here). `applied`: an attempt of it the wallet applied whose R0 never reached
 * the provider; `max`: max_attempts.
 */
function betPhrase(tx: Tx, max: number, applied: Attempt | undefined): string {
  const a = tx.last;
  if (DEFINITE.has(a.outcome)) {
    const refused = `bet ${a.tx} was refused with ${a.outcome} (#${a.id})`;
    if (applied?.id === a.id)
      return `${refused}, though the wallet applied that attempt (its reply said otherwise), so the provider had no R0 for it: a refused bet is not settled (send a bet_result only for a bet answered R0)`;
    return applied
      ? `${refused}, though an earlier attempt (#${applied.id}) was applied and its reply lost, so the provider had no R0 for it: a refused bet is not settled (send a bet_result only for a bet answered R0)`
      : `${refused}, so it staked nothing`;
  }
  const what =
    a.outcome === PROCESSING_FAILED
      ? `bet ${a.tx} was answered R1 (#${a.id}), not applied or not known to be,`
      : `the reply to bet ${a.tx} (#${a.id}) ${a.outcome === 'failed' ? 'had no readable code' : 'was lost'}`;
  // Its resends, if any: given up at max_attempts is as it should be (the consequence stands all the same).
  const resent =
    tx.count === 1
      ? a.outcome === PROCESSING_FAILED
        ? ' and was not resent'
        : ' and it was not resent'
      : tx.count >= max
        ? `${a.outcome === PROCESSING_FAILED ? '' : ','} after ${tx.count} attempts (max_attempts ${max}: it was not to be resent again)`
        : `${a.outcome === PROCESSING_FAILED ? '' : ','} after ${tx.count} attempts, and it was not resent again`;
  return `${what}${resent}, so the provider could not know whether it was applied`;
}

/** No bet_result for a round none of whose bets was applied (as far as the provider knew). */
export const noSettlementOfRefusedBet: Reducer = {
  known(g: Grader, a: Attempt, tx: Tx) {
    if (a.effect !== 'opens') return;
    if (a.excused) return void mark(tx, EXCUSED);
    if (a.outcome === SUCCESS) {
      // Rare: an R0 read after a refusal (a resend the rule no longer refused). Only then a mark.
      if (tx.resolved !== a) mark(tx, APPLIED);
      return;
    }
    // Exercised once a bet of the round was refused or lost: the provider then had to hold back.
    const round = g.roundOf(a);
    if (!round || marked(round, ID)) return;
    mark(round, ID);
    g.tally(ID).exercise(a.user);
  },
  arrive(g, a) {
    if (a.effect !== 'settles' || a.nth !== 0) return;
    const round = g.roundOf(a);
    if (!round?.bets.size || marked(round, FAILED)) return;
    if (betsKnown(round, a.at, g.timeoutMs) !== 'refused') return;
    mark(round, FAILED);
    if (!marked(round, ID)) {
      mark(round, ID);
      g.tally(ID).exercise(a.user);
    }
    // An attempt the wallet applied whose R0 never reached the provider (a lost reply, then a resend refused):
    // the bet did stake, and the evidence cites that attempt too.
    const txs = round.bets.values();
    const appliedOf = (t: Tx) => (DEFINITE.has(t.last.outcome) ? round.bets.applied(t.id) : undefined);
    const applied = txs.map(appliedOf).filter((x) => x !== undefined);
    const phrases = txs.map((t) => betPhrase(t, g.t.max_attempts, appliedOf(t)));
    // Every attempt a phrase names (each bet's last, and an applied one), in the order they came; the settlement last.
    const named = [...applied, ...txs.map((t) => t.last)].sort((x, y) => x.id - y.id);
    g.tally(ID).violate(
      `${describe(a)} settles round ${a.game}, but no bet of that round was answered R0: ${phrases.join('; ')}`,
      [...named, a],
      a.tx,
      undefined,
      round,
    );
  },
};
