import { betRequest, betResultRequest, loginRequest, newTransactionId } from '../client/callbacks.js';
import { ZERO } from '../money.js';
import { expectSteps } from './expect-steps.js';
import { closingLogin, line, newRound, placeBet, settle } from './moves.js';
import type { Check, Session } from './session.js';
import type { CHECKS, OpenRound } from './types.js';

/**
 * The checks between the opening login and the cleanup. Each is one function that opens its own
 * rounds and settles them; bet and settle-win share one round.
 */

const CONCURRENT = 10;

/** A check of the battery: its name in the report, what it shows, and how it plays. */
export interface StandardCheck {
  name: (typeof CHECKS)[number];
  description: string;
  run: (c: Check) => Promise<void>;
}

/** The standard checks, in the order they run. */
export function standardChecks(s: Session): StandardCheck[] {
  // Opened by the bet check, settled by settle-win.
  const win: OpenRound = { round: newRound(s.target), bets: [line('1', 'P', s.amount(1)), line('2', 'PP', s.amount(2))] };
  return [
    { name: 'bet', description: 'a bet of two lines is debited exactly', run: (c) => betTwoLines(c, win) },
    { name: 'settle-win', description: 'a winning settlement credits stake + net win', run: (c) => settleWin(c, win) },
    { name: 'settle-loss', description: 'a lost round credits nothing', run: settleLoss },
    { name: 'settle-push', description: 'a push gives the stake back', run: settlePush },
    { name: 'insufficient-funds', description: 'a bet over the balance gets R4 and debits nothing', run: insufficientFunds },
    { name: 'bad-credentials', description: 'a wrong Api-Key gets R2 and changes nothing', run: badCredentials },
    { name: 'duplicate-replay', description: 'a bet and a settlement sent twice are applied once', run: duplicateReplay },
    { name: 'conflicting-reuse', description: 'a transaction_id reused with another body is refused', run: conflictingReuse },
    { name: 'totals-mismatch', description: 'totals that are not the sum of their lines get R3 and change nothing', run: totalsMismatch },
    {
      name: 'concurrent-bets',
      description: `${CONCURRENT} simultaneous bets and settlements on one player all count`,
      run: concurrentBets,
    },
    { name: 'malformed-body', description: 'a body that is not JSON gets R3 (HTTP 200) and changes nothing', run: malformedBody },
  ];
}

async function betTwoLines(c: Check, win: OpenRound): Promise<void> {
  const before = await c.login();
  await placeBet(c, 'bet', before, win.round, win.bets);
}

async function settleWin(c: Check, win: OpenRound): Promise<void> {
  if (!c.session.open.has(win.round.game_no)) return c.skip('the bet check opened no round');
  const before = await c.login();
  // P pays 1:1, the player pair 11:1.
  await settle(c, 'bet_result (win)', before, win.round, [
    { ...win.bets[0]!, winloss: c.amount(1) },
    { ...win.bets[1]!, winloss: c.amount(22) },
  ]);
}

async function settleLoss(c: Check): Promise<void> {
  const r = newRound(c.target);
  const bets = [line('1', 'B', c.amount(2))];
  const after = await placeBet(c, 'bet', await c.login(), r, bets);
  if (!c.session.open.has(r.game_no)) return;
  await settle(c, 'bet_result (loss)', after, r, [{ ...bets[0]!, winloss: c.amount(2).neg() }]);
}

async function settlePush(c: Check): Promise<void> {
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(7))];
  const after = await placeBet(c, 'bet', await c.login(), r, bets);
  if (!c.session.open.has(r.game_no)) return;
  await settle(c, 'bet_result (push)', after, r, [{ ...bets[0]!, winloss: ZERO }]);
}

async function insufficientFunds(c: Check): Promise<void> {
  const balance = await c.login();
  if (balance === undefined) return c.skip('login gave no balance to bet over');
  const r = newRound(c.target);
  const over = balance.toDecimalPlaces(c.target.scale, 0 /* ROUND_UP */).plus(c.session.unit);
  const bets = [line('1', 'P', over)];
  const reply = await c.send(`bet of ${over.toFixed()} (balance ${balance.toFixed()})`, betRequest(c.session.env(), r, bets), {
    expect: ['R4'],
  });
  if (reply.code === 'R0') c.opened(r, bets);
  else c.balanceIs(reply, balance, 'an R4 reply carries the unchanged balance (spec 7 rule 1)');
  if (reply.code !== 'R0') await closingLogin(c, balance, 'nothing debited');
}

async function badCredentials(c: Check): Promise<void> {
  const balance = await c.login();
  const wrong = { apiId: c.target.apiId, apiKey: `${c.target.apiKey}-wrong-${newTransactionId('k')}` };
  await c.send('login with a wrong Api-Key', loginRequest(c.session.env()), { expect: ['R2'], credentials: wrong });
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(1))];
  const reply = await c.send('bet with a wrong Api-Key', betRequest(c.session.env(), r, bets), { expect: ['R2'], credentials: wrong });
  if (reply.code === 'R0') c.opened(r, bets);
  else await closingLogin(c, balance, 'nothing debited');
}

async function duplicateReplay(c: Check): Promise<void> {
  const before = await c.login();
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(5))];
  const bet = betRequest(c.session.env(), r, bets);
  const first = await c.send('bet', bet, { expect: ['R0'] });
  if (first.code !== 'R0') return;
  c.opened(r, bets);
  const debited = before?.minus(c.amount(5));
  c.balanceIs(first, debited, `${before?.toFixed()} - stake ${c.amount(5).toFixed()}`);
  const again = await c.send('the same bet again (same transaction_id and body)', bet, { expect: ['R0'] });
  c.balanceIs(again, debited, 'a replay changes nothing');
  const result = betResultRequest(c.session.env(), r, [{ ...bets[0]!, winloss: c.amount(5) }]);
  const settled = await c.send('bet_result (win)', result, { expect: ['R0'] });
  if (settled.code !== 'R0') return;
  c.settled(r.game_no, c.amount(10));
  const credited = debited?.plus(c.amount(10));
  c.balanceIs(settled, credited, `${debited?.toFixed()} + credit ${c.amount(10).toFixed()}`);
  const replay = await c.send('the same bet_result again', result, { expect: ['R0'] });
  c.balanceIs(replay, credited, 'a replay changes nothing');
  await closingLogin(c, credited, 'each transaction applied once');
}

async function conflictingReuse(c: Check): Promise<void> {
  const before = await c.login();
  const txid = newTransactionId('bet');
  const r = newRound(c.target);
  const after = await placeBet(c, 'bet', before, r, [line('1', 'B', c.amount(4))], txid);
  if (!c.session.open.has(r.game_no)) return;
  const r2 = newRound(c.target);
  const reused = [line('1', 'P', c.amount(6))];
  const reply = await c.send(
    'another bet (other round, other amount) under the same transaction_id',
    betRequest(c.session.env({ transaction_id: txid }), r2, reused),
    { expect: ['R3', 'R1'] },
  );
  if (reply.code === 'R0') c.opened(r2, reused);
  else {
    c.balanceIs(reply, after, 'a refused bet debits nothing');
    await closingLogin(c, after, 'a refused bet debits nothing');
  }
  await c.push(r.game_no);
}

async function totalsMismatch(c: Check): Promise<void> {
  const before = await c.login();
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(1)), line('2', 'B', c.amount(2))];
  const bad = await c.send(
    `bet with total_bet_amount ${c.amount(4).toFixed()} != ${c.amount(1).toFixed()} + ${c.amount(2).toFixed()}`,
    betRequest(c.session.env(), r, bets, c.amount(4)),
    { expect: ['R3'] },
  );
  if (bad.code === 'R0') c.opened(r, bets);
  else c.balanceIs(bad, before, 'a refused bet debits nothing');

  const r2 = newRound(c.target);
  const good = [line('1', 'P', c.amount(3))];
  const after = await placeBet(c, 'bet', bad.code === 'R0' ? undefined : before, r2, good);
  if (!c.session.open.has(r2.game_no)) return;
  const results = [{ ...good[0]!, winloss: c.amount(3) }];
  const wrong = await c.send(
    `bet_result with total_winloss ${c.amount(6).toFixed()} != ${c.amount(3).toFixed()}`,
    betResultRequest(c.session.env(), r2, results, { winloss: c.amount(6) }),
    { expect: ['R3'] },
  );
  if (wrong.code === 'R0') {
    c.settled(r2.game_no, c.amount(3).plus(c.amount(6)));
    return;
  }
  c.balanceIs(wrong, after, 'a refused settlement credits nothing');
  await settle(c, 'bet_result (correct totals)', after, r2, results);
}

async function concurrentBets(c: Check): Promise<void> {
  const before = await c.login();
  const stake = c.amount(1);
  const rounds = Array.from({ length: CONCURRENT }, () => newRound(c.target));
  const bets = [line('1', 'P', stake)];
  const replies = await Promise.all(
    rounds.map((r, i) => c.send(`bet ${i + 1}/${CONCURRENT}`, betRequest(c.session.env(), r, bets), { expect: ['R0'] })),
  );
  replies.forEach((reply, i) => {
    if (reply.code === 'R0') c.opened(rounds[i]!, bets);
  });
  const ok = replies.filter((x) => x.code === 'R0');
  expectSteps(c, ok, before, stake.neg(), 'debit');
  const debited = before?.minus(stake.times(ok.length));
  await closingLogin(c, debited, `${before?.toFixed()} - ${ok.length} x ${stake.toFixed()}`);
  const settling = rounds.filter((r) => c.session.open.has(r.game_no));
  const settled = await Promise.all(
    settling.map((r, i) =>
      c.send(`settle ${i + 1}/${settling.length} (push)`, betResultRequest(c.session.env(), r, [{ ...bets[0]!, winloss: ZERO }]), {
        expect: ['R0'],
      }),
    ),
  );
  settled.forEach((reply, i) => {
    if (reply.code === 'R0') c.settled(settling[i]!.game_no, stake);
  });
  const credited = settled.filter((x) => x.code === 'R0');
  expectSteps(c, credited, debited, stake, 'credit');
  await closingLogin(c, debited?.plus(stake.times(credited.length)), `every stake back`);
}

async function malformedBody(c: Check): Promise<void> {
  const balance = await c.login();
  const text = `{"transaction_id":"${newTransactionId('bad')}","event_type":"bet","user_id":${JSON.stringify(c.target.user)},"data":{"total_bet_amount":`;
  await c.send('a truncated JSON body', text, { expect: ['R3', 'R1'], echo: null });
  await closingLogin(c, balance, 'nothing changed');
}
