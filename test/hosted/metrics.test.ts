import { Writable } from 'node:stream';
import t from 'tap';
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

  const scrape = await app.inject({ url: '/metrics', headers: asHost });
  t.equal(scrape.statusCode, 200);
  t.match(scrape.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  const text = scrape.body;
  t.match(text, `wallet_sim_callbacks_total{tenant="${a.id}",event="login",code="R0"} 1`);
  t.match(text, `wallet_sim_callbacks_total{tenant="${a.id}",event="login",code="R2"} 1`);
  t.match(text, `wallet_sim_callbacks_total{tenant="${b.id}",event="login",code="R0"} 1`);
  t.match(text, `wallet_sim_rate_limited_total{tenant="${a.id}",kind="callback"} 1`);
  t.match(text, /wallet_sim_callback_duration_seconds_count \d+/);
  t.match(text, 'wallet_sim_tenants 2');

  for (const headers of [{}, bearer(a.token)]) t.equal((await app.inject({ url: '/metrics', headers })).statusCode, 401);

  await app.inject({ method: 'DELETE', url: `/tenants/${b.id}`, headers: asHost });
  const after = (await app.inject({ url: '/metrics', headers: asHost })).body;
  t.notMatch(after, b.id, "a deleted tenant's series are gone");
  t.match(after, 'wallet_sim_tenants 1');

  const tagged = lines.map((l) => JSON.parse(l) as { tenant?: string; msg?: string }).filter((l) => l.tenant === a.id);
  t.ok(tagged.length > 0, "the log lines of a tenant's requests carry its id");
});
