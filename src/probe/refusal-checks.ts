import { FAILED, INVALID, SUCCESS } from '../protocol/seed/codes.js';
import {
  type BetLine,
  betRequest,
  betResultRequest,
  newTransactionId,
  type ResultLine,
  type RoundInfo,
} from '../protocol/seed/callbacks.js';
import { type Money, ZERO } from '../kernel/money.js';
import { line, newRound, placeBet, settle } from './moves.js';
import type { Check } from './session.js';
import type { ProbeCheck } from './standard-checks.js';
import { unknownPlayer } from './unknown-player.js';

/**
 * What a wallet must refuse (R3, HTTP 200, nothing changed): bodies that fail the schema, and
 * callbacks that are well-formed but wrong for the round, the player or the currency. A refusal
 * check fails only when the wallet answered R0; the money it then moved is the wallet checks' to
 * grade, the round it opened is settled at the end.
 */

const REFUSE = [INVALID, FAILED];
type Json = Record<string, unknown>;
const dataOf = (body: object) => (body as { data: Json }).data;
const firstLine = (body: object, field: 'bets' | 'bet_results') => (dataOf(body)[field] as Json[])[0]!;

/** A refusal check: the name, what it sends, the fix, and the play. */
const check = (name: ProbeCheck['name'], description: string, fix: string, run: ProbeCheck['run']): ProbeCheck => ({
  name,
  description,
  fix,
  run,
});

export function refusalChecks(): ProbeCheck[] {
  const schema = (what: string) =>
    `Validate every callback against the spec before applying it (${what}): answer R3 with HTTP 200 and change nothing.`;
  return [
    check(
      'totals-mismatch',
      'totals that are not the sum of their lines get R3',
      schema('total_bet_amount = Σ bet_amount, total_winloss = Σ winloss'),
      totalsMismatch,
    ),
    check('wrong-types', 'an amount sent as a JSON string gets R3', schema('amounts are JSON numbers, never strings'), wrongTypes),
    check('missing-timestamp', 'a bet without timestamp gets R3', schema('timestamp is required, an integer'), missingTimestamp),
    check('nonpositive-amount', 'a bet of 0 and a bet of a negative amount get R3', schema('amounts are > 0'), nonpositive),
    check(
      'excess-fraction-digits',
      "an amount with more fraction digits than the currency's gets R3",
      schema("no more fraction digits than the currency's"),
      excessDigits,
    ),
    check(
      'other-currency',
      "a bet in a currency other than the player's gets R3",
      "Compare a bet's currency with the player's: another currency gets R3 (never a debit in the wrong unit).",
      otherCurrency,
    ),
    check(
      'bet-on-settled-round',
      'a bet on a round already settled gets R3',
      "Keep each round's state: a bet on a settled round gets R3.",
      betOnSettled,
    ),
    check(
      'winloss-below-stake',
      'a settlement losing more than the stake gets R3',
      'Refuse a bet_result line whose winloss is below -bet_amount (R3): a loss never exceeds the stake.',
      winlossBelowStake,
    ),
    check(
      'unknown-bet-index',
      'a settlement of a bet_index never bet gets R3',
      'Match each bet_result line to a bet of the round by bet_index; an unknown one gets R3.',
      unknownBetIndex,
    ),
    check(
      'settlement-stake-mismatch',
      "a settlement whose total_bet_amount is not the round's stake gets R3",
      "Compare bet_result's total_bet_amount with the round's stake; a difference gets R3 and the round stays open.",
      stakeMismatch,
    ),
    check(
      'unparsable-result-detail',
      'a settlement whose result_detail is not a JSON object gets R3',
      schema('result_detail is a string holding a JSON object'),
      unparsableDetail,
    ),
    check(
      'settle-never-bet-round',
      'a settlement of a round never bet gets R3',
      'Settle only rounds the player bet on: a bet_result for an unknown game_no gets R3 and credits nothing.',
      settleNeverBet,
    ),
    check(
      'settle-settled-round',
      'a second settlement of a round under a new transaction_id gets R3',
      'A settled round never settles again: a bet_result for it under another transaction_id gets R3 (an identical resend replays R0).',
      settleSettled,
    ),
    check(
      'unknown-player',
      'a player the wallet does not know is refused, or created with a balance it keeps',
      'Refuse callbacks for a player you do not know (R3), or create it with a real balance and hold it to it: never R0 on money that is not there.',
      unknownPlayer,
    ),
  ];
}

/** Login, a bet of `stake`, then `play` on the open round; whatever is left open is settled as a push. */
async function withRound(c: Check, stake: Money, play: (r: RoundInfo, bets: BetLine[]) => Promise<void>): Promise<void> {
  await c.login();
  const r = newRound(c.target);
  const bets = [line('1', 'P', stake)];
  const opening = await placeBet(c, 'bet', r, bets, { setup: true });
  if (opening.code !== SUCCESS) return c.skip(`the opening bet was answered ${opening.code ?? opening.unusable}, not R0`);
  await play(r, bets);
  const open = c.session.open.get(r.game_no);
  // Settled as a loss: never the amounts of a settlement just refused (a provider resending a refused
  // settlement under a new transaction_id is what NO_RETRY_AFTER_REFUSAL fails).
  if (open?.settlement) await c.push(r.game_no);
  else if (open) await settle(c, 'bet_result (loss)', r, results(bets, stake.neg()));
}

/** Sends a bet the wallet must refuse; an R0 opens its round (to be settled). */
async function refusedBet(c: Check, label: string, body: object, r: RoundInfo, bets: BetLine[], valid: boolean): Promise<void> {
  await c.login();
  const reply = await c.send(label, body, { expect: REFUSE, valid });
  if (reply.code === SUCCESS) c.opened(r, bets);
  await c.login('login (balance check)');
}

/** Sends a settlement the wallet must refuse; an R0 settles the round (credit as sent). */
async function refusedSettlement(c: Check, label: string, r: RoundInfo, body: object, credit: Money, valid: boolean): Promise<void> {
  // Through settleWith: a settlement without a definite answer is then only ever resent as it was.
  await c.settleWith(r.game_no, label, body, credit, { expect: REFUSE, valid });
}

const results = (bets: BetLine[], winloss: Money): ResultLine[] => bets.map((b) => ({ ...b, winloss }));

async function totalsMismatch(c: Check): Promise<void> {
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(1)), line('2', 'B', c.amount(2))];
  const body = betRequest(c.session.env(), r, bets, c.amount(4));
  await refusedBet(
    c,
    `bet with total_bet_amount ${c.amount(4).toFixed()} != ${c.amount(1).toFixed()} + ${c.amount(2).toFixed()}`,
    body,
    r,
    bets,
    false,
  );
  await withRound(c, c.amount(3), async (r2, good) => {
    const wrong = betResultRequest(c.session.env(), r2, results(good, c.amount(3)), { winloss: c.amount(6) });
    await refusedSettlement(
      c,
      `bet_result with total_winloss ${c.amount(6).toFixed()} != ${c.amount(3).toFixed()}`,
      r2,
      wrong,
      c.amount(9),
      false,
    );
    // Refused for sure (not merely unanswered): the round may then be settled right.
    if (c.session.open.has(r2.game_no) && !c.session.open.get(r2.game_no)?.settlement)
      await settle(c, 'bet_result (correct totals)', r2, results(good, c.amount(3)));
  });
}

async function wrongTypes(c: Check): Promise<void> {
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(5))];
  const body = betRequest(c.session.env(), r, bets);
  dataOf(body).total_bet_amount = c.amount(5).toFixed();
  firstLine(body, 'bets').bet_amount = c.amount(5).toFixed();
  await refusedBet(c, 'bet with total_bet_amount and bet_amount as JSON strings', body, r, bets, false);
}

async function missingTimestamp(c: Check): Promise<void> {
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(1))];
  const body = betRequest(c.session.env(), r, bets) as unknown as Json;
  delete body.timestamp;
  await refusedBet(c, 'bet without timestamp', body, r, bets, false);
}

async function nonpositive(c: Check): Promise<void> {
  for (const amount of [ZERO, c.amount(1).neg()]) {
    const r = newRound(c.target);
    const bets = [line('1', 'P', amount)];
    await refusedBet(c, `bet of ${amount.toFixed()}`, betRequest(c.session.env(), r, bets), r, bets, false);
  }
}

async function excessDigits(c: Check): Promise<void> {
  const r = newRound(c.target);
  const amount = c.amount(1).plus(`1e-${c.target.scale + 1}`);
  const bets = [line('1', 'P', amount)];
  await refusedBet(
    c,
    `bet of ${amount.toFixed()} (${c.target.currency} has ${c.target.scale} fraction digits)`,
    betRequest(c.session.env(), r, bets),
    r,
    bets,
    false,
  );
}

async function otherCurrency(c: Check): Promise<void> {
  const other = c.target.currency === 'EUR' ? 'USD' : 'EUR';
  const r = { ...newRound(c.target), currency: other };
  const bets = [line('1', 'P', c.amount(1))];
  await refusedBet(
    c,
    `bet in ${other} (the player's currency is ${c.target.currency})`,
    betRequest(c.session.env(), r, bets),
    r,
    bets,
    true,
  );
}

async function betOnSettled(c: Check): Promise<void> {
  await withRound(c, c.amount(2), async (r, bets) => {
    if ((await settle(c, 'bet_result (push)', r, results(bets, ZERO))).code !== SUCCESS) return c.skip('the round was not settled');
    const more = [line('2', 'B', c.amount(1))];
    await refusedBet(c, `another bet on the settled round ${r.game_no}`, betRequest(c.session.env(), r, more), r, more, true);
  });
}

async function winlossBelowStake(c: Check): Promise<void> {
  await withRound(c, c.amount(5), async (r, bets) => {
    const loss = c.amount(6).neg();
    const body = betResultRequest(c.session.env(), r, results(bets, loss));
    await refusedSettlement(
      c,
      `bet_result with winloss ${loss.toFixed()} on a stake of ${c.amount(5).toFixed()}`,
      r,
      body,
      c.amount(-1),
      true,
    );
  });
}

async function unknownBetIndex(c: Check): Promise<void> {
  await withRound(c, c.amount(5), async (r, bets) => {
    const body = betResultRequest(c.session.env(), r, [{ ...bets[0]!, bet_index: '9', winloss: ZERO }]);
    await refusedSettlement(c, 'bet_result for bet_index 9 (the round has only bet_index 1)', r, body, c.amount(5), true);
  });
}

async function stakeMismatch(c: Check): Promise<void> {
  await withRound(c, c.amount(5), async (r, bets) => {
    const body = betResultRequest(c.session.env(), r, [{ ...bets[0]!, bet_amount: c.amount(8), winloss: ZERO }]);
    await refusedSettlement(
      c,
      `bet_result staking ${c.amount(8).toFixed()} on a round of ${c.amount(5).toFixed()}`,
      r,
      body,
      c.amount(8),
      true,
    );
  });
}

async function unparsableDetail(c: Check): Promise<void> {
  await withRound(c, c.amount(5), async (r, bets) => {
    const body = betResultRequest(c.session.env(), r, results(bets, ZERO));
    dataOf(body).result_detail = '{pscore: 8, bscore: 3';
    await refusedSettlement(c, 'bet_result whose result_detail is not JSON', r, body, c.amount(5), true);
  });
}

async function settleNeverBet(c: Check): Promise<void> {
  await c.login();
  const r = newRound(c.target);
  const body = betResultRequest(c.session.env(), r, [{ ...line('1', 'P', c.amount(5)), winloss: c.amount(5) }]);
  const reply = await c.send(`bet_result for round ${r.game_no}, never bet`, body, { expect: REFUSE });
  if (reply.code !== SUCCESS) await c.login('login (balance check)');
}

async function settleSettled(c: Check): Promise<void> {
  await withRound(c, c.amount(4), async (r, bets) => {
    if ((await settle(c, 'bet_result (win)', r, results(bets, c.amount(4)))).code !== SUCCESS) return c.skip('the round was not settled');
    const again = betResultRequest(c.session.env({ transaction_id: newTransactionId('provoke-resettle') }), r, results(bets, c.amount(4)));
    const reply = await c.send(`bet_result for the settled round ${r.game_no} under a new transaction_id`, again, { expect: REFUSE });
    if (reply.code !== SUCCESS) await c.login('login (balance check)');
  });
}
