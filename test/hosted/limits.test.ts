import t from 'tap';
import { asHost, bearer, buildHostedTestApp, callbackHeaders, createTenant, type Created, loginOf, SMALL } from '../helpers/hosted.js';
import type { FastifyInstance } from 'fastify';

const callback = (app: FastifyInstance, tenant: Created, user = 'alice') =>
  app.inject({ method: 'POST', url: `/t/${tenant.id}/callback`, headers: callbackHeaders(tenant), payload: JSON.stringify(loginOf(user)) });

t.test('callbacks per second: past the limit 429 with Retry-After and RateLimit-*, not journalled; other tenants untouched', async (t) => {
  let now = 1_000_000;
  const { app } = await buildHostedTestApp({ tenantLimits: { callbacksPerSecond: 3 }, now: () => now });
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'flood' });
  const b = await createTenant(app, { name: 'quiet' });
  for (let i = 0; i < 3; i++) t.equal((await callback(app, a)).json().code, 'R0');
  now += 400;
  const refused = await callback(app, a);
  t.equal(refused.statusCode, 429);
  t.match(refused.headers, { 'retry-after': '1', 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'ratelimit-reset': '1' });
  t.match(refused.json(), { error: 'RATE_LIMITED', message: /3 per second.*Retry-After/ });
  t.equal((await callback(app, b, 'bob')).json().code, 'R0', "another tenant's callbacks are not limited by this one's");

  const journal = await app.inject({ url: `/t/${a.id}/admin/journal`, headers: bearer(a.token) });
  t.equal(journal.json().count, 3, 'a refused callback is counted, not journalled');
  const listed = (await app.inject({ url: '/tenants', headers: asHost })).json() as {
    id: string;
    rate_limited: number;
    callbacks: number;
  }[];
  t.match(
    listed.find((x) => x.id === a.id),
    { rate_limited: 1, callbacks: 3 },
  );

  now += 600; // the window ended
  t.equal((await callback(app, a)).json().code, 'R0', 'the next second takes callbacks again');
});

t.test('admin requests per minute: past the limit 429; the host is not limited', async (t) => {
  let now = 5_000_000;
  const { app } = await buildHostedTestApp({ tenantLimits: { adminPerMinute: 2 }, now: () => now });
  t.teardown(() => app.close());
  const a = await createTenant(app);
  const players = (headers: Record<string, string>) => app.inject({ url: `/t/${a.id}/admin/players`, headers });
  t.equal((await players(bearer(a.token))).statusCode, 200);
  t.equal((await players(bearer(a.token))).statusCode, 200);
  now += 30_000;
  const refused = await players(bearer(a.token));
  t.equal(refused.statusCode, 429);
  t.match(refused.headers, { 'retry-after': '30', 'ratelimit-limit': '2', 'ratelimit-remaining': '0' });
  t.equal((await players(asHost)).statusCode, 200, "the host's token is not counted against the tenant");
  t.equal((await players(bearer('garbage'))).statusCode, 401, 'a wrong token still gets 401, not 429 (the limit is no oracle)');
  now += 30_000;
  t.equal((await players(bearer(a.token))).statusCode, 200);
});

t.test("each tenant's journal is bounded by its own size", async (t) => {
  const { app } = await buildHostedTestApp({ backend: { journalSize: 3 } });
  t.teardown(() => app.close());
  const a = await createTenant(app);
  const b = await createTenant(app);
  for (let i = 0; i < 5; i++) await callback(app, a, `u${i}`);
  await callback(app, b, 'bob');
  const count = async (x: Created) => (await app.inject({ url: `/t/${x.id}/admin/journal`, headers: bearer(x.token) })).json().count;
  t.equal(await count(a), 3, 'the newest 3');
  t.equal(await count(b), 1);
});

t.test('event streams per tenant are capped: one more is 503 LISTENERS_FULL, other tenants still get theirs', async (t) => {
  const { app } = await buildHostedTestApp({ maxListenersEach: 1 });
  t.teardown(() => app.close());
  const a = await createTenant(app);
  const b = await createTenant(app);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const open = (x: Created) => {
    const controller = new AbortController();
    return { controller, response: fetch(`${url}/t/${x.id}/admin/events`, { headers: bearer(x.token), signal: controller.signal }) };
  };
  const first = open(a);
  t.equal((await first.response).status, 200);
  const second = open(a);
  const refused = await second.response;
  t.equal(refused.status, 503);
  t.match(
    (await refused.json()).message,
    /^1 listener of this tenant already follows GET \/t\/[^/]+\/admin\/events.* \(the host's --tenant-listeners\).*ask the host for a higher limit$/,
    "the tenant's own limit, and what the tenant can do",
  );
  const other = open(b);
  t.equal((await other.response).status, 200);
  // Rotating a's token ends its stream.
  const reader = (await first.response).body!.getReader();
  await reader.read(); // the opening comment
  await app.inject({ method: 'POST', url: `/tenants/${a.id}/token`, headers: asHost });
  let ended = false;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    text += new TextDecoder().decode(value);
  }
  t.ok(ended, "the rotated token's stream ended");
  t.match(text, /: this tenant's token was rotated: ask the host for the new one\n\n$/, 'saying why (not "shutting down")');
  other.controller.abort();
});

t.test(
  'players: a new player past --tenant-players is R3 PLAYER_LIMIT (PUT: 409), known players go on; a scenario listing more is refused',
  async (t) => {
    const { app } = await buildHostedTestApp({ backend: { maxPlayers: 2 } });
    t.teardown(() => app.close());
    const a = await createTenant(app, { name: 'small', scenario: { ...SMALL, players: [] } });
    t.equal((await callback(app, a, 'p1')).json().code, 'R0');
    t.equal((await callback(app, a, 'p2')).json().code, 'R0');
    const full = await callback(app, a, 'p3');
    t.equal(full.json().code, 'R3', 'a third player is refused with the protocol code');
    const journal = (await app.inject({ url: `/t/${a.id}/admin/journal?user_id=p3`, headers: bearer(a.token) })).json();
    t.match(journal.entries[0].findings, [{ code: 'PLAYER_LIMIT' }], 'the journal says why');
    t.equal((await callback(app, a, 'p1')).json().code, 'R0', 'a known player still plays');
    const put = await app.inject({
      method: 'PUT',
      url: `/t/${a.id}/admin/players/p4`,
      headers: { ...bearer(a.token), 'content-type': 'application/json' },
      payload: { balance: 10 },
    });
    t.equal(put.statusCode, 409);
    t.match(put.json(), { error: 'PLAYER_LIMIT', message: /2 players.*reset/ });
    const players = (await app.inject({ url: `/t/${a.id}/admin/players`, headers: bearer(a.token) })).json();
    t.equal(players.length, 2, 'nothing was created');

    const many = await app.inject({
      method: 'POST',
      url: '/tenants',
      headers: { ...asHost, 'content-type': 'application/json' },
      payload: {
        name: 'big',
        scenario: { ...SMALL, players: ['x', 'y', 'z'].map((user_id) => ({ user_id, balance: 1, currency: 'USD' })) },
      },
    });
    t.equal(many.statusCode, 400);
    t.match(many.json().details, [{ pointer: '/players', message: /3 players.*--tenant-players/ }]);
  },
);

t.test(
  'callbacks in flight: past --tenant-callbacks-in-flight 429 IN_FLIGHT_LIMITED; free again once the held replies are written',
  async (t) => {
    const { app, tenants } = await buildHostedTestApp({ tenantLimits: { callbacksInFlight: 2 } });
    t.teardown(() => app.close());
    const held = { ...SMALL, rules: [{ name: 'hold logins', when: { event_type: 'login' }, then: { delay_ms: 2000 } }] };
    const a = await createTenant(app, { name: 'held', scenario: held });
    const b = await createTenant(app, { name: 'other', scenario: held });
    const first = [callback(app, a, 'p1'), callback(app, a, 'p2')];
    const live = tenants.get(a.id)!;
    while (live.inFlight.count < 2) await new Promise((r) => setImmediate(r));
    const refused = await callback(app, a, 'p3');
    t.equal(refused.statusCode, 429);
    t.equal(refused.headers['retry-after'], '1');
    t.match(refused.json(), { error: 'IN_FLIGHT_LIMITED', message: /2 callbacks being answered.*delay/ });
    const other = callback(app, b, 'q1');
    t.same(
      (await Promise.all(first)).map((r) => r.json().code),
      ['R0', 'R0'],
      'the held replies are written',
    );
    t.equal((await other).json().code, 'R0', "another tenant's callbacks are not counted against this one");
    t.equal(live.inFlight.count, 0, 'every written reply counted out');
    t.equal((await callback(app, a, 'p3')).json().code, 'R0');
    const journal = (await app.inject({ url: `/t/${a.id}/admin/journal`, headers: bearer(a.token) })).json();
    t.equal(journal.count, 3, 'the refused callback is not journalled');
  },
);
