import t from 'tap';
import type { Rule } from '../src/protocol/types.generated.js';
import { balanceOf, bet, buildTestApp, HEADERS, login, result, send } from './helpers/app.js';
import { listen, post } from './helpers/net.js';

const withRules = (rules: Rule[]) => buildTestApp({ rules });

t.test('code: reply with it and change nothing (R1-R4); latest_balance still reported except R2', async (t) => {
  for (const code of ['R1', 'R2', 'R3', 'R4'] as const) {
    const { app, sim } = await withRules([{ when: { event_type: 'bet' }, then: { code } }]);
    const r = await send(app, bet('player-1', 'G1', [['1', 'P', 500]]));
    t.equal(r.status, 200);
    t.equal(r.body.code, code, `forced ${code}`);
    t.equal(r.body.latest_balance, code === 'R2' ? undefined : 1000000);
    t.match(r.headers['x-wallet-sim-reason'], `${code} forced by scenario rule "rule 0"`);
    t.equal(balanceOf(sim, 'player-1'), '1000000', `${code}: nothing debited`);
    t.equal(sim.state.rounds.size, 0, `${code}: no round opened`);
    const [entry] = sim.journal.list();
    t.match(entry, { code, rule: { index: 0, name: 'rule 0' } }, 'the journal names the rule');
    await app.close();
  }
});

t.test('a forced rejection is not recorded: the retry of the same transaction is applied', async (t) => {
  const { app, sim } = await withRules([{ when: { event_type: 'bet' }, then: { code: 'R1' }, times: 1 }]);
  t.teardown(() => app.close());
  const b = bet('player-1', 'G1', [['1', 'P', 500]]);
  t.equal((await send(app, b)).body.code, 'R1');
  t.match((await send(app, b)).body, { code: 'R0', latest_balance: 999500 });
  t.same(sim.rules.hits()[0], { index: 0, name: 'rule 0', matched: 2, fired: 1, exhausted: true });
});

t.test('set_balance applies before processing', async (t) => {
  const { app, sim } = await withRules([{ when: { event_type: 'bet', user_id: 'usd' }, then: { set_balance: 50 } }]);
  t.teardown(() => app.close());
  t.match((await send(app, bet('usd', 'G1', [['1', 'P', 20]], { currency: 'USD' }))).body, { code: 'R0', latest_balance: 30 });
  t.match((await send(app, bet('usd', 'G2', [['1', 'P', 60]], { currency: 'USD' }))).body, { code: 'R4', latest_balance: 50 });
  t.equal(balanceOf(sim, 'usd'), '50');
  // with a forced code: the balance is set, the callback changes nothing
  const forced = await withRules([{ when: { user_id: 'usd' }, then: { set_balance: 7.5, code: 'R1' } }]);
  t.match((await send(forced.app, login('usd'))).body, { code: 'R1', latest_balance: 7.5 });
  await forced.app.close();
});

t.test('set_balance never gives a player a balance its currency cannot hold (a rule naming another currency)', async (t) => {
  const { app, sim } = await withRules([{ when: { event_type: 'bet', currency: 'USD' }, then: { set_balance: 12.34 } }]);
  t.teardown(() => app.close());
  // player-1 holds KRW (no fraction digits): its bet in USD is refused, and its balance stays whole
  const r = await send(app, bet('player-1', 'G1', [['1', 'P', 1]], { currency: 'USD' }));
  t.equal(r.body.code, 'R3');
  t.equal(balanceOf(sim, 'player-1'), '1000000');
  t.equal(r.body.latest_balance, 1000000);
});

t.test('latest_balance override, or null to omit; http_status; raw body', async (t) => {
  const { app, sim } = await withRules([
    { name: 'lie', when: { event_type: 'login', user_id: 'a' }, then: { latest_balance: 12.34 } },
    { name: 'omit', when: { event_type: 'login', user_id: 'b' }, then: { latest_balance: null } },
    { name: 'teapot', when: { event_type: 'login', user_id: 'c' }, then: { http_status: 503 } },
    { name: 'raw', when: { event_type: 'login', user_id: 'd' }, then: { body: 'not json at all' } },
    { name: 'json', when: { event_type: 'login', user_id: 'e' }, then: { body: { code: 'R0' } } },
  ]);
  t.teardown(() => app.close());
  const a = await send(app, login('a'));
  t.match(a.body, { code: 'R0', latest_balance: 12.34 });
  t.equal(balanceOf(sim, 'a'), '1000', 'the real balance is untouched');
  const b = await send(app, login('b'));
  t.equal(b.body.code, 'R0');
  t.notOk('latest_balance' in b.body, 'omitted');
  const c = await send(app, login('c'));
  t.equal(c.status, 503);
  t.equal(c.body.code, 'R0', 'processed, answered with the forced status');
  const d = await send(app, login('d'));
  t.equal(d.raw, 'not json at all');
  t.same((await send(app, login('e'))).body, { code: 'R0' });
});

t.test('delay_ms: applied at once, answered late (real socket)', async (t) => {
  const { app, sim } = await withRules([{ when: { event_type: 'bet' }, then: { delay_ms: 400 } }]);
  t.teardown(() => app.close());
  const url = await listen(app);
  const pending = post(`${url}/callback`, bet('usd', 'G1', [['1', 'P', 10]], { currency: 'USD' }), HEADERS);
  // applied before the reply: poll the admin API while the reply is held back
  let seen: string | undefined;
  for (let i = 0; i < 50 && seen !== '90'; i++) {
    seen = ((await (await fetch(`${url}/admin/players/usd`)).json()) as { balance: number }).balance.toString();
    if (seen !== '90') await new Promise((r) => setTimeout(r, 10));
  }
  t.equal(seen, '90', 'debited before the reply left');
  const r = await pending;
  t.match(r.body, { code: 'R0', latest_balance: 90 });
  t.ok(r.ms >= 400, `answered after ${Math.round(r.ms)} ms (>= 400)`);
  t.ok(sim.journal.list()[0]!.duration_ms >= 400, 'the journal duration includes the delay');
});

t.test('drop_connection: applied, socket closed; the retry with the same transaction_id replays R0, one debit', async (t) => {
  const { app, sim } = await withRules([{ when: { event_type: 'bet' }, then: { drop_connection: true }, times: 1 }]);
  t.teardown(() => app.close());
  const url = await listen(app);
  const b = bet('usd', 'G1', [['1', 'P', 10]], { currency: 'USD' });
  const lost = await post(`${url}/callback`, b, HEADERS);
  t.equal(lost.status, 0, 'no HTTP reply');
  t.match(lost.error, /ECONNRESET|socket hang up/, `the client sees ${lost.error}`);
  t.equal(balanceOf(sim, 'usd'), '90', 'the bet was applied');
  const retry = await post(`${url}/callback`, { ...b, timestamp: b.timestamp + 5 }, HEADERS);
  t.match(retry.body, { code: 'R0', latest_balance: 90 });
  t.equal(balanceOf(sim, 'usd'), '90', 'one debit');
  const entries = sim.journal.list();
  t.match(
    entries.map((e) => [e.reply.dropped, e.replayed]),
    [
      [true, false],
      [false, true],
    ],
  );
  t.match(entries[1]!.findings, [{ code: 'TRANSACTION_REPLAYED', severity: 'info' }]);
});

t.test('rules apply to retries before the idempotency lookup', async (t) => {
  const { app, sim } = await withRules([{ when: { event_type: 'bet', nth: 2 }, then: { code: 'R4' } }]);
  t.teardown(() => app.close());
  const b = bet('player-1', 'G1', [['1', 'P', 100]]);
  t.equal((await send(app, b)).body.code, 'R0');
  t.equal((await send(app, b)).body.code, 'R4', 'the retry is the 2nd bet: forced');
  t.equal((await send(app, b)).body.code, 'R0', 'then replayed');
  t.equal(balanceOf(sim, 'player-1'), '999900');
});

t.test('rules only see authenticated, well-formed callbacks', async (t) => {
  const { app, sim } = await withRules([{ when: {}, then: { code: 'R1' } }]);
  t.teardown(() => app.close());
  t.equal((await send(app, login('a'), { ...HEADERS, 'api-key': 'wrong' })).body.code, 'R2');
  t.equal((await send(app, '{"event_type":"login"}')).body.code, 'R3');
  t.equal(sim.rules.hits()[0]!.matched, 0);
  t.equal((await send(app, result('player-1', 'G9', [['1', 'P', 1, 1]]))).body.code, 'R1', 'a well-formed one is forced');
});
