// A rule's forced code replaces the wallet's answer, not its judgement: the caller's own defects on a
// faulted callback are still journalled (they were not: a provider bug on exactly the callbacks a
// scenario faults went unreported), and nothing is applied.
import t from 'tap';
import { bet, buildTestApp, journal, login, send, snapshot } from './helpers/app.js';

t.test('a forced R1 on a bet whose totals do not add up: R1, nothing applied, TOTAL_MISMATCH journalled', async (t) => {
  const { app, sim } = await buildTestApp({
    players: [{ user_id: 'x', balance: 1000, currency: 'USD' }],
    rules: [{ name: 'x-all', when: { user_id: 'x', event_type: 'bet' }, then: { code: 'R1' } }],
  });
  t.teardown(() => app.close());
  const before = snapshot(sim);
  const req = bet('x', 'g1', [['1', 'P', 1]], { currency: 'USD', total: 2 });
  const res = await send(app, req);
  t.equal(res.body.code, 'R1');
  t.match(res.headers['x-wallet-sim-reason'], /R1 forced by scenario rule "x-all"/, 'the reason is the rule');
  t.equal(snapshot(sim), before, 'nothing applied');
  const [entry] = await journal(app, { transaction_id: req.transaction_id });
  t.match(entry.findings, [{ code: 'TOTAL_MISMATCH' }], "the caller's defect is journalled");
});

t.test('a forced code on a resend of an applied bet: no "replayed" note (the forced answer is no replay)', async (t) => {
  const { app } = await buildTestApp({
    players: [{ user_id: 'y', balance: 1000, currency: 'USD' }],
    rules: [{ name: 'second', when: { user_id: 'y', event_type: 'bet', nth: 2 }, then: { code: 'R1' } }],
  });
  t.teardown(() => app.close());
  t.equal((await send(app, login('y'))).body.code, 'R0');
  const req = bet('y', 'g1', [['1', 'P', 10]], { currency: 'USD' });
  t.equal((await send(app, req)).body.code, 'R0');
  t.equal((await send(app, req)).body.code, 'R1', 'the resend is forced');
  const entries = await journal(app, { transaction_id: req.transaction_id });
  t.same(entries[1].findings, []);
});
