import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { XMLParser } from 'fast-xml-parser';
import { loadSigner } from '../../src/evidence/signing-key.js';
import { checkReport, parseEnvelope, subjectOf, verifyEnvelope } from '../../src/evidence/verify-evidence.js';
import { runProbe } from '../../src/probe/battery.js';
import type { lookup } from 'node:dns';
import { networkInterfaces } from 'node:os';
import { guardedAgent, refusedClass, targetRefusal } from '../../src/probe/targets.js';
import { upstreamErrorOf } from '../../src/probe/upstream-errors.js';
import { DEFAULT_LIMITS } from '../../src/http/limits.js';
import { buildTestApp, listen } from '../helpers/app.js';
import { asHost, bearer, buildHostedTestApp, createTenant, type Created } from '../helpers/hosted.js';

const SANDBOX = { api_id: 'sandbox', api_key: 'sandbox-key', user: 'usd', currency: 'USD' };

/** A plain listener that counts what reaches it. */
async function counting(
  handler?: (res: import('node:http').ServerResponse) => void,
): Promise<{ server: Server; port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    if (handler) return handler(res);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"R0"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, hits: () => hits };
}

const start = (app: FastifyInstance, tenant: Created, body: object, token = tenant.token) =>
  app.inject({
    method: 'POST',
    url: `/t/${tenant.id}/probe`,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: body,
  });

/** Waits for the run to end (generously: the machine may be loaded). */
async function ended(app: FastifyInstance, tenant: Created, run: string, boundMs = 180_000): Promise<Record<string, any>> {
  const until = Date.now() + boundMs;
  for (;;) {
    const res = await app.inject({ url: `/t/${tenant.id}/probe/${run}`, headers: bearer(tenant.token) });
    const body = res.json();
    if (body.state !== 'running') return body;
    if (Date.now() > until) throw new Error(`run ${run} still going after ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

t.test('a run against a correct wallet: 202, 409 while it runs, PASS, its events and its reports', async (t) => {
  const target = await buildTestApp();
  const url = `${await listen(target.app)}/callback`;
  t.teardown(() => target.app.close());
  const pair = generateKeyPairSync('ed25519');
  const { app } = await buildHostedTestApp({ allowPrivateTargets: true, signer: loadSigner(pair.privateKey) });
  t.teardown(() => app.close());
  const a = await createTenant(app, { name: 'Acme' });
  const b = await createTenant(app, { name: 'Bravo' });

  const res = await start(app, a, { url, ...SANDBOX });
  t.equal(res.statusCode, 202, res.body);
  const { run } = res.json() as { run: string };
  t.match(run, /^[A-Za-z0-9_-]{16}$/);
  const second = await start(app, a, { url, ...SANDBOX });
  t.equal(second.statusCode, 409, 'one run at a time per tenant');
  t.equal(second.json().error, 'PROBE_RUNNING');
  t.match(second.json().message, `follow it at GET /t/${a.id}/probe/${run}/events`, 'the URL to follow, whole');
  const none = await app.inject({ url: `/t/${a.id}/probe/nosuchrun/report`, headers: bearer(a.token) });
  t.match(none.json().message, `GET /t/${a.id}/probe lists them`);
  t.equal((await start(app, b, { url: 'ftp://example.com/', ...SANDBOX })).statusCode, 400, 'not http: 400');

  // Another tenant's token: 403 on every run route; a token in the URL is no token.
  for (const path of ['', '/events', '/report'])
    t.equal(
      (await app.inject({ url: `/t/${a.id}/probe/${run}${path}`, headers: bearer(b.token) })).statusCode,
      403,
      `403 on ${path || 'the run'}`,
    );
  t.equal((await start(app, a, { url, ...SANDBOX }, b.token)).statusCode, 403);
  t.equal((await app.inject({ url: `/t/${a.id}/probe/${run}?token=${a.token}` })).statusCode, 401, 'tokens only in Authorization');
  t.equal((await app.inject({ url: `/t/${b.id}/probe/${run}`, headers: bearer(b.token) })).statusCode, 404, "a run is its tenant's only");

  const done = await ended(app, a, run);
  t.equal(done.state, 'done');
  t.equal(done.verdict, 'PASS', JSON.stringify(done.checks.filter((c: { status: string }) => c.status === 'fail')));
  t.ok(done.checks.length >= 20, 'the checks so far, here all of them');
  t.ok(done.ended_at);

  const events = await app.inject({ url: `/t/${a.id}/probe/${run}/events`, headers: bearer(a.token) });
  t.equal(events.statusCode, 200);
  t.match(events.headers['content-type'], /^text\/event-stream/);
  t.equal(events.body.match(/^event: check$/gm)?.length, done.checks.length, 'one event per check');
  t.match(events.body, /event: end\ndata: \{"run":"[^"]+","state":"done"/);

  const json = await app.inject({ url: `/t/${a.id}/probe/${run}/report`, headers: bearer(a.token) });
  t.equal(json.statusCode, 200);
  t.equal(json.json().target.url, url);
  t.notOk('apiKey' in json.json().target, 'the key is not in the report');
  t.notOk(json.body.includes('sandbox-key'), 'nor anywhere in it');
  const html = await app.inject({ url: `/t/${a.id}/probe/${run}/report?format=html`, headers: bearer(a.token) });
  t.equal(html.statusCode, 200);
  t.match(html.headers['content-type'], /^text\/html/);
  t.match(html.body, /^<!doctype html>/i);
  const junit = await app.inject({ url: `/t/${a.id}/probe/${run}/report?format=junit`, headers: bearer(a.token) });
  t.equal(junit.statusCode, 200);
  t.ok(new XMLParser().parse(junit.body).testsuites, 'JUnit XML');
  const signed = await app.inject({ url: `/t/${a.id}/probe/${run}/report?signed=true`, headers: bearer(a.token) });
  t.equal(signed.statusCode, 200, 'the signed report', { body: signed.body });
  const { envelope, report: reportText } = signed.json() as { envelope: object; report: string };
  const { statement } = verifyEnvelope(parseEnvelope(JSON.stringify(envelope), 'envelope'), pair.publicKey, 'pub.pem');
  checkReport(statement, Buffer.from(reportText), 'report');
  // (the target's default scenario creates the players it does not know: unknown-player passes with a warning)
  t.equal(statement.predicate.result, 'WARNED');
  t.same(statement.predicate.warnedTests, ['unknown-player'], 'the warned check, as the run lists it');
  t.ok(statement.predicate.passedTests!.includes('duplicate-replay'), "the probe's checks are the tests");
  t.ok(statement.predicate.passedTests!.includes('WALLET_IDEMPOTENT'), 'and the wallet checks');
  t.match(subjectOf(statement)!.annotations, { tenant_id: a.id, tenant_name: 'Acme', probe_target: url });
  t.notOk(reportText.includes('sandbox-key'), 'the signed report masks the key too');
  t.equal(JSON.parse(reportText).target.url, url);

  const metrics = await app.inject({ url: '/metrics', headers: asHost });
  t.match(metrics.body, `wallet_sim_probe_runs_total{tenant="${a.id}",outcome="PASS"} 1`);
  const list = await app.inject({ url: `/t/${a.id}/probe`, headers: bearer(a.token) });
  t.same(
    list.json().map((r: { run: string }) => r.run),
    [run],
  );
});

t.test('targets in the host’s own networks: 400 naming the class, and nothing reaches them', async (t) => {
  const listener = await counting();
  t.teardown(() => listener.server.close());
  const p = listener.port;
  const { app } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const a = await createTenant(app);
  const cases: [string, RegExp][] = [
    [`http://127.0.0.1:${p}/callback`, /loopback/],
    [`http://localhost:${p}/callback`, /resolves to .*loopback/],
    [`http://127.1:${p}/callback`, /loopback/],
    [`http://2130706433:${p}/callback`, /loopback/],
    [`http://0x7f.0.0.1:${p}/callback`, /loopback/],
    [`http://[::1]:${p}/callback`, /loopback/],
    [`http://[::ffff:127.0.0.1]:${p}/callback`, /loopback/],
    [`http://0.0.0.0:${p}/callback`, /unspecified/],
    [`http://[::]:${p}/callback`, /unspecified/],
    ['http://10.1.2.3/callback', /private/],
    ['http://172.16.0.1/callback', /private/],
    ['http://172.31.255.254/callback', /private/],
    ['http://192.168.1.1/callback', /private/],
    ['http://[fc00::1]/callback', /private/],
    ['http://[fd12:3456::1]/callback', /private/],
    ['http://100.64.0.1/callback', /shared/],
    ['http://169.254.10.10/callback', /link-local/],
    ['http://169.254.169.254/latest/meta-data/', /link-local \(metadata\)/],
    ['http://[fe80::1]/callback', /link-local/],
    ['http://[::ffff:169.254.169.254]/', /metadata/],
    ['http://[::ffff:10.0.0.1]/', /private/],
  ];
  for (const [url, cls] of cases) {
    const res = await start(app, a, { url, ...SANDBOX });
    t.equal(res.statusCode, 400, url);
    t.equal(res.json().error, 'PROBE_TARGET_REFUSED', url);
    t.match(res.json().message, cls, `${url}: ${res.json().message}`);
  }
  t.equal(listener.hits(), 0, 'the local listener received nothing');
  t.same((await app.inject({ url: `/t/${a.id}/probe`, headers: bearer(a.token) })).json(), [], 'no run was started');
});

t.test('address classes', async (t) => {
  for (const public_ of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8', '169.255.0.1', '11.0.0.1'])
    t.equal(refusedClass(public_), undefined, public_);
  t.equal(refusedClass('::ffff:7f00:1'), 'loopback');
  t.equal(refusedClass('0.1.2.3'), 'unspecified');
  t.equal(refusedClass('100.127.255.255'), 'shared');
  t.equal(refusedClass('fe80::abcd'), 'link-local');
  // Every special-purpose block, and IPv6 forms that carry an IPv4 address (judged as that address).
  const table: [string, string][] = [
    ['192.0.2.2', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['192.0.0.8', 'reserved'],
    ['198.19.255.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b:1::1', 'private'],
    ['2002:a00:1::', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:10.1.2.3', 'private'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'link-local (metadata)'],
    ['100::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['2001:db8::1', 'documentation'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
  ];
  for (const [address, cls] of table) t.equal(refusedClass(address), cls, address);
  for (const public_ of ['64:ff9b::808:808', '2002:808:808::1', '2606:4700::1111', '1.1.1.1'])
    t.equal(refusedClass(public_, new Set()), undefined, `${public_} is public`);
  t.equal(refusedClass('8.8.4.4', new Set(['8.8.4.4'])), "this host's own", "the host's own public address");
  const own = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4');
  if (own) t.ok(refusedClass(own.address), `this machine's ${own.address} is refused (${refusedClass(own.address)})`);
});

t.test(
  "a target on the host's own interface is refused, nothing sent; a name that does not resolve is a run that finds it unreachable",
  async (t) => {
    const own = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === 'IPv4');
    const refusal = await targetRefusal(`http://${own?.address ?? '192.0.2.1'}:9/callback`);
    t.match(refusal, /is an? .* address$/);
    // (a resolver that fails as a missing name does: no DNS query leaves this machine)
    const missing = ((_host: string, _o: object, callback: (e: Error) => void) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }))) as unknown as typeof lookup;
    t.equal(await targetRefusal('http://wallet.example/callback', missing), undefined, 'not a policy refusal');
    t.match(await targetRefusal('http://localhost/callback'), /^localhost resolves to a loopback address$/, 'the class, not the address');
  },
);

t.test(
  'the address connected to is checked again: a name that resolves to loopback at connect time fails the run, naming it',
  async (t) => {
    const listener = await counting();
    t.teardown(() => listener.server.close());
    const agent = guardedAgent();
    t.teardown(() => agent.close());
    const report = await runProbe({
      url: `http://localhost:${listener.port}/callback`,
      apiId: 'sandbox',
      apiKey: 'sandbox-key',
      user: 'usd',
      currency: 'USD',
      scale: 2,
      transport: { dispatcher: agent, redirect: 'manual' },
    });
    t.ok(report.stopped, 'the run could not check the wallet');
    t.match(JSON.stringify(report.checks[0]), /localhost now resolves to a loopback address: refused \(DNS rebinding\)/);
    t.equal(listener.hits(), 0, 'nothing reached the listener');
    t.equal(upstreamErrorOf(report), 'address-refused', 'counted in /metrics as such');
  },
);

t.test(
  'redirects are not followed; a quota of runs an hour (429); the run ends NOT_CHECKED when the wallet cannot be checked',
  async (t) => {
    const elsewhere = await counting();
    t.teardown(() => elsewhere.server.close());
    const redirecting = await counting((res) => res.writeHead(307, { location: `http://127.0.0.1:${elsewhere.port}/callback` }).end());
    t.teardown(() => redirecting.server.close());
    const { app } = await buildHostedTestApp({ allowPrivateTargets: true, probeRunsPerHour: 1 });
    t.teardown(() => app.close());
    const a = await createTenant(app);
    const res = await start(app, a, { url: `http://127.0.0.1:${redirecting.port}/callback`, ...SANDBOX });
    t.equal(res.statusCode, 202);
    const done = await ended(app, a, res.json().run);
    t.equal(done.verdict, 'NOT_CHECKED');
    t.ok(redirecting.hits() >= 1);
    t.equal(elsewhere.hits(), 0, 'the redirect was not followed');
    // JUnit: the check it stopped at is an error (nothing judged), said in the form's words, with no fix for the wallet.
    const junit = (await app.inject({ url: `/t/${a.id}/probe/${res.json().run}/report?format=junit`, headers: bearer(a.token) })).body;
    t.match(junit, /<testsuites [^>]*errors="1"/);
    const error = /<error message="([^"]*)" type="NotChecked">/.exec(junit);
    t.ok(error, junit);
    t.equal(error?.[1]?.replaceAll('&apos;', "'"), done.message, 'the message the run ended with');
    t.notMatch(junit, /--url|--api-|fix:/);
    const json = (await app.inject({ url: `/t/${a.id}/probe/${res.json().run}/report`, headers: bearer(a.token) })).json();
    t.notMatch(JSON.stringify(json.checks), /--url/, "the JSON report's check says it in the form's words too");
    const over = await start(app, a, { url: `http://127.0.0.1:${redirecting.port}/callback`, ...SANDBOX });
    t.equal(
      (await app.inject({ url: `/t/${a.id}/probe/${res.json().run}/report?signed=true`, headers: bearer(a.token) })).json().error,
      'SIGNING_NOT_ENABLED',
      'signed=true on a host without --signing-key: 404',
    );
    t.equal(over.statusCode, 429);
    t.equal(over.json().error, 'RATE_LIMITED');
    t.match(over.json().message, /probe runs are limited to 1 per hour/);
    t.ok(over.headers['retry-after']);
  },
);

t.test('progress read with fetch and the Bearer token while the run goes; rotating the token ends the stream', async (t) => {
  const held: import('node:http').ServerResponse[] = [];
  const slow = await counting((res) => void held.push(res));
  t.teardown(() => slow.server.close());
  const { app } = await buildHostedTestApp({ allowPrivateTargets: true });
  t.teardown(() => app.close());
  const base = await listen(app);
  const a = await createTenant(app);
  const res = await start(app, a, { url: `http://127.0.0.1:${slow.port}/callback`, ...SANDBOX });
  t.equal(res.statusCode, 202);
  const { run } = res.json() as { run: string };
  const stream = await fetch(`${base}/t/${a.id}/probe/${run}/events`, { headers: bearer(a.token) });
  t.equal(stream.status, 200);
  t.match(stream.headers.get('content-type'), /^text\/event-stream/);
  const reader = stream.body!.getReader();
  const first = await reader.read();
  t.match(new TextDecoder().decode(first.value), /wallet-sim probe run/);
  // The run waits on its target (nothing answered yet): its report is not there, and the refusal says where to follow.
  const early = await app.inject({ url: `/t/${a.id}/probe/${run}/report`, headers: bearer(a.token) });
  t.equal(early.statusCode, 409, 'no report while the run goes');
  t.equal(early.json().error, 'PROBE_NOT_FINISHED');
  t.match(early.json().message, `GET /t/${a.id}/probe/${run}/events follows it`);
  const rotated = await app.inject({ method: 'POST', url: `/tenants/${a.id}/token`, headers: asHost });
  t.equal(rotated.statusCode, 200);
  let done = false;
  let text = '';
  while (!done) {
    const read = await reader.read();
    done = read.done;
    if (read.value) text += new TextDecoder().decode(read.value);
  }
  t.match(text, /: this tenant's token was rotated: ask the host for the new one\n\n$/, 'the stream ended with the old token, saying why');
  for (const r of held) r.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"R2"}');
  const after = { ...a, token: rotated.json().token as string };
  const ended_ = await ended(app, after, run);
  t.equal(ended_.verdict, 'NOT_CHECKED', 'credentials refused: nothing could be checked');
  t.equal(ended_.message, 'credentials refused (R2): check api_id/api_key', "the run's fields, not the CLI's options");
});

t.test("a running probe's event streams count in --max-listeners with the admin streams: callbacks keep the rest", async (t) => {
  const held: import('node:http').ServerResponse[] = [];
  const slow = await counting((res) => void held.push(res));
  t.teardown(() => slow.server.close());
  const { app } = await buildHostedTestApp({ allowPrivateTargets: true, limits: { ...DEFAULT_LIMITS, maxListeners: 2 } });
  t.teardown(() => app.close());
  const base = await listen(app);
  const [a, b, c] = [await createTenant(app), await createTenant(app), await createTenant(app)];
  const { run } = (await start(app, a, { url: `http://127.0.0.1:${slow.port}/callback`, ...SANDBOX })).json() as { run: string };
  const follow = (path: string, x: Created) => {
    const controller = new AbortController();
    return { controller, response: fetch(`${base}${path}`, { headers: bearer(x.token), signal: controller.signal }) };
  };
  const probe = follow(`/t/${a.id}/probe/${run}/events`, a);
  t.equal((await probe.response).status, 200, "a's probe run followed");
  const admin = follow(`/t/${b.id}/admin/events`, b);
  t.equal((await admin.response).status, 200, "b's journal followed: the two listeners the server serves");
  /** A refusal's body (a stream served instead is ended at once: the assertion on its status has failed). */
  const refusal = async ({ controller, response }: ReturnType<typeof follow>) => {
    const res = await response;
    if (res.status !== 503) controller.abort();
    return { status: res.status, body: res.status === 503 ? await res.json() : undefined };
  };
  const refused = await refusal(follow(`/t/${c.id}/admin/events`, c));
  t.equal(refused.status, 503, 'a third stream, of a tenant under its own limit: 503 (the probe stream was not counted)');
  t.match(refused.body, { error: 'LISTENERS_FULL', message: /^2 listeners already follow .*--max-listeners$/ });
  const again = await refusal(follow(`/t/${a.id}/probe/${run}/events`, a));
  t.equal(again.status, 503, 'a second probe stream too, whichever tenant');
  t.match(again.body, { error: 'LISTENERS_FULL', message: /the event streams of this server.*--max-listeners$/ });
  probe.controller.abort();
  let served = 0;
  for (const until = Date.now() + 10_000; served !== 200 && Date.now() < until;) {
    const next = follow(`/t/${c.id}/admin/events`, c);
    served = (await next.response).status;
    if (served !== 200)
      await new Promise((r) => setTimeout(r, 50)); // (the probe stream's slot is given back when its close is seen)
    else next.controller.abort();
  }
  t.equal(served, 200, "the probe stream's slot is free again once it closed");
  admin.controller.abort();
  for (const r of held) r.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"R2"}');
  await ended(app, a, run);
});

t.test('a tenant deleted while its probe runs: the run writes no more copies (its keys were swept, they would stay)', async (t) => {
  const held: import('node:http').ServerResponse[] = [];
  const slow = await counting((res) => void held.push(res));
  t.teardown(() => slow.server.close());
  const puts: { tenant: string; state: string }[] = [];
  const shelf = {
    claim: async () => undefined,
    release: async () => undefined,
    put: async (tenant: string, run: { state: string }) => void puts.push({ tenant, state: run.state }),
    get: async () => undefined,
    list: async () => [],
  };
  const { app } = await buildHostedTestApp({ allowPrivateTargets: true, probeShelf: shelf });
  t.teardown(() => app.close());
  const a = await createTenant(app);
  const res = await start(app, a, { url: `http://127.0.0.1:${slow.port}/callback`, ...SANDBOX });
  t.equal(res.statusCode, 202);
  for (const until = Date.now() + 10_000; !held.length && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
  t.ok(held.length, 'the run is waiting on its target');
  t.ok(puts.length >= 1, 'a copy written at the start');
  t.equal((await app.inject({ method: 'DELETE', url: `/tenants/${a.id}`, headers: asHost })).statusCode, 204, 'the tenant deleted');
  const before = puts.length;
  for (const r of held.splice(0)) r.writeHead(200, { 'content-type': 'application/json' }).end('{"code":"R2"}');
  // The run ends (credentials refused): its end is counted in the host's metrics, which keep a deleted tenant's series.
  const endedRuns = async () => (await app.inject({ url: '/metrics', headers: asHost })).body;
  let metrics = await endedRuns();
  for (const until = Date.now() + 60_000; !metrics.includes(`wallet_sim_probe_runs_total{tenant="${a.id}"`) && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 50));
    metrics = await endedRuns();
  }
  t.match(metrics, `wallet_sim_probe_runs_total{tenant="${a.id}"`, 'the run went on to its end after the deletion');
  t.same(puts.slice(before), [], 'no copy written after it');
});

t.test('credentials that cannot be sent as headers (a pasted "…"): 400 naming the field and the character, no run', async (t) => {
  const { app } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const a = await createTenant(app);
  const cases: [object, string, RegExp][] = [
    [{ api_key: '…' }, '/api_key', /has "…" \(U\+2026\) at character 1: an HTTP header value is printable ASCII only/],
    [{ api_id: 'acme’s' }, '/api_id', /has "’" \(U\+2019\) at character 5/],
    [{ api_key: 'key ' }, '/api_key', /begins or ends with a space/],
    [{ api_key: 'a\tb' }, '/api_key', /has U\+0009 at character 2/],
  ];
  for (const [bad, pointer, message] of cases) {
    const res = await start(app, a, { url: 'https://wallet.example.com/callback', ...SANDBOX, ...bad });
    t.equal(res.statusCode, 400, pointer);
    t.match(res.json(), { error: 'BAD_REQUEST', details: [{ pointer, message }] }, JSON.stringify(bad));
  }
  t.same((await app.inject({ url: `/t/${a.id}/probe`, headers: bearer(a.token) })).json(), [], 'no run was started');
});
