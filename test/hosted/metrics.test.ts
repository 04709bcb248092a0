import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import t from 'tap';
import { closedPort } from '../helpers/net.js';
import { asHost, bearer, buildHostedTestApp, callbackHeaders, createTenant, loginOf } from '../helpers/hosted.js';

t.test('GET /metrics: callbacks by tenant, event and code, latency, 429s and tenants, for the host token only', async (t) => {
  const now = 1_000;
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const { app } = await buildHostedTestApp({ tenantLimits: { callbacksPerSecond: 2 }, now: () => now, logger: { level: 'info', stream } });
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme' });
  const b = await createTenant(app, { name: 'Bravo' });
  const send = (x: typeof a, headers = callbackHeaders(x)) =>
    app.inject({ method: 'POST', url: `/t/${x.id}/callback`, headers, payload: JSON.stringify(loginOf('alice')) });
  await send(a);
  await send(a, { ...callbackHeaders(a), 'api-key': 'wrong' });
  await send(a); // the third in the same second: 429
  await send(b);
  // Event types no protocol has: one series for all of them, whatever they are and however long.
  const c = await createTenant(app, { name: 'Charlie' });
  for (const event of ['x'.repeat(5000), 'bet"} 1'])
    await app.inject({
      method: 'POST',
      url: `/t/${c.id}/callback`,
      headers: callbackHeaders(c),
      payload: JSON.stringify({ ...loginOf('alice'), event_type: event }),
    });

  const scrape = await app.inject({ url: '/metrics', headers: asHost });
  t.equal(scrape.statusCode, 200);
  t.match(scrape.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  const text = scrape.body;
  t.match(text, `wallet_sim_callbacks_total{tenant="${a.id}",event="login",code="R0"} 1`);
  t.match(text, `wallet_sim_callbacks_total{tenant="${a.id}",event="login",code="R2"} 1`);
  t.match(text, `wallet_sim_callbacks_total{tenant="${b.id}",event="login",code="R0"} 1`);
  t.match(text, `wallet_sim_callbacks_total{tenant="${c.id}",event="other",code="R3"} 2`);
  t.notMatch(text, 'xxxxx', "a caller's event_type is never a label");
  t.match(text, `wallet_sim_rate_limited_total{tenant="${a.id}",kind="callback"} 1`);
  t.match(text, /wallet_sim_callback_duration_seconds_count \d+/);
  t.match(text, 'wallet_sim_tenants 3');

  for (const headers of [{}, bearer(a.token)]) t.equal((await app.inject({ url: '/metrics', headers })).statusCode, 401);

  await app.inject({ method: 'DELETE', url: `/tenants/${b.id}`, headers: asHost });
  const after = (await app.inject({ url: '/metrics', headers: asHost })).body;
  t.notMatch(after, b.id, "a deleted tenant's series are gone");
  t.match(after, 'wallet_sim_tenants 2');

  const tagged = lines.map((l) => JSON.parse(l) as { tenant?: string; msg?: string }).filter((l) => l.tenant === a.id);
  t.ok(tagged.length > 0, "the log lines of a tenant's requests carry its id");
});

t.test('GET /metrics: upstream errors, by tenant and kind, for probe runs that could not check their target', async (t) => {
  const { app } = await buildHostedTestApp({ allowPrivateTargets: true });
  t.teardown(() => app.close());
  // A port nothing listens on, and a listener that answers a web page.
  const page = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Home</title>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  t.teardown(() => page.close());
  const pagePort = (page.address() as AddressInfo).port;

  const a = await createTenant(app, { name: 'Acme' });
  const b = await createTenant(app, { name: 'Bravo' });
  const probe = { api_id: 'x', api_key: 'y', user: 'usd', currency: 'USD' };
  const runs: [typeof a, string][] = [];
  for (const [x, port] of [
    [a, await closedPort()],
    [b, pagePort],
  ] as const) {
    const res = await app.inject({
      method: 'POST',
      url: `/t/${x.id}/probe`,
      headers: { ...bearer(x.token), 'content-type': 'application/json' },
      payload: { url: `http://127.0.0.1:${port}/callback`, ...probe },
    });
    t.equal(res.statusCode, 202, res.body);
    runs.push([x, res.json().run]);
  }
  for (const [x, run] of runs)
    for (let state = 'running'; state === 'running';) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = (await app.inject({ url: `/t/${x.id}/probe/${run}`, headers: bearer(x.token) })).json().state;
    }

  const text = (await app.inject({ url: '/metrics', headers: asHost })).body;
  t.match(text, '# TYPE wallet_sim_upstream_errors_total counter');
  t.match(text, `wallet_sim_upstream_errors_total{tenant="${a.id}",kind="unreachable"} 1`);
  t.match(text, `wallet_sim_upstream_errors_total{tenant="${b.id}",kind="not-a-wallet"} 1`);
  t.match(text, `wallet_sim_probe_runs_total{tenant="${a.id}",outcome="NOT_CHECKED"} 1`);
});
