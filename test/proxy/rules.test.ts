// Proxy mode's rule semantics, one row per rule kind, against a real upstream: wallet-sim itself in
// another process (correct), so what reached it is read from its own journal and ledger.
import t from 'tap';
import type { Rule, RuleThen } from '../../src/protocol/types.generated.js';
import { StartFailure } from '../../src/app/serve.js';
import { startSimulator } from '../../src/app/start-simulator.js';
import { bet, HEADERS, login, post } from '../helpers/app.js';
import { run } from '../helpers/spawn-cli.js';
import { scenarioFile, startProxy, startUpstream, UPSTREAM_SCENARIO } from './upstream.js';

const usd = { currency: 'USD' };
const rule = (user: string, then: RuleThen, event: 'login' | 'bet' = 'bet'): Rule => ({
  name: `${user} ${event}`,
  when: { event_type: event, user_id: user },
  then,
});

t.test('each rule kind through the proxy, against wallet-sim as the upstream', async (t) => {
  const up = await startUpstream(t);
  const proxy = await startProxy(
    t,
    {
      rules: [
        rule('u-code', { code: 'R1' }),
        rule('u-code-balance', { code: 'R4', latest_balance: 5 }),
        rule('u-delay', { delay_ms: 400 }),
        { ...rule('u-drop', { drop_connection: true }), times: 1 },
        rule('u-status', { http_status: 500 }),
        rule('u-body', { body: 'not json at all' }),
        rule('u-creds', { code: 'R1' }, 'login'),
      ],
    },
    up.url,
  );
  const upstreamTx = async (tx: string) => (await up.get(`/admin/journal?transaction_id=${encodeURIComponent(tx)}`)).entries as any[];
  const proxyEntry = async (tx: string) =>
    (await proxy.app.inject({ url: `/admin/journal?transaction_id=${encodeURIComponent(tx)}` })).json().entries.at(-1);
  const loggedIn = async (user: string) => t.equal((await post(proxy.url, login(user))).body.code, 'R0', `${user} logs in`);

  t.test('no rule: the upstream reply relayed as it came', async (t) => {
    await loggedIn('u-plain');
    const b = bet('u-plain', 'g1', [['1', 'P', 10]], usd);
    const got = await post(proxy.url, b);
    const [there] = await upstreamTx(b.transaction_id);
    t.equal(got.status, 200);
    t.same(got.body, there.reply.body, 'the body the upstream sent');
    t.equal(got.body.latest_balance, 990);
    t.equal(got.headers['api-id'], 'sandbox', 'the upstream headers');
    t.equal(got.headers['x-wallet-sim-reason'], undefined, 'nothing of wallet-sim added');
    t.equal(there.request.headers['callback-url'], HEADERS['callback-url'], 'the provider headers went upstream');
    const entry = await proxyEntry(b.transaction_id);
    t.match(
      entry.upstream,
      { url: up.url, forwarded: true, status: 200, body: { code: 'R0', latest_balance: 990 } },
      'both legs journalled',
    );
    t.type(entry.upstream.duration_ms, 'number');
  });

  t.test('code: answered by wallet-sim, not forwarded; latest_balance as the upstream last reported', async (t) => {
    await loggedIn('u-code');
    const b = bet('u-code', 'g1', [['1', 'P', 10]], usd);
    const got = await post(proxy.url, b);
    t.same([got.body.code, got.body.latest_balance], ['R1', 1000]);
    t.same(await upstreamTx(b.transaction_id), [], 'the upstream never saw it');
    t.match((await proxyEntry(b.transaction_id)).upstream, { forwarded: false });
  });

  t.test("code with latest_balance: the rule's balance", async (t) => {
    await loggedIn('u-code-balance');
    const got = await post(proxy.url, bet('u-code-balance', 'g1', [['1', 'P', 10]], usd));
    t.same([got.body.code, got.body.latest_balance], ['R4', 5]);
  });

  t.test("delay_ms: the upstream's reply relayed that much later", async (t) => {
    await loggedIn('u-delay');
    const b = bet('u-delay', 'g1', [['1', 'P', 10]], usd);
    const sent = Date.now();
    const got = await post(proxy.url, b);
    t.ok(Date.now() - sent >= 400, 'not before the delay');
    t.same([got.body.code, got.body.latest_balance], ['R0', 990]);
    t.equal((await upstreamTx(b.transaction_id)).length, 1, 'applied upstream');
  });

  t.test("drop_connection: forwarded, applied upstream, the provider's connection closed; the resend replays there", async (t) => {
    await loggedIn('u-drop');
    const b = bet('u-drop', 'g1', [['1', 'P', 10]], usd);
    await t.rejects(post(proxy.url, b), 'no reply');
    const again = await post(proxy.url, b);
    t.same([again.body.code, again.body.latest_balance], ['R0', 990], 'the resend: R0, one debit');
    const ledger = (await up.get('/admin/ledger?user_id=u-drop')) as any[];
    t.equal(ledger.length, 1, 'one bet in the upstream ledger');
    t.equal((await upstreamTx(b.transaction_id)).length, 2, 'both attempts reached the upstream');
    const entries = (await proxy.app.inject({ url: `/admin/journal?transaction_id=${b.transaction_id}` })).json().entries as any[];
    t.same(
      entries.map((e) => e.replayed),
      [false, true],
      "the journal calls the resend a replay, as the upstream's R0 to an applied transaction is (verify's replayed filter)",
    );
  });

  t.test('http_status: replaces the status after forwarding', async (t) => {
    await loggedIn('u-status');
    const b = bet('u-status', 'g1', [['1', 'P', 10]], usd);
    const got = await post(proxy.url, b);
    t.same([got.status, got.body.code], [500, 'R0'], "the upstream's body under the rule's status");
    t.equal((await upstreamTx(b.transaction_id)).length, 1);
  });

  t.test('body: replaces the body after forwarding', async (t) => {
    await loggedIn('u-body');
    const b = bet('u-body', 'g1', [['1', 'P', 10]], usd);
    const got = await post(proxy.url, b);
    t.equal(got.raw, 'not json at all');
    t.equal((await upstreamTx(b.transaction_id)).length, 1, 'applied upstream');
  });

  t.test('other credentials: forwarded untouched, the upstream refuses, no rule matches, a finding', async (t) => {
    const l = login('u-creds');
    const got = await post(proxy.url, l, { ...HEADERS, 'api-key': 'not-the-key' });
    t.equal(got.body.code, 'R2', "the upstream's R2, not the rule's R1");
    const [there] = await upstreamTx(l.transaction_id);
    t.match(there.findings, [{ code: 'CREDENTIALS_WRONG' }], 'the upstream got the wrong key as sent');
    t.match((await proxyEntry(l.transaction_id)).findings, [{ code: 'CREDENTIALS_WRONG' }]);
  });

  t.test('an invalid callback is forwarded; the upstream refuses it', async (t) => {
    const { feedback_data: _gone, ...invalid } = login('u-invalid');
    const got = await post(proxy.url, invalid);
    t.equal(got.body.code, 'R3');
    t.equal((await upstreamTx(invalid.transaction_id)).length, 1);
  });

  t.test('players and ledger: as the upstream reported; PUT players 409', async (t) => {
    const players = (await proxy.app.inject({ url: '/admin/players' })).json() as any[];
    const drop = players.find((p) => p.user_id === 'u-drop');
    t.same(drop, { user_id: 'u-drop', balance: 990, currency: 'USD' });
    t.notOk(
      players.some((p) => p.user_id === 'u-invalid'),
      'a refused invalid callback reports no player',
    );
    const ledger = (await proxy.app.inject({ url: '/admin/ledger?user_id=u-drop' })).json() as any[];
    t.match(ledger, [{ event_type: 'bet', amount: 10, balance_after: 990 }], 'one row, as upstream');
    const put = await proxy.app.inject({ method: 'PUT', url: '/admin/players/u-drop', payload: { balance: 5 } });
    t.equal(put.statusCode, 409);
    t.match(put.json(), { error: 'BALANCES_UPSTREAM', message: /balances live in the upstream wallet/ });
  });

  t.test('set_balance is refused while proxying: PUT /admin/scenario 400', async (t) => {
    const res = await proxy.app.inject({
      method: 'PUT',
      url: '/admin/scenario',
      payload: { ...UPSTREAM_SCENARIO, rules: [rule('x', { set_balance: 5 })] },
    });
    t.equal(res.statusCode, 400);
    t.match(res.json().message, /set_balance.*proxy mode/);
  });

  t.test('the wallet side: no failing check on a correct upstream', async (t) => {
    const checks = proxy.sim.grading.wallet!.checks();
    t.same(
      checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.violations.map((v) => v.message).join(' | ')}`),
      [],
    );
    t.ok(checks.find((c) => c.id === 'WALLET_REPLY_VALID')!.exercised > 0, 'graded');
    const report = (await proxy.app.inject({ url: '/admin/report' })).json() as { checks: { id: string; side: string; status: string }[] };
    t.same(
      report.checks.filter((c) => c.side === 'wallet').map((c) => c.id),
      checks.map((c) => c.id),
      "GET /admin/report lists the wallet's side after the provider's",
    );
  });
});

t.test('set_balance refused by start --upstream and validate --proxy', async (t) => {
  const file = scenarioFile({ ...UPSTREAM_SCENARIO, rules: [rule('x', { set_balance: 5 })] });
  await t.rejects(startSimulator({ scenario: file, upstream: 'http://127.0.0.1:9/callback' }), StartFailure);
  const [plain, proxied] = await Promise.all([run(['validate', file]), run(['validate', '--proxy', file])]);
  t.equal(plain.code, 0, 'fine without a proxy');
  t.equal(proxied.code, 1);
  t.match(proxied.stderr, /\/rules\/0\/then\/set_balance.*proxy mode/);
});

t.test('what does nothing in proxy mode is warned of by validate --proxy (and loads)', async (t) => {
  const file = scenarioFile({
    ...UPSTREAM_SCENARIO,
    players: [{ user_id: 'seeded', balance: 50, currency: 'USD' }],
    rules: [rule('x', { latest_balance: 5 }), rule('y', { code: 'R4', latest_balance: 5 })],
  });
  const [plain, proxied] = await Promise.all([run(['validate', file]), run(['validate', '--proxy', file])]);
  t.equal(plain.code, 0);
  t.notMatch(plain.stderr, /proxy mode/, 'nothing said without --proxy');
  t.equal(proxied.code, 0, 'warned, not refused');
  t.match(proxied.stderr, /warning: \/players are not seeded in proxy mode/);
  t.match(proxied.stderr, /warning: \/rules\/0\/then\/latest_balance changes nothing in proxy mode without code/);
  t.notMatch(proxied.stderr, /\/rules\/1\//, 'with code it does something');
});
