import {
  type BetLine,
  betRequest,
  betResultRequest,
  loginRequest,
  newGameNo,
  newTransactionId,
  type ResultLine,
  type RoundInfo,
} from '../client/callbacks.js';
import { type Money, sum, ZERO } from '../money.js';
import { expectSteps } from './expect-steps.js';
import { type Check, type CheckResult, type ProbeTarget, Session } from './session.js';

/**
 * The standard battery: the provider's side of the protocol played against any wallet. Each check
 * opens its own rounds and settles them; anything left open (a wallet accepted what it should
 * have refused) is settled as a push at the end, so the player ends where the arithmetic says.
 */

export { CHECKS, type ProbeReport } from './types.js';
import type { ProbeReport } from './types.js';

const CONCURRENT = 10;

/** The one line a probe with wrong credentials prints, instead of every check failing with R2. */
export const CREDENTIALS_REFUSED = 'credentials refused (R2): check --api-id/--api-key';

export async function runProbe(target: ProbeTarget, onCheck?: (c: CheckResult) => void): Promise<ProbeReport> {
  const s = new Session(target, onCheck);
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const a = (k: number) => s.amount(k);
  const round = (): RoundInfo => ({ currency: target.currency, game_no: newGameNo('probe') });
  const line = (bet_index: string, bet_type: string, amount: Money): BetLine => ({ bet_index, bet_type, bet_amount: amount });

  /** Bets, expects R0 and the debit; returns the round when the wallet acknowledged it. */
  const placeBet = async (c: Check, label: string, before: Money | undefined, r: RoundInfo, bets: BetLine[], transaction_id?: string) => {
    const stake = sum(bets.map((b) => b.bet_amount));
    const reply = await c.send(label, betRequest(s.env({ transaction_id }), r, bets), { expect: ['R0'] });
    if (reply.code !== 'R0') return undefined;
    c.opened(r, bets);
    c.balanceIs(reply, before?.minus(stake), `${before?.toFixed()} - stake ${stake.toFixed()}`);
    return before?.minus(stake);
  };

  /** Settles with these results, expects R0 and the credit (stake + net win-loss). */
  const settle = async (c: Check, label: string, balance: Money | undefined, r: RoundInfo, results: ResultLine[]) => {
    const stake = sum(results.map((x) => x.bet_amount));
    const net = sum(results.map((x) => x.winloss));
    const credit = stake.plus(net);
    const reply = await c.send(label, betResultRequest(s.env(), r, results), { expect: ['R0'] });
    if (reply.code !== 'R0') return undefined;
    c.settled(r.game_no, credit);
    c.balanceIs(
      reply,
      balance?.plus(credit),
      `${balance?.toFixed()} + credit ${credit.toFixed()} (stake ${stake.toFixed()} ${net.isNeg() ? '-' : '+'} winloss ${net.abs().toFixed()})`,
    );
    return balance?.plus(credit);
  };

  /** A closing login: the balance must be what the acknowledged replies say. */
  const unchanged = async (c: Check, expected: Money | undefined, why: string) => {
    const reply = await c.send('login (balance check)', loginRequest(s.env()), { expect: ['R0'] });
    c.balanceIs(reply, expected, why);
  };

  let initial: Money | undefined;
  let refused = false;
  await s.check('login', 'login replies R0 with the balance', async (c) => {
    const reply = await c.send('login', loginRequest(s.env()), { expect: ['R0'] });
    refused = reply.code === 'R2';
    if (refused) c.assert('credentials', false, CREDENTIALS_REFUSED, reply.index);
    initial = reply.code === 'R0' ? reply.balance : undefined;
    const need = a(20);
    if (initial !== undefined)
      c.assert(
        'funds',
        initial.gte(need),
        `the player has ${initial.toFixed()} ${target.currency}; the battery needs at least ${need.toFixed()}: fund the player first`,
      );
  });
  // Every other check would fail with R2 too: say it once and stop.
  if (refused)
    return {
      target: withoutKey(target),
      stopped: CREDENTIALS_REFUSED,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      checks: s.checks,
      balance: { lines: [] },
    };

  const winRound = round();
  const winBets = [line('1', 'P', a(1)), line('2', 'PP', a(2))];
  await s.check('bet', 'a bet of two lines is debited exactly', async (c) => {
    const before = await c.login();
    await placeBet(c, 'bet', before, winRound, winBets);
  });

  await s.check('settle-win', 'a winning settlement credits stake + net win', async (c) => {
    if (!s.open.has(winRound.game_no)) return c.skip('the bet check opened no round');
    const before = await c.login();
    // P pays 1:1, the player pair 11:1.
    await settle(c, 'bet_result (win)', before, winRound, [
      { ...winBets[0]!, winloss: a(1) },
      { ...winBets[1]!, winloss: a(22) },
    ]);
  });

  await s.check('settle-loss', 'a lost round credits nothing', async (c) => {
    const r = round();
    const bets = [line('1', 'B', a(2))];
    const after = await placeBet(c, 'bet', await c.login(), r, bets);
    if (!s.open.has(r.game_no)) return;
    await settle(c, 'bet_result (loss)', after, r, [{ ...bets[0]!, winloss: a(2).neg() }]);
  });

  await s.check('settle-push', 'a push gives the stake back', async (c) => {
    const r = round();
    const bets = [line('1', 'P', a(7))];
    const after = await placeBet(c, 'bet', await c.login(), r, bets);
    if (!s.open.has(r.game_no)) return;
    await settle(c, 'bet_result (push)', after, r, [{ ...bets[0]!, winloss: ZERO }]);
  });

  await s.check('insufficient-funds', 'a bet over the balance gets R4 and debits nothing', async (c) => {
    const balance = await c.login();
    if (balance === undefined) return c.skip('login gave no balance to bet over');
    const r = round();
    const over = balance.toDecimalPlaces(target.scale, 0 /* ROUND_UP */).plus(s.unit);
    const bets = [line('1', 'P', over)];
    const reply = await c.send(`bet of ${over.toFixed()} (balance ${balance.toFixed()})`, betRequest(s.env(), r, bets), { expect: ['R4'] });
    if (reply.code === 'R0') c.opened(r, bets);
    else c.balanceIs(reply, balance, 'an R4 reply carries the unchanged balance (spec 7 rule 1)');
    if (reply.code !== 'R0') await unchanged(c, balance, 'nothing debited');
  });

  await s.check('bad-credentials', 'a wrong Api-Key gets R2 and changes nothing', async (c) => {
    const balance = await c.login();
    const wrong = { apiId: target.apiId, apiKey: `${target.apiKey}-wrong-${newTransactionId('k')}` };
    await c.send('login with a wrong Api-Key', loginRequest(s.env()), { expect: ['R2'], credentials: wrong });
    const r = round();
    const bets = [line('1', 'P', a(1))];
    const reply = await c.send('bet with a wrong Api-Key', betRequest(s.env(), r, bets), { expect: ['R2'], credentials: wrong });
    if (reply.code === 'R0') c.opened(r, bets);
    else await unchanged(c, balance, 'nothing debited');
  });

  await s.check('duplicate-replay', 'a bet and a settlement sent twice are applied once', async (c) => {
    const before = await c.login();
    const r = round();
    const bets = [line('1', 'P', a(5))];
    const bet = betRequest(s.env(), r, bets);
    const first = await c.send('bet', bet, { expect: ['R0'] });
    if (first.code !== 'R0') return;
    c.opened(r, bets);
    const debited = before?.minus(a(5));
    c.balanceIs(first, debited, `${before?.toFixed()} - stake ${a(5).toFixed()}`);
    const again = await c.send('the same bet again (same transaction_id and body)', bet, { expect: ['R0'] });
    c.balanceIs(again, debited, 'a replay changes nothing');
    const result = betResultRequest(s.env(), r, [{ ...bets[0]!, winloss: a(5) }]);
    const settled = await c.send('bet_result (win)', result, { expect: ['R0'] });
    if (settled.code !== 'R0') return;
    c.settled(r.game_no, a(10));
    const credited = debited?.plus(a(10));
    c.balanceIs(settled, credited, `${debited?.toFixed()} + credit ${a(10).toFixed()}`);
    const replay = await c.send('the same bet_result again', result, { expect: ['R0'] });
    c.balanceIs(replay, credited, 'a replay changes nothing');
    await unchanged(c, credited, 'each transaction applied once');
  });

  await s.check('conflicting-reuse', 'a transaction_id reused with another body is refused', async (c) => {
    const before = await c.login();
    const txid = newTransactionId('bet');
    const r = round();
    const after = await placeBet(c, 'bet', before, r, [line('1', 'B', a(4))], txid);
    if (!s.open.has(r.game_no)) return;
    const r2 = round();
    const reused = [line('1', 'P', a(6))];
    const reply = await c.send(
      'another bet (other round, other amount) under the same transaction_id',
      betRequest(s.env({ transaction_id: txid }), r2, reused),
      { expect: ['R3', 'R1'] },
    );
    if (reply.code === 'R0') c.opened(r2, reused);
    else {
      c.balanceIs(reply, after, 'a refused bet debits nothing');
      await unchanged(c, after, 'a refused bet debits nothing');
    }
    await c.push(r.game_no);
  });

  await s.check('totals-mismatch', 'totals that are not the sum of their lines get R3 and change nothing', async (c) => {
    const before = await c.login();
    const r = round();
    const bets = [line('1', 'P', a(1)), line('2', 'B', a(2))];
    const bad = await c.send(
      `bet with total_bet_amount ${a(4).toFixed()} != ${a(1).toFixed()} + ${a(2).toFixed()}`,
      betRequest(s.env(), r, bets, a(4)),
      { expect: ['R3'] },
    );
    if (bad.code === 'R0') c.opened(r, bets);
    else c.balanceIs(bad, before, 'a refused bet debits nothing');

    const r2 = round();
    const good = [line('1', 'P', a(3))];
    const after = await placeBet(c, 'bet', bad.code === 'R0' ? undefined : before, r2, good);
    if (!s.open.has(r2.game_no)) return;
    const results = [{ ...good[0]!, winloss: a(3) }];
    const wrong = await c.send(
      `bet_result with total_winloss ${a(6).toFixed()} != ${a(3).toFixed()}`,
      betResultRequest(s.env(), r2, results, { winloss: a(6) }),
      { expect: ['R3'] },
    );
    if (wrong.code === 'R0') {
      c.settled(r2.game_no, a(3).plus(a(6)));
      return;
    }
    c.balanceIs(wrong, after, 'a refused settlement credits nothing');
    await settle(c, 'bet_result (correct totals)', after, r2, results);
  });

  await s.check('concurrent-bets', `${CONCURRENT} simultaneous bets and settlements on one player all count`, async (c) => {
    const before = await c.login();
    const stake = a(1);
    const rounds = Array.from({ length: CONCURRENT }, round);
    const bets = [line('1', 'P', stake)];
    const replies = await Promise.all(
      rounds.map((r, i) => c.send(`bet ${i + 1}/${CONCURRENT}`, betRequest(s.env(), r, bets), { expect: ['R0'] })),
    );
    replies.forEach((reply, i) => {
      if (reply.code === 'R0') c.opened(rounds[i]!, bets);
    });
    const ok = replies.filter((x) => x.code === 'R0');
    expectSteps(c, ok, before, stake.neg(), 'debit');
    const debited = before?.minus(stake.times(ok.length));
    await unchanged(c, debited, `${before?.toFixed()} - ${ok.length} x ${stake.toFixed()}`);
    const settling = rounds.filter((r) => s.open.has(r.game_no));
    const settled = await Promise.all(
      settling.map((r, i) =>
        c.send(`settle ${i + 1}/${settling.length} (push)`, betResultRequest(s.env(), r, [{ ...bets[0]!, winloss: ZERO }]), {
          expect: ['R0'],
        }),
      ),
    );
    settled.forEach((reply, i) => {
      if (reply.code === 'R0') c.settled(settling[i]!.game_no, stake);
    });
    const credited = settled.filter((x) => x.code === 'R0');
    expectSteps(c, credited, debited, stake, 'credit');
    await unchanged(c, debited?.plus(stake.times(credited.length)), `every stake back`);
  });

  await s.check('malformed-body', 'a body that is not JSON gets R3 (HTTP 200) and changes nothing', async (c) => {
    const balance = await c.login();
    const text = `{"transaction_id":"${newTransactionId('bad')}","event_type":"bet","user_id":${JSON.stringify(target.user)},"data":{"total_bet_amount":`;
    await c.send('a truncated JSON body', text, { expect: ['R3', 'R1'], echo: null });
    await unchanged(c, balance, 'nothing changed');
  });

  if (s.open.size) {
    await s.check('cleanup', 'rounds the wallet acknowledged but the battery did not settle are settled as pushes', async (c) => {
      for (const gameNo of [...s.open.keys()]) await c.push(gameNo);
      c.assert('rounds-settled', s.open.size === 0, `rounds still open: ${[...s.open.keys()].join(', ')}`);
    });
  }

  let after: Money | undefined;
  await s.check('balance-reconciliation', "the player's final balance is the start plus every acknowledged change", async (c) => {
    after = await c.login('final login');
    if (initial === undefined || after === undefined) return c.skip('no balance from login to reconcile');
    const expected = initial.plus(sum(s.ledger.map((l) => l.delta)));
    c.assert(
      'balance-arithmetic',
      after.eq(expected),
      `final balance ${after.toFixed()}, expected ${expected.toFixed()} (start ${initial.toFixed()} ${signed(sum(s.ledger.map((l) => l.delta)))}); the wallet moved money it did not acknowledge`,
    );
  });

  return {
    target: withoutKey(target),
    startedAt,
    durationMs: Math.round(performance.now() - started),
    checks: s.checks,
    balance: { before: initial, after, lines: s.ledger, expected: initial?.plus(sum(s.ledger.map((l) => l.delta))) },
  };
}

const withoutKey = ({ apiKey: _hidden, ...shown }: ProbeTarget): Omit<ProbeTarget, 'apiKey'> => shown;

export const signed = (m: Money) => (m.isNeg() ? `- ${m.abs().toFixed()}` : `+ ${m.toFixed()}`);
