import { NOT_ENOUGH_BALANCE, SUCCESS } from '../protocol/seed/codes.js';
import { betRequest, betResultRequest, loginRequest, newTransactionId } from '../protocol/seed/callbacks.js';
import { type Money, ZERO } from '../kernel/money.js';
import { expectSteps } from './expect-steps.js';
import { line, newRound } from './moves.js';
import type { Check } from './session.js';
import type { Reply } from './types.js';

/**
 * What only simultaneous callbacks show, and the wallet checks cannot judge (they compare balances
 * only between callbacks no other overlapped): lost updates, and a balance checked then debited
 * without a lock.
 */

const CONCURRENT = 10;
/** Overdraw: this many simultaneous bets, each a third of the balance (so at most three can be applied). */
const RACERS = 5;

/** Simultaneous bets, then simultaneous settlements: each reply one step of a serial order, the balance exact after. */
export async function concurrentBets(c: Check): Promise<void> {
  const before = await c.login();
  const stake = c.amount(1);
  const rounds = Array.from({ length: CONCURRENT }, () => newRound(c.target));
  const bets = [line('1', 'P', stake)];
  const judged = c.session.wire.violations('WALLET_CONCURRENCY_SAFE');
  const replies = await Promise.all(
    rounds.map((r, i) => c.send(`bet ${i + 1}/${CONCURRENT}`, betRequest(c.session.env(), r, bets), { expect: [SUCCESS] })),
  );
  replies.forEach((reply, i) => {
    if (reply.code === SUCCESS) c.opened(rounds[i]!, bets);
  });
  // Sums of simultaneous replies are judged only where serial arithmetic holds and every reply was read.
  const judge = () => judgeable(c, [...replies, ...settledSoFar], judged);
  const settledSoFar: Reply[] = [];
  const ok = replies.filter((x) => x.code === SUCCESS);
  if (judge()) expectSteps(c, ok, before, stake.neg(), 'debit');
  const debited = before?.minus(stake.times(ok.length));
  await closingBalance(c, judge() ? debited : undefined, `${before?.toFixed()} - ${ok.length} x ${stake.toFixed()}`);
  const settling = rounds.filter((r) => c.session.open.has(r.game_no));
  const settled = await Promise.all(
    settling.map((r, i) =>
      c.settleWith(
        r.game_no,
        `settle ${i + 1}/${settling.length} (push)`,
        betResultRequest(c.session.env(), r, [{ ...bets[0]!, winloss: ZERO }]),
        stake,
      ),
    ),
  );
  settledSoFar.push(...settled);
  const credited = settled.filter((x) => x.code === SUCCESS);
  if (judge()) expectSteps(c, credited, debited, stake, 'credit');
  await closingBalance(c, judge() ? debited?.plus(stake.times(credited.length)) : undefined, 'every stake back');
}

/** Simultaneous bets of a third of the balance each: a wallet with a per-player lock applies at most three. */
export async function concurrentOverdraw(c: Check): Promise<void> {
  const before = await c.login();
  if (before === undefined) return c.skip('the login gave no balance to race against');
  const stake = before.div(3).toDecimalPlaces(c.target.scale, 1 /* ROUND_DOWN */);
  if (!stake.gt(0)) return c.skip(`a balance of ${before.toFixed()} is too small to race`);
  const rounds = Array.from({ length: RACERS }, () => newRound(c.target));
  const bets = [line('1', 'P', stake)];
  const judged = c.session.wire.violations('WALLET_CONCURRENCY_SAFE');
  // A wallet that answers R0 to a bet beyond the balance takes every racer too, lock or no lock: that root cause is named already.
  const takesShortBets = c.session.wire.failing('WALLET_REFUSES_SHORT_BET', c.target.user);
  const replies = await Promise.all(
    rounds.map((r, i) =>
      // provoke-: bets answered after the first replies exceed the balance those replies report.
      c.send(
        `bet ${i + 1}/${RACERS} of ${stake.toFixed()} (balance ${before.toFixed()})`,
        betRequest(c.session.env({ transaction_id: newTransactionId('provoke-race') }), r, bets),
        {
          expect: [SUCCESS, NOT_ENOUGH_BALANCE],
        },
      ),
    ),
  );
  replies.forEach((reply, i) => {
    if (reply.code === SUCCESS) c.opened(rounds[i]!, bets);
  });
  const applied = replies.filter((x) => x.code === SUCCESS).length;
  const total = stake.times(applied);
  if (c.session.wire.violations('WALLET_CONCURRENCY_SAFE') > judged) {
    // The history of the burst already fails the wallet check: one root cause, one failure.
    c.notJudged('WALLET_CONCURRENCY_SAFE', `${applied} of ${RACERS} simultaneous bets were answered R0: WALLET_CONCURRENCY_SAFE fails`);
    await c.login('login (balance check)');
    for (const r of rounds) await c.push(r.game_no);
    return;
  }
  const overdraw = `${applied} of ${RACERS} simultaneous bets of ${stake.toFixed()} were answered R0: ${total.toFixed()} staked from a balance of ${before.toFixed()}`;
  if (takesShortBets && total.gt(before))
    c.notJudged(
      'WALLET_REFUSES_SHORT_BET',
      `${overdraw}, but the wallet already answers R0 to a bet beyond the balance, so no lock is judged`,
    );
  c.assert('no-overdraw', total.lte(before), `${overdraw} (at most ${Math.floor(before.div(stake).toNumber())} fit)`, replies[0]?.index);
  const after = await c.login('login (balance check)');
  if (after?.isNeg() && takesShortBets)
    c.notJudged(
      'WALLET_REFUSES_SHORT_BET',
      `the balance is ${after.toFixed()} after simultaneous bets: the wallet answers R0 to bets beyond it`,
    );
  if (after !== undefined)
    c.assert('no-overdraw', !after.isNeg(), `the balance is ${after.toFixed()} after simultaneous bets: it went below zero`);
  for (const r of rounds) await c.push(r.game_no);
}

/**
 * Whether simultaneous replies can be judged: not when a serial reply already broke the arithmetic
 * (WALLET_BALANCE_EXACT names that root cause once), nor when a reply could not be read (it may
 * have moved money unseen).
 */
function judgeable(c: Check, replies: Reply[], judged: number): boolean {
  if (c.session.wire.violations('WALLET_CONCURRENCY_SAFE') > judged) {
    c.notJudged('WALLET_CONCURRENCY_SAFE', 'the simultaneous replies already fail WALLET_CONCURRENCY_SAFE');
    return false;
  }
  if (c.session.wire.failing('WALLET_BALANCE_EXACT')) {
    c.skip('serial arithmetic already fails (WALLET_BALANCE_EXACT), so simultaneous sums are not judged');
    return false;
  }
  const unread = replies.find((r) => r.unusable);
  if (unread) {
    c.skip(`a simultaneous reply could not be read (${unread.unusable}): the balance may have moved unseen`);
    return false;
  }
  return true;
}

/** A login after simultaneous callbacks: the balance they add up to (the wallet checks do not judge these). */
async function closingBalance(c: Check, expected: Money | undefined, why: string): Promise<void> {
  const reply = await c.send('login (balance check)', loginRequest(c.session.env()), { expect: [SUCCESS] });
  if (reply.balance === undefined || expected === undefined) return;
  c.assert(
    'balance-arithmetic',
    reply.balance.eq(expected),
    `login (balance check): latest_balance ${reply.balanceText}, expected ${expected.toFixed()} (${why})`,
    reply.index,
  );
}
