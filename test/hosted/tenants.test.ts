import t from 'tap';
import { asHost, bearer, buildHostedTestApp, callbackHeaders, createTenant, HOST_TOKEN, loginOf } from '../helpers/hosted.js';
import { TEST_SCENARIO } from '../helpers/app.js';

t.test("a tenant's R2 says its credentials are its own; its 404s name its own routes", async (t) => {
  const { app } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme' });
  const res = await app.inject({
    method: 'POST',
    url: `/t/${a.id}/callback`,
    headers: { ...callbackHeaders(a), 'api-key': 'wrong' },
    payload: JSON.stringify(loginOf('alice')),
  });
  t.equal(res.json().code, 'R2');
  t.match(res.headers['x-wallet-sim-reason'], "send the credentials this wallet expects: the tenant's own, which POST /tenants answered");
  const nobody = await app.inject({ url: `/t/${a.id}/admin/players/nobody`, headers: bearer(a.token) });
  t.equal(nobody.statusCode, 404);
  t.match(nobody.json().message, `create it with PUT /t/${a.id}/admin/players/nobody`, "a 404 names the tenant's route");
});

t.test('two tenants in one host: each sees only its own traffic', async (t) => {
  const { app } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme' });
  const b = await createTenant(app, { name: 'Bravo' });
  t.not(a.id, b.id);
  t.match(a.id, /^[A-Za-z0-9_-]{22,}$/, 'a random URL-safe id of 128 bits');
  t.match(a.callback_url, new RegExp(`/t/${a.id}/callback$`));
  t.match(a.dashboard_url, new RegExp(`/t/${a.id}/ui$`));
  t.not(a.credentials.api_key, b.credentials.api_key, 'credentials are generated per tenant');
  t.not(a.token, b.token);

  const post = (id: string, headers: object, body: object) =>
    app.inject({ method: 'POST', url: `/t/${id}/callback`, headers: headers as never, payload: JSON.stringify(body) });
  const fromA = await post(a.id, callbackHeaders(a), loginOf('alice'));
  t.equal(fromA.json().code, 'R0', "a tenant's own credentials: R0");
  t.equal((await post(b.id, callbackHeaders(b), loginOf('bob'))).json().code, 'R0');
  t.equal((await post(b.id, callbackHeaders(a), loginOf('mallory'))).json().code, 'R2', "another tenant's credentials: R2");

  const journalOf = async (id: string, token: string) => {
    const res = await app.inject({ url: `/t/${id}/admin/journal`, headers: bearer(token) });
    t.equal(res.statusCode, 200);
    return (res.json().entries as { user_id: string }[]).map((e) => e.user_id);
  };
  t.same(await journalOf(a.id, a.token), ['alice']);
  t.same(await journalOf(b.id, b.token), ['bob', 'mallory']);

  const playersOf = async (id: string, token: string) =>
    ((await app.inject({ url: `/t/${id}/admin/players`, headers: bearer(token) })).json() as { user_id: string }[]).map((p) => p.user_id);
  t.ok((await playersOf(a.id, a.token)).includes('alice'));
  t.notOk((await playersOf(b.id, b.token)).includes('alice'), "a player of one tenant is not another's");

  // A reset of one tenant leaves the other's journal alone.
  t.equal((await app.inject({ method: 'POST', url: `/t/${a.id}/admin/reset`, headers: bearer(a.token) })).statusCode, 200);
  t.same(await journalOf(a.id, a.token), []);
  t.same(await journalOf(b.id, b.token), ['bob', 'mallory']);
});

t.test('tokens: 401 without or with a token nobody holds, 403 with another tenant’s, the same on an unknown id', async (t) => {
  const { app } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme' });
  const b = await createTenant(app, { name: 'Bravo' });
  const unknown = 'AAAAAAAAAAAAAAAAAAAAAA';
  const cases: [string, string, Record<string, string>, number][] = [
    ['no token', a.id, {}, 401],
    ['a garbage token', a.id, bearer('garbage'), 401],
    ['another scheme', a.id, { authorization: `Basic ${a.token}` }, 401],
    ["another tenant's token", a.id, bearer(b.token), 403],
    ['its own token', a.id, bearer(a.token), 200],
    ["the host's token", a.id, asHost, 200],
    ['a garbage token, unknown id', unknown, bearer('garbage'), 401],
    ["a tenant's token, unknown id", unknown, bearer(b.token), 403],
    ["the host's token, unknown id", unknown, asHost, 404],
  ];
  const bodies = new Map<number, string>();
  for (const [what, id, headers, status] of cases) {
    const res = await app.inject({ url: `/t/${id}/admin/players`, headers });
    t.equal(res.statusCode, status, what);
    if (status >= 400) {
      t.match(res.json().message, /\w/, `${what}: a message saying what to do`);
      if (status !== 404) {
        // Nothing tells an existing id from an unknown one: the same body for both.
        const seen = bodies.get(status);
        if (seen !== undefined) t.equal(res.body, seen, `${what}: the same answer as on an existing id`);
        bodies.set(status, res.body);
      }
    }
  }
  for (const headers of [{}, bearer(a.token), bearer('garbage')]) {
    const res = await app.inject({ url: '/tenants', headers });
    t.equal(res.statusCode, 401, 'host routes answer 401 to anything but the host token');
  }
  t.equal((await app.inject({ url: '/tenants', headers: asHost })).statusCode, 200);
  // The token never appears in the list.
  const listed = (await app.inject({ url: '/tenants', headers: asHost })).body;
  t.notOk(listed.includes(a.token) || listed.includes(HOST_TOKEN), 'no token in GET /tenants');
  t.match(JSON.parse(listed), [{ id: a.id, name: 'Acme', callbacks: 0, verdict: 'NOT_EXERCISED', last_activity_at: String }, { id: b.id }]);
});

t.test('hosted mode: the single-tenant routes answer 404 naming the tenant form; /health stays', async (t) => {
  const { app } = await buildHostedTestApp();
  t.teardown(() => app.close());
  for (const [method, url] of [
    ['POST', '/callback'],
    ['GET', '/admin/players'],
    ['POST', '/admin/reset'],
    ['GET', '/ui'],
  ] as const) {
    const res = await app.inject({ method, url, headers: asHost });
    t.equal(res.statusCode, 404, `${method} ${url}`);
    t.match(res.json(), { error: 'HOSTED', message: /\/t\/<tenant id>\// });
  }
  const health = await app.inject({ url: '/health' });
  t.match(health.json(), { status: 'ok', tenants: 0 });
  const unknownCallback = await app.inject({ method: 'POST', url: '/t/nobody/callback', payload: '{}' });
  t.equal(unknownCallback.statusCode, 404);
  t.match(unknownCallback.json(), { error: 'TENANT_UNKNOWN' });
});

t.test('rotate, delete and --max-tenants', async (t) => {
  const { app, tenants } = await buildHostedTestApp({ maxTenants: 2 });
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme' });
  const b = await createTenant(app, { name: 'Bravo' });
  const third = await app.inject({ method: 'POST', url: '/tenants', headers: asHost, payload: { name: 'Charlie' } });
  t.equal(third.statusCode, 409);
  t.match(third.json(), { error: 'TENANT_LIMIT', message: /--max-tenants/ });

  const rotated = await app.inject({ method: 'POST', url: `/tenants/${a.id}/token`, headers: asHost });
  t.equal(rotated.statusCode, 200);
  t.not(rotated.json().token, a.token);
  t.same(rotated.json().credentials, a.credentials, 'rotation keeps the credentials');
  t.equal((await app.inject({ url: `/t/${a.id}/admin/players`, headers: bearer(a.token) })).statusCode, 401, 'the old token is dead');
  t.equal((await app.inject({ url: `/t/${a.id}/admin/players`, headers: bearer(rotated.json().token) })).statusCode, 200);
  t.equal((await app.inject({ method: 'POST', url: `/tenants/nobody/token`, headers: asHost })).statusCode, 404);

  t.equal((await app.inject({ method: 'DELETE', url: `/tenants/${b.id}`, headers: asHost })).statusCode, 204);
  t.equal((await app.inject({ method: 'DELETE', url: `/tenants/${b.id}`, headers: asHost })).statusCode, 404);
  t.equal(
    (await app.inject({ url: `/t/${b.id}/admin/players`, headers: bearer(b.token) })).statusCode,
    401,
    "a deleted tenant's token is nobody's",
  );
  t.equal((await app.inject({ method: 'POST', url: `/t/${b.id}/callback`, payload: '{}' })).statusCode, 404);
  t.equal(tenants.size, 1);
  await createTenant(app, { name: 'Charlie' }); // the slot is free again
});

t.test('bad input never creates a tenant nor reads a host file', async (t) => {
  const { app, tenants } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const bad: [string, unknown][] = [
    ['no name', {}],
    ['an empty name', { name: '' }],
    ['a name of 65 characters', { name: 'x'.repeat(65) }],
    ['a control character', { name: 'a\u0007b' }],
    ['a newline', { name: 'a\nb' }],
    ['half of a surrogate pair (no character at all)', { name: 'a\ud800' }],
    ['a path for scenario', { name: 'x', scenario: '/etc/passwd' }],
    ['an unknown scenario', { name: 'x', scenario: 'nope' }],
    ['an invalid scenario', { name: 'x', scenario: { name: 'broken' } }],
    ['another property', { name: 'x', admin: true }],
    ['a delay_ms over 60 s', { name: 'x', scenario: { ...TEST_SCENARIO, rules: [{ when: {}, then: { delay_ms: 60_001 } }] } }],
    ['not JSON', '{"name":'],
  ];
  for (const [what, payload] of bad) {
    const res = await app.inject({
      method: 'POST',
      url: '/tenants',
      headers: { ...asHost, 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
    t.equal(res.statusCode, 400, what);
    t.notMatch(res.body, /root:/, `${what}: no file content`);
  }
  t.equal(tenants.size, 0);
  const named = await createTenant(app, { name: 'Ünïcødé <b>&</b> 🎲' });
  t.equal(named.name, 'Ünïcødé <b>&</b> 🎲', 'printable characters of any script are a name');
});

t.test("a tenant's credentials are fixed: a scenario's own are ignored, and the answer says so", async (t) => {
  const { app } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme', scenario: TEST_SCENARIO });
  t.not(a.credentials.api_id, TEST_SCENARIO.credentials.api_id);
  const put = await app.inject({
    method: 'PUT',
    url: `/t/${a.id}/admin/scenario`,
    headers: bearer(a.token),
    payload: { ...TEST_SCENARIO, name: 'changed' },
  });
  t.equal(put.statusCode, 200);
  t.match(put.json(), { ok: true, name: 'changed', note: /credentials were ignored/ });
  const login = await app.inject({
    method: 'POST',
    url: `/t/${a.id}/callback`,
    headers: callbackHeaders(a),
    payload: JSON.stringify(loginOf('player-1')),
  });
  t.equal(login.json().code, 'R0', 'the generated credentials still apply');
  const shown = await app.inject({ method: 'GET', url: `/t/${a.id}/admin/scenario`, headers: bearer(a.token) });
  t.match(shown.json(), { name: 'changed', credentials: a.credentials }, 'the scenario shows the credentials in effect');
  const slow = await app.inject({
    method: 'PUT',
    url: `/t/${a.id}/admin/scenario`,
    headers: bearer(a.token),
    payload: { ...TEST_SCENARIO, rules: [{ when: {}, then: { delay_ms: 90_000 } }] },
  });
  t.equal(slow.statusCode, 400, 'a delay_ms past the hosted cap is refused');
  t.match(slow.json(), { error: 'SCENARIO_INVALID', details: [{ pointer: '/rules/0/then/delay_ms', message: /<= 60000 on a hosted/ }] });
});

t.test('a tenant id never starts with "-" (the tenant commands take it as an argument, not an option)', async (t) => {
  const { newTenantId } = await import('../../src/app/tenants.js');
  const ids = Array.from({ length: 2000 }, newTenantId);
  t.same(
    ids.filter((id) => !/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/.test(id)),
    [],
    '22 URL-safe characters, none leading with "-" (one in 64 would)',
  );
});
