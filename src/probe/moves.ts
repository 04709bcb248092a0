import {
  type BetLine,
  betRequest,
  betResultRequest,
  loginRequest,
  newGameNo,
  type ResultLine,
  type RoundInfo,
} from '../client/callbacks.js';
import { type Money, sum } from '../money.js';
import type { ProbeTarget } from './types.js';
import type { Check } from './session.js';

/** The moves the battery's checks are made of: a round, a bet, a settlement, a closing login. */

export const newRound = (target: ProbeTarget): RoundInfo => ({ currency: target.currency, game_no: newGameNo('probe') });

export const line = (bet_index: string, bet_type: string, amount: Money): BetLine => ({ bet_index, bet_type, bet_amount: amount });

/** Bets, expects R0 and the debit; returns the balance after it when the wallet acknowledged it. */
export async function placeBet(
  c: Check,
  label: string,
  before: Money | undefined,
  r: RoundInfo,
  bets: BetLine[],
  transaction_id?: string,
): Promise<Money | undefined> {
  const stake = sum(bets.map((b) => b.bet_amount));
  const reply = await c.send(label, betRequest(c.session.env({ transaction_id }), r, bets), { expect: ['R0'] });
  if (reply.code !== 'R0') return undefined;
  c.opened(r, bets);
  c.balanceIs(reply, before?.minus(stake), `${before?.toFixed()} - stake ${stake.toFixed()}`);
  return before?.minus(stake);
}

/** Settles with these results, expects R0 and the credit (stake + net win-loss). */
export async function settle(
  c: Check,
  label: string,
  balance: Money | undefined,
  r: RoundInfo,
  results: ResultLine[],
): Promise<Money | undefined> {
  const stake = sum(results.map((x) => x.bet_amount));
  const net = sum(results.map((x) => x.winloss));
  const credit = stake.plus(net);
  const reply = await c.send(label, betResultRequest(c.session.env(), r, results), { expect: ['R0'] });
  if (reply.code !== 'R0') return undefined;
  c.settled(r.game_no, credit);
  c.balanceIs(
    reply,
    balance?.plus(credit),
    `${balance?.toFixed()} + credit ${credit.toFixed()} (stake ${stake.toFixed()} ${net.isNeg() ? '-' : '+'} winloss ${net.abs().toFixed()})`,
  );
  return balance?.plus(credit);
}

/** A closing login: the balance must be what the acknowledged replies say. */
export async function closingLogin(c: Check, expected: Money | undefined, why: string): Promise<void> {
  const reply = await c.send('login (balance check)', loginRequest(c.session.env()), { expect: ['R0'] });
  c.balanceIs(reply, expected, why);
}
