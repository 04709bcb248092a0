import t from 'tap';
import { balanceOf, bet, buildTestApp, login, send, TEST_SCENARIO } from './helpers/app.js';

t.test('players: list, get, put (create, update, scale), 404', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  t.same((await app.inject('/admin/players')).json(), [
    { user_id: 'player-1', balance: 1000000, currency: 'KRW' },
    { user_id: 'usd', balance: 100, currency: 'USD' },
  ]);
  t.same((await app.inject('/admin/players/usd')).json(), { user_id: 'usd', balance: 100, currency: 'USD' });
  const missing = await app.inject('/admin/players/nobody');
  t.equal(missing.statusCode, 404);
  t.match(missing.json(), { error: 'PLAYER_UNKNOWN', message: 'no player nobody' });

  const put = (id: string, body: object) => app.inject({ method: 'PUT', url: `/admin/players/${encodeURIComponent(id)}`, payload: body });
  t.same((await put('usd', { balance: 0.3 })).json(), { user_id: 'usd', balance: 0.3, currency: 'USD' }, 'keeps the currency');
  t.same(
    (await put('new one', { balance: 5 })).json(),
    { user_id: 'new one', balance: 5, currency: 'USD' },
    'created with the default currency',
  );
  t.same((await put('__proto__', { balance: 7, currency: 'KRW' })).json(), { user_id: '__proto__', balance: 7, currency: 'KRW' });
  t.equal(({} as Record<string, unknown>).balance, undefined, 'no prototype touched');

  const scale = await put('player-1', { balance: 10.5 });
  t.equal(scale.statusCode, 400);
  t.match(scale.json(), { error: 'BAD_REQUEST', details: [{ pointer: '/balance', message: '10.5 has 1 fraction digit; KRW allows 0' }] });
  const negative = await put('usd', { balance: -1 });
  t.equal(negative.statusCode, 400);
  t.match(negative.json(), { error: 'BAD_REQUEST', details: [{ pointer: '/balance', message: 'must be >= 0' }] });
  t.equal((await put('usd', { balance: '5' })).statusCode, 400, 'no coercion of strings');
  t.equal(balanceOf(sim, 'usd'), '0.3', 'rejected puts changed nothing');

  // the new balance is what the next callback sees
  t.match(
    (
      await send(
        app,
        bet(
          'usd',
          'G1',
          [
            ['1', 'P', 0.1],
            ['2', 'B', 0.2],
          ],
          { currency: 'USD', total: 0.3 },
        ),
      )
    ).body,
    { code: 'R0', latest_balance: 0 },
  );
});

t.test('reset: back to the scenario, journal and counters cleared', async (t) => {
  const { app, sim } = await buildTestApp({ rules: [{ when: { event_type: 'login' }, then: { delay_ms: 0 } }] });
  t.teardown(() => app.close());
  await send(app, bet('player-1', 'G1', [['1', 'P', 100]]));
  await send(app, login('stranger'));
  t.equal(sim.journal.count(), 2);
  const res = await app.inject({ method: 'POST', url: '/admin/reset' });
  t.same(res.json(), { ok: true });
  t.equal(balanceOf(sim, 'player-1'), '1000000');
  t.equal(sim.player('stranger'), undefined, 'auto-created players are gone');
  t.equal(sim.state.rounds.size, 0);
  t.equal(sim.state.transactions.size, 0);
  t.equal(sim.journal.count(), 0);
  t.same(
    (await app.inject('/admin/scenario/rules')).json().map((h: { matched: number }) => h.matched),
    [0],
  );
});

t.test('journal over HTTP: filters, limit, delete', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const l = login('usd');
  await send(app, l);
  await send(app, bet('usd', 'G1', [['1', 'P', 1]], { currency: 'USD' }));
  await send(app, login('player-1'));
  const get = async (q: string) => (await app.inject(`/admin/journal${q}`)).json();
  t.equal((await get('')).count, 3);
  t.same(
    (await get('?user_id=usd')).entries.map((e: { event_type: string }) => e.event_type),
    ['login', 'bet'],
  );
  t.same(
    (await get('?event_type=login')).entries.map((e: { user_id: string }) => e.user_id),
    ['usd', 'player-1'],
  );
  t.same(
    (await get(`?transaction_id=${l.transaction_id}`)).entries.map((e: { code: string }) => e.code),
    ['R0'],
  );
  t.same(
    (await get('?limit=1')).entries.map((e: { user_id: string }) => e.user_id),
    ['player-1'],
  );
  t.equal((await app.inject('/admin/journal?limit=abc')).statusCode, 400);
  t.equal((await app.inject({ method: 'DELETE', url: '/admin/journal' })).statusCode, 204);
  t.equal((await get('')).count, 0);
});

t.test('report: an unknown query parameter is refused naming the ones it takes, as the journal does', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const typo = await app.inject('/admin/report?user=player-1');
  t.equal(typo.statusCode, 400);
  t.match(typo.json(), {
    error: 'BAD_REQUEST',
    message: /^querystring:\/user is not an allowed property; GET \/admin\/report takes the query parameters user_id, signed /,
  });
  t.equal((await app.inject('/admin/report?user_id=player-1')).statusCode, 200, 'user_id is one of them');
});

t.test('scenario: get, put (rules, credentials, listed players; others stay), ?reset=true', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  t.equal((await app.inject('/admin/scenario')).json().name, 'test');
  await send(app, login('stranger'));
  await send(app, bet('player-1', 'G1', [['1', 'P', 100]]));
  const next = {
    ...TEST_SCENARIO,
    name: 'next',
    credentials: { api_id: 'sandbox', api_key: 'sandbox-key' },
    players: [{ user_id: 'usd', balance: 42, currency: 'USD' }],
    rules: [{ name: 'no bets', when: { event_type: 'bet' }, then: { code: 'R1' } }],
  };
  const res = await app.inject({ method: 'PUT', url: '/admin/scenario', payload: next });
  t.same(res.json(), { ok: true, name: 'next', reset: false });
  t.equal(balanceOf(sim, 'usd'), '42', 'listed player set');
  t.equal(balanceOf(sim, 'player-1'), '999900', 'unlisted player stays');
  t.ok(sim.player('stranger'), 'auto-created player stays');
  t.equal(sim.journal.count(), 2, 'history stays');
  t.equal((await send(app, bet('usd', 'G2', [['1', 'P', 1]], { currency: 'USD' }))).body.code, 'R1', 'new rules active');
  t.same((await app.inject('/admin/scenario/rules')).json(), [{ index: 0, name: 'no bets', matched: 1, fired: 1, exhausted: false }]);

  // a misspelt ?rest=true is refused naming reset, and changes nothing (it once kept the session silently)
  const entries = sim.journal.count();
  const typo = await app.inject({ method: 'PUT', url: '/admin/scenario?rest=true', payload: next });
  t.equal(typo.statusCode, 400);
  t.match(typo.json().message, /PUT \/admin\/scenario takes the query parameters reset/);
  t.equal(sim.journal.count(), entries, 'nothing reset');

  await app.inject({ method: 'PUT', url: '/admin/scenario?reset=true', payload: next });
  t.equal(sim.player('player-1'), undefined, 'reset: only the new scenario players');
  t.equal(sim.journal.count(), 0);
});

t.test('scenario: an invalid PUT is a 400 naming each field, and the old scenario stays', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const bad = { name: 'bad', credentials: { api_id: 'x' }, rules: [{ when: { nth: 0 }, then: { delay_ms: 'soon' } }] };
  const res = await app.inject({ method: 'PUT', url: '/admin/scenario', payload: bad });
  t.equal(res.statusCode, 400);
  t.same(
    res
      .json()
      .details.map((d: { pointer: string }) => d.pointer)
      .sort(),
    ['/credentials/api_key', '/rules/0/then/delay_ms', '/rules/0/when/nth'],
  );
  const semantic = await app.inject({
    method: 'PUT',
    url: '/admin/scenario',
    payload: { ...TEST_SCENARIO, players: [{ user_id: 'k', balance: 0.5, currency: 'KRW' }] },
  });
  t.equal(semantic.statusCode, 400);
  t.match(semantic.json(), {
    error: 'SCENARIO_INVALID',
    details: [{ pointer: '/players/0/balance', message: 'has 1 fraction digit; KRW allows 0' }],
  });
  t.equal(sim.scenario.source.name, 'test', 'old scenario active');
  t.equal((await send(app, login('usd'))).body.code, 'R0');
});

t.test('--admin-token locks /admin behind a bearer token, and only /admin', async (t) => {
  const { app } = await buildTestApp({}, { adminToken: 's3cret' });
  t.teardown(() => app.close());
  t.equal((await app.inject('/admin/players')).statusCode, 401);
  t.equal((await app.inject({ url: '/admin/players', headers: { authorization: 'Bearer wrong' } })).statusCode, 401);
  t.equal((await app.inject({ method: 'POST', url: '/admin/reset', headers: { authorization: 's3cret' } })).statusCode, 401);
  t.equal((await app.inject({ url: '/admin/players', headers: { authorization: 'Bearer s3cret' } })).statusCode, 200);
  t.equal((await send(app, login('usd'))).body.code, 'R0', 'callbacks are unaffected');
  t.equal((await app.inject('/health')).statusCode, 200);
});

t.test('--api-id / --api-key override the scenario credentials', async (t) => {
  const { app } = await buildTestApp({}, { apiId: 'prov', apiKey: 'k2' });
  t.teardown(() => app.close());
  t.equal((await send(app, login('usd'))).body.code, 'R2', 'the scenario key no longer works');
  t.equal(
    (await send(app, login('usd'), { 'content-type': 'application/json', 'api-id': 'prov', 'api-key': 'k2', 'callback-url': 'x' })).body
      .code,
    'R0',
  );
  const shown = (await app.inject({ method: 'GET', url: '/admin/scenario' })).json();
  t.match(shown.credentials, { api_id: 'prov', api_key: 'k2' }, 'GET /admin/scenario shows the credentials in effect');
});

t.test('PUT /admin/scenario keeps the currency of a listed player that gives none', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  await app.inject({
    method: 'PUT',
    url: '/admin/scenario',
    payload: {
      ...TEST_SCENARIO,
      players: [
        { user_id: 'player-1', balance: 5 },
        { user_id: 'fresh', balance: 5 },
      ],
    },
  });
  t.same([sim.player('player-1')?.currency, balanceOf(sim, 'player-1')], ['KRW', '5'], 'still KRW');
  t.equal(sim.player('fresh')?.currency, 'USD', 'a new player gets the default');
});

t.test('PUT /admin/players refuses a currency the scenario would refuse (usd was kept, and every later callback R3)', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const put = (body: object) => app.inject({ method: 'PUT', url: '/admin/players/lc', payload: body });
  const lower = await put({ balance: 100, currency: 'usd' });
  t.equal(lower.statusCode, 400);
  t.match(lower.json(), { details: [{ pointer: '/currency', message: /is not a currency code: .*\(did you mean USD\?\)/ }] });
  t.equal((await put({ balance: 100, currency: 'U S D' })).statusCode, 400);
  t.equal((await app.inject('/admin/players/lc')).statusCode, 404, 'nothing written');
  t.same((await put({ balance: 100, currency: 'USD' })).json(), { user_id: 'lc', balance: 100, currency: 'USD' });
});
