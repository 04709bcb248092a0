import { SUCCESS } from '../protocol/seed/codes.js';
import { type BetLine, betRequest, betResultRequest, newGameNo, type ResultLine, type RoundInfo } from '../protocol/seed/callbacks.js';
import { type Money, sum } from '../kernel/money.js';
import type { Check } from './session.js';
import type { ProbeTarget, Reply } from './types.js';

/**
 * The moves the checks are made of: a round, a bet, a settlement. Balances after a serial move are
 * the wallet checks' to judge (WALLET_BALANCE_EXACT, WALLET_IDEMPOTENT); a move only keeps the
 * rounds and the acknowledged changes.
 */

export const newRound = (target: ProbeTarget): RoundInfo => ({ currency: target.currency, game_no: newGameNo('probe') });

export const line = (bet_index: string, bet_type: string, amount: Money): BetLine => ({ bet_index, bet_type, bet_amount: amount });

/** Bets, expecting R0 (or `expect`); an R0 opens the round, a bet without a definite answer is noted as unknown. */
export async function placeBet(
  c: Check,
  label: string,
  r: RoundInfo,
  bets: BetLine[],
  o: { transaction_id?: string; expect?: string[]; why?: string; setup?: boolean } = {},
): Promise<Reply> {
  const reply = await c.send(label, betRequest(c.session.env({ transaction_id: o.transaction_id }), r, bets), {
    // A setup bet asserts nothing: when it is refused, the check says it could not judge.
    expect: o.setup ? undefined : (o.expect ?? [SUCCESS]),
    why: o.why,
  });
  if (reply.code === SUCCESS) c.opened(r, bets);
  else if (reply.unusable)
    c.session.unknown.push({
      game_no: r.game_no,
      why: `its bet got ${reply.unusable} on ${reply.attempts} attempts: the wallet may have applied it, so the probe does not settle it`,
    });
  return reply;
}

/** Settles with these results, expecting R0: the credit is stake + net win-loss. */
export async function settle(c: Check, label: string, r: RoundInfo, results: ResultLine[]): Promise<Reply> {
  const credit = sum(results.map((x) => x.bet_amount)).plus(sum(results.map((x) => x.winloss)));
  return c.settleWith(r.game_no, label, betResultRequest(c.session.env(), r, results), credit);
}
