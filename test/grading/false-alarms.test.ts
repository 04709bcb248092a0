// Well-behaved providers the checks once failed, played through the app (real sockets where the
// timing is the point): none may get a failing check, and the misbehaviour beside each is still caught.
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { REPLY_READ_MARGIN_MS } from '../../src/grading/model.js';
import type { CheckId, Report } from '../../src/protocol/types.generated.js';
import { bet, buildTestApp, HEADERS, login, result } from '../helpers/app.js';
import { listen, post } from '../helpers/net.js';

const usd = { currency: 'USD' };
const check = (r: Report, id: CheckId) => r.checks.find((c) => c.id === id)!;

async function wallet(t: Test, scenario: Parameters<typeof buildTestApp>[0] = {}) {
  const { app } = await buildTestApp(scenario);
  t.teardown(() => app.close());
  const base = await listen(app);
  const report = async () => (await app.inject({ method: 'GET', url: '/admin/report' })).json<Report>();
  return { url: `${base}/callback`, report };
}

t.test('BET_WITHIN_REPORTED_BALANCE: two bets sent at once are never judged by each other’s replies', async (t) => {
  const { url, report } = await wallet(t);
  // The reviewer's case, 25 times: log in (1000), then two bets of 700 on two rounds, both sent
  // before either reply is read. The first is answered R0 (300) a millisecond before the second arrives.
  const codes = new Set<string>();
  for (let i = 0; i < 25; i++) {
    const user = `pair-${i}`;
    t.equal((await post(url, login(user), HEADERS)).body.code, 'R0');
    const replies = await Promise.all(
      [`${user}-G1`, `${user}-G2`].map((game) => post(url, bet(user, game, [['1', 'P', 700]], usd), HEADERS)),
    );
    for (const r of replies) codes.add(`${r.body.code} ${r.body.latest_balance}`);
  }
  t.same([...codes].sort(), ['R0 300', 'R4 300'], 'one bet of each pair applied, the other refused for funds');
  const c = check(await report(), 'BET_WITHIN_REPORTED_BALANCE');
  t.not(c.status, 'fail', c.violations.map((v) => v.message).join('\n'));
});

t.test('BET_WITHIN_REPORTED_BALANCE: a bet sent well after the reply, above the balance it reported, is caught', async (t) => {
  const { url, report } = await wallet(t);
  t.equal((await post(url, login('late'), HEADERS)).body.code, 'R0');
  t.match((await post(url, bet('late', 'G1', [['1', 'P', 700]], usd), HEADERS)).body, { code: 'R0', latest_balance: 300 });
  // The reply is in hand: past the margin, and past it again for a late stamp of the next bet.
  await sleep(2 * REPLY_READ_MARGIN_MS + 300);
  t.match((await post(url, bet('late', 'G2', [['1', 'P', 700]], usd), HEADERS)).body, { code: 'R4' });
  const c = check(await report(), 'BET_WITHIN_REPORTED_BALANCE');
  t.equal(c.status, 'fail');
  t.match(c.violations[0]?.message, /stakes 700, more than the balance 300 reported by the reply to #\d+$/);
});

t.test('BET_WITHIN_REPORTED_BALANCE: a bet within a win settled while another bet’s reply was held is not judged', async (t) => {
  // A reviewer's case: the bet on G1 is applied (800) but its reply held 700 ms; meanwhile G0 is
  // settled, a win (1400). G1's reply (800) is written last, yet the wallet applied the win after
  // that bet: a bet of 1000 within the 1400 is the provider reading the newer balance, not a defect.
  const { app } = await buildTestApp({
    rules: [{ name: 'held reply', when: { event_type: 'bet', game_no: 'G1' }, then: { delay_ms: 700 } }],
  });
  t.teardown(() => app.close());
  const url = `${await listen(app)}/callback`;
  const balance = async () => (await app.inject({ method: 'GET', url: '/admin/players/held' })).json<{ balance: number }>().balance;
  t.equal((await post(url, login('held'), HEADERS)).body.code, 'R0');
  t.match((await post(url, bet('held', 'G0', [['1', 'P', 100]], usd), HEADERS)).body, { code: 'R0', latest_balance: 900 });
  const held = post(url, bet('held', 'G1', [['1', 'P', 100]], usd), HEADERS);
  while ((await balance()) !== 800) await sleep(5); // the wallet has applied it; its reply waits
  const win = await post(url, result('held', 'G0', [['1', 'P', 100, 500]], usd), HEADERS);
  t.match(win.body, { code: 'R0', latest_balance: 1400 });
  t.match((await held).body, { code: 'R0', latest_balance: 800 });
  await sleep(2 * REPLY_READ_MARGIN_MS + 300);
  t.match((await post(url, bet('held', 'G2', [['1', 'P', 1000]], usd), HEADERS)).body, { code: 'R0', latest_balance: 400 });
  const c = check((await app.inject({ method: 'GET', url: '/admin/report' })).json<Report>(), 'BET_WITHIN_REPORTED_BALANCE');
  t.not(c.status, 'fail', c.violations.map((v) => v.message).join('\n'));
});

t.test('RETRY_SAME_TRANSACTION: a chip added to a round while another bet’s reply is lost is a bet of its own', async (t) => {
  const { url, report } = await wallet(t, {
    rules: [{ name: 'lost bet reply', when: { event_type: 'bet', user_id: 'chips' }, then: { drop_connection: true }, times: 1 }],
  });
  t.equal((await post(url, login('chips'), HEADERS)).body.code, 'R0');
  const a = bet('chips', 'G1', [['1', 'B', 10]], usd);
  const b = bet('chips', 'G1', [['2', 'P', 25]], usd);
  t.equal((await post(url, a, HEADERS)).status, 0, "the first chip's reply is lost");
  t.match((await post(url, b, HEADERS)).body, { code: 'R0' }, 'another chip, another bet, its own transaction_id');
  t.match((await post(url, a, HEADERS)).body, { code: 'R0' }, 'the lost one resent as it was');
  const settle = result(
    'chips',
    'G1',
    [
      ['1', 'B', 10, -10],
      ['2', 'P', 25, 25],
    ],
    usd,
  );
  t.match((await post(url, settle, HEADERS)).body, { code: 'R0' });
  const r = await report();
  t.equal(check(r, 'RETRY_SAME_TRANSACTION').status, 'pass', check(r, 'RETRY_SAME_TRANSACTION').violations[0]?.message ?? 'no violation');

  // The same chip rebuilt under a new transaction_id is still the double-debit bug.
  const lost = bet('rebuilt', 'G1', [['1', 'B', 10]], usd);
  const again = await wallet(t, {
    rules: [{ name: 'lost bet reply', when: { event_type: 'bet', user_id: 'rebuilt' }, then: { drop_connection: true }, times: 1 }],
  });
  t.equal((await post(again.url, login('rebuilt'), HEADERS)).body.code, 'R0');
  t.equal((await post(again.url, lost, HEADERS)).status, 0);
  await post(again.url, { ...lost, transaction_id: `${lost.transaction_id}-again` }, HEADERS);
  t.equal(check(await again.report(), 'RETRY_SAME_TRANSACTION').status, 'fail');
});

t.test('ROUNDS_SETTLED on validation-failure: a round its forced R3 left open is excused, not passed', async (t) => {
  const { url, report } = await wallet(t, {
    rules: [{ name: 'settlements fail validation', when: { event_type: 'bet_result', user_id: 'r3' }, then: { code: 'R3' } }],
  });
  t.equal((await post(url, login('r3'), HEADERS)).body.code, 'R0');
  t.equal((await post(url, bet('r3', 'G1', [['1', 'P', 10]], usd), HEADERS)).body.code, 'R0');
  t.equal((await post(url, result('r3', 'G1', [['1', 'P', 10, 10]], usd), HEADERS)).body.code, 'R3');
  const c = check(await report(), 'ROUNDS_SETTLED');
  t.equal(c.status, 'pass', 'nothing failed');
  t.match(c.detail, /^1 round opened: 0 passed, 0 failed, 0 still within a window, 1 excused \(left to the operator: /);
});

t.test(
  "ROUNDS_SETTLED: a bet a rule's body answered R4 (the wallet applied it) leaves its round excused; settling it is caught, said as it was",
  async (t) => {
    const body = { code: 'R4', event_type: 'bet', timestamp: 1796060000, latest_balance: 5 };
    const rules = (user: string) => [
      { name: 'R4 body', when: { event_type: 'bet' as const, user_id: user }, then: { body: { ...body, user_id: user } }, times: 1 },
    ];
    // The provider reads R4 and leaves the round to the operator, as it should.
    const held = await wallet(t, { rules: rules('b4') });
    t.equal((await post(held.url, login('b4'), HEADERS)).body.code, 'R0');
    t.match((await post(held.url, bet('b4', 'G1', [['1', 'P', 10]], usd), HEADERS)).body, { code: 'R4', latest_balance: 5 });
    const r = await held.report();
    const c = check(r, 'ROUNDS_SETTLED');
    t.equal(c.status, 'pass', c.violations.map((v) => v.message).join('\n'));
    t.match(c.detail, /1 excused/);
    t.equal(check(r, 'NO_SETTLEMENT_OF_REFUSED_BET').status, 'pass');
    // The provider settles the bet it read as R4 anyway: that is the violation, and its message says what happened.
    const settled = await wallet(t, { rules: rules('s4') });
    t.equal((await post(settled.url, login('s4'), HEADERS)).body.code, 'R0');
    t.match((await post(settled.url, bet('s4', 'G1', [['1', 'P', 10]], usd), HEADERS)).body, { code: 'R4' });
    t.equal((await post(settled.url, result('s4', 'G1', [['1', 'P', 10, 10]], usd), HEADERS)).body.code, 'R0');
    const n = check(await settled.report(), 'NO_SETTLEMENT_OF_REFUSED_BET');
    t.equal(n.status, 'fail');
    t.match(
      n.violations[0]?.message,
      /was refused with R4 \(#(\d+)\), though the wallet applied that attempt \(its reply said otherwise\)/,
    );
    t.notMatch(n.violations[0]?.message, /reply lost/);
  },
);
