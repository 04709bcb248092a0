// The admin API cannot be driven by a web page the user happens to open (issue 15, item 5), and
// --cors (issue 9, item 14) does not reopen it. Real sockets: Host and Origin are what a browser sends.
import { request as httpRequest } from 'node:http';
import t from 'tap';
import { parseCors } from '../src/http/cors.js';
import { balanceOf, buildTestApp, HEADERS, listen, login, send } from './helpers/app.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request with exactly the headers given (fetch would not let us set Host or Origin). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => {
          text += c;
        })
        .on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* raw */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
    });
    req.on('error', reject);
    req.end(body);
  });
}

t.test('a page of another site cannot reset the wallet, read it, or reach it by DNS rebinding', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const base = await listen(app);
  const port = new URL(base).port;
  await send(app, login('stranger')); // something for a reset to wipe

  const refused: [string, string, Record<string, string>, string | undefined, number, string][] = [
    // <form method=post enctype=text/plain action=http://127.0.0.1:PORT/admin/reset>
    [
      'form POST text/plain from another site',
      'POST',
      { origin: 'https://evil.example', 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      'x=1',
      403,
      'CROSS_SITE_REFUSED',
    ],
    // fetch(url, {method: 'POST', mode: 'no-cors'}) from another site: no body, still an Origin
    ['no-cors fetch POST without a body', 'POST', { origin: 'https://evil.example' }, undefined, 403, 'CROSS_SITE_REFUSED'],
    [
      'a page served by another local port',
      'POST',
      { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' },
      undefined,
      403,
      'CROSS_SITE_REFUSED',
    ],
    ['a sandboxed frame (Origin: null)', 'POST', { origin: 'null' }, undefined, 403, 'CROSS_SITE_REFUSED'],
    ['Sec-Fetch-Site: cross-site without Origin', 'POST', { 'sec-fetch-site': 'cross-site' }, undefined, 403, 'CROSS_SITE_REFUSED'],
    [
      'DNS rebinding: a foreign name resolving to 127.0.0.1',
      'POST',
      { host: `rebind.evil.example:${port}` },
      undefined,
      403,
      'HOST_NOT_ALLOWED',
    ],
    [
      'a form POST from the same origin (urlencoded)',
      'POST',
      { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      '',
      415,
      'CONTENT_TYPE_NOT_JSON',
    ],
  ];
  for (const [what, method, headers, body, status, error] of refused) {
    const res = await raw(`${base}/admin/reset`, method, headers, body);
    t.equal(res.status, status, `${what}: ${status}`);
    t.match(res.body, { error, message: String }, `${what}: says why`);
  }
  t.ok(sim.player('stranger'), 'no reset happened');

  const rebound = await raw(`${base}/admin/scenario`, 'GET', { host: `rebind.evil.example:${port}` });
  t.equal(rebound.status, 403, 'DNS rebinding cannot read the scenario (and its Api-Key)');
  t.match(rebound.body.message, '--allowed-hosts NAME', 'the message says what to do');
  t.notMatch(JSON.stringify(rebound.body), 'sandbox-key');
  for (const page of ['/openapi.json', '/docs/json', '/docs']) {
    t.equal(
      (await raw(`${base}${page}`, 'GET', { host: `rebind.evil.example:${port}` })).status,
      403,
      `nor ${page}, which shows the credentials as examples`,
    );
    t.equal((await raw(`${base}${page}`, 'GET', {})).status < 400, true, `${page} under 127.0.0.1 still works`);
  }
  const sent = await raw(`${base}/admin/reset`, 'POST', { origin: 'https://evil.example' });
  t.match(sent.body.message, '--cors ORIGIN', 'the cross-site message says what to do');
});

t.test('what a user does keeps working: curl, Swagger UI (same origin), a link, other loopback names', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const base = await listen(app);
  const port = new URL(base).port;
  const json = { 'content-type': 'application/json' };
  const body = JSON.stringify({ balance: 5 });
  const allowed: [string, string, string, Record<string, string>, string | undefined, number][] = [
    ['curl -X POST …/admin/reset (no body, no Content-Type)', 'POST', '/admin/reset', {}, undefined, 200],
    ['curl -X DELETE …/admin/journal', 'DELETE', '/admin/journal', {}, undefined, 204],
    ['curl PUT with JSON', 'PUT', '/admin/players/p1', json, body, 200],
    ['JSON with a charset', 'PUT', '/admin/players/p1', { 'content-type': 'Application/JSON; charset=utf-8' }, body, 200],
    [
      'Swagger UI at /docs: same-origin fetch',
      'PUT',
      '/admin/players/p1',
      { ...json, origin: base, 'sec-fetch-site': 'same-origin' },
      body,
      200,
    ],
    ['Host localhost:<port>', 'GET', '/admin/players', { host: `localhost:${port}` }, undefined, 200],
    ['Host [::1]:<port>', 'GET', '/admin/players', { host: `[::1]:${port}` }, undefined, 200],
    ['Host behind a port mapping (docker -p 9000:8080)', 'GET', '/admin/players', { host: '127.0.0.1:9000' }, undefined, 200],
    [
      'following a link from another site (a GET navigation)',
      'GET',
      '/admin/players',
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
      undefined,
      200,
    ],
    ['typed in the address bar', 'GET', '/admin/players', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }, undefined, 200],
  ];
  for (const [what, method, path, headers, payload, status] of allowed) {
    const res = await raw(`${base}${path}`, method, headers, payload);
    t.equal(res.status, status, `${what}: ${status}`);
  }
  t.equal(balanceOf(sim, 'p1'), '5');
  // The callback route is not guarded: providers call it from anywhere, under any name.
  const cb = await raw(
    `${base}/callback`,
    'POST',
    { ...HEADERS, host: 'wallet.provider.example', origin: 'https://evil.example' },
    JSON.stringify(login('usd')),
  );
  t.equal(cb.body.code, 'R0', 'a callback under a foreign Host and Origin is answered');
});

t.test('--allowed-hosts and --host add names; * allows any', async (t) => {
  const cases: [string, object, string, number][] = [
    ['unlisted name', {}, 'sim.test:8080', 403],
    ['--allowed-hosts sim.test', { allowedHosts: ['sim.test'] }, 'sim.test:8080', 200],
    ['case and a trailing dot', { allowedHosts: ['Sim.Test'] }, 'SIM.test.:8080', 200],
    ['--host myhost', { host: 'myhost' }, 'myhost:1234', 200],
    ['--allowed-hosts *', { allowedHosts: ['*'] }, 'anything.example', 200],
  ];
  for (const [what, options, host, status] of cases) {
    const { app } = await buildTestApp({}, options);
    const res = await app.inject({ url: '/admin/players', headers: { host } });
    t.equal(res.statusCode, status, `${what}: Host ${host} → ${status}`);
    await app.close();
  }
});

t.test('--admin-token: the Bearer scheme is case-insensitive (RFC 7235)', async (t) => {
  const { app } = await buildTestApp({}, { adminToken: 's3cret' });
  t.teardown(() => app.close());
  for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
    t.equal((await app.inject({ url: '/admin/players', headers: { authorization: `${scheme} s3cret` } })).statusCode, 200, scheme);
  }
  t.equal((await app.inject({ url: '/admin/players', headers: { authorization: 'Basic s3cret' } })).statusCode, 401);
  t.equal((await app.inject({ url: '/admin/players', headers: { authorization: 'bearers3cret' } })).statusCode, 401);
});

t.test('a 1,000-character user id can be set and read through /admin (was 414)', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const base = await listen(app);
  const id = 'u'.repeat(999) + 'é';
  const url = `${base}/admin/players/${encodeURIComponent(id)}`;
  const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ balance: 12 }) });
  t.equal(put.status, 200);
  t.same(await put.json(), { user_id: id, balance: 12, currency: 'USD' });
  const got = await fetch(url);
  t.equal(got.status, 200);
  t.equal(((await got.json()) as { user_id: string }).user_id, id);
  t.equal(balanceOf(sim, id), '12');
});

t.test('--cors: preflights on the callback route and the admin API, and the admin API only for listed origins', async (t) => {
  const preflight = (base: string, path: string, origin: string, method: string) =>
    raw(`${base}${path}`, 'OPTIONS', {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type,api-id,api-key',
    });

  t.test('off by default: no preflight is answered', async (t) => {
    const { app } = await buildTestApp();
    t.teardown(() => app.close());
    const base = await listen(app);
    const res = await preflight(base, '/callback', 'https://qa.example', 'POST');
    t.equal(res.headers['access-control-allow-origin'], undefined);
  });

  t.test('a bare --cors: any origin, callback route only', async (t) => {
    const { app, sim } = await buildTestApp({}, { cors: parseCors(true) });
    t.teardown(() => app.close());
    const base = await listen(app);
    const cb = await preflight(base, '/callback', 'https://any.example', 'POST');
    t.equal(cb.status, 204);
    t.equal(cb.headers['access-control-allow-origin'], '*');
    t.match(cb.headers['access-control-allow-headers'], 'api-key');
    const reply = await raw(`${base}/callback`, 'POST', { ...HEADERS, origin: 'https://any.example' }, JSON.stringify(login('usd')));
    t.equal(reply.body.code, 'R0');
    t.equal(reply.headers['access-control-allow-origin'], '*');
    t.match(reply.headers['access-control-expose-headers'], 'Api-Key');

    const admin = await preflight(base, '/admin/reset', 'https://any.example', 'POST');
    t.equal(admin.headers['access-control-allow-origin'], undefined, 'no preflight for /admin');
    const reset = await raw(`${base}/admin/reset`, 'POST', { origin: 'https://any.example' });
    t.equal(reset.status, 403, 'and the admin API still refuses the page');
    t.ok(sim.player('usd'), 'nothing reset');
  });

  t.test('listed origins: callback route and admin API, others refused', async (t) => {
    const { app } = await buildTestApp({}, { cors: parseCors('https://qa.example, http://localhost:3000') });
    t.teardown(() => app.close());
    const base = await listen(app);
    for (const path of ['/callback', '/admin/players/p1']) {
      const ok = await preflight(base, path, 'http://localhost:3000', path === '/callback' ? 'POST' : 'PUT');
      t.equal(ok.status, 204, `${path}: preflight answered`);
      t.equal(ok.headers['access-control-allow-origin'], 'http://localhost:3000');
      const other = await preflight(base, path, 'https://evil.example', 'POST');
      t.equal(other.headers['access-control-allow-origin'], undefined, `${path}: not for another origin`);
    }
    const put = await raw(
      `${base}/admin/players/p1`,
      'PUT',
      { origin: 'https://qa.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
      JSON.stringify({ balance: 3 }),
    );
    t.equal(put.status, 200, 'a listed origin may call the admin API');
    t.equal(put.headers['access-control-allow-origin'], 'https://qa.example');
    const evil = await raw(
      `${base}/admin/players/p1`,
      'PUT',
      { origin: 'https://evil.example', 'content-type': 'application/json' },
      JSON.stringify({ balance: 3 }),
    );
    t.equal(evil.status, 403, 'an unlisted one may not');
  });

  t.test('a value that is not an origin is refused with what to write', async (t) => {
    t.throws(() => parseCors('https://qa.example/app'), /not an origin; write scheme:\/\/host\[:port\]/);
    t.throws(() => parseCors('qa.example'), /not an origin/);
    t.same(parseCors('*,https://QA.example'), { anyOrigin: true, origins: ['https://qa.example'] });
    t.equal(parseCors(undefined), undefined);
  });
});
