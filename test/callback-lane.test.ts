// The callback lane (src/routes/callback-lane.ts) answers callbacks that come over a socket ahead of
// Fastify's router; `inject` still goes through the route. The same requests, one app served by
// the lane and a twin app through the route, must get the same replies and the same journal.
import t from 'tap';
import { connect } from 'node:net';
import { eventually } from './helpers/spawn-cli.js';
import type { Scenario } from '../src/protocol/types.generated.js';
import type { FastifyInstance } from 'fastify';
import { bet, buildTestApp, HEADERS, journal, listen, login, post, result, type Sent, send } from './helpers/app.js';
import { asHost, buildHostedTestApp, callbackHeaders, createTenant, loginOf } from './helpers/hosted.js';

const RULES: Scenario['rules'] = [
  { name: 'forced', when: { event_type: 'bet', user_id: 'forced' }, then: { code: 'R1' } },
  { name: 'slow', when: { event_type: 'login', user_id: 'slow' }, then: { delay_ms: 30 } },
];

/** Callbacks that reached Fastify's route (its onRequest hooks): the lane's never do. */
function routed(app: FastifyInstance, path: string): { n: number } {
  const count = { n: 0 };
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.startsWith(path)) count.n++;
    done();
  });
  return count;
}

/** A reply as the provider reads it: what differs by the second or by the connection left out. */
function comparable(sent: Sent) {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...headers } = sent.headers as Record<string, unknown>;
  const body = typeof sent.body === 'object' && sent.body ? { ...sent.body, timestamp: 'T' } : sent.body;
  return { status: sent.status, headers, body };
}

/** A journal entry without its times and ids, and the request headers a client adds of its own (fetch's, inject's). */
function entryOf(e: Record<string, any>) {
  const { id: _id, received_at: _r, replied_at: _p, duration_ms: _d, ...rest } = e;
  const sent = Object.entries(rest.request.headers ?? {}).filter(([name]) => name in HEADERS);
  const entry = { ...rest, request: { ...rest.request, headers: Object.fromEntries(sent) } };
  return JSON.parse(JSON.stringify(entry).replace(/"timestamp":\d+/g, '"timestamp":"T"'));
}

t.test('a single-tenant server: the lane answers as the route does', async (t) => {
  const options = { bodyLimit: 4096 };
  const [lane, route] = [await buildTestApp({ rules: RULES }, options), await buildTestApp({ rules: RULES }, options)];
  t.teardown(() => Promise.all([lane.app.close(), route.app.close()]));
  const fastify = routed(lane.app, '/callback');
  const url = `${await listen(lane.app)}/callback`;
  const placed = bet('usd', 'g1', [['1', 'P', 10]]);
  const cases: [string, object | string, Record<string, string>?, string?][] = [
    ['a login', login('usd')],
    ['a bet', placed],
    ['its resend', placed],
    ['a bet over the balance', bet('usd', 'g2', [['1', 'P', 500]])],
    ['a settlement', result('usd', 'g1', [['1', 'P', 10, 10]])],
    ['a forced R1', bet('forced', 'g1', [['1', 'P', 1]])],
    ['a delayed reply', login('slow')],
    ['a body that is not JSON', '{"event_type":'],
    ['an empty body', ''],
    ['a wrong Api-Key', login('usd'), { ...HEADERS, 'api-key': 'wrong' }],
    ['a text/plain body', login('usd'), { ...HEADERS, 'content-type': 'text/plain' }],
    ['a query string', login('usd'), HEADERS, '?from=lane'],
  ];
  for (const [name, payload, headers = HEADERS, query = ''] of cases) {
    const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const [byLane, byRoute] = [await post(`${url}${query}`, body, headers), await send(route.app, body, headers, `/callback${query}`)];
    t.same(comparable(byLane), comparable(byRoute), name);
  }
  t.equal(fastify.n, 0, "every callback above came by the lane, none through Fastify's route");

  const big = JSON.stringify({ ...login('usd'), feedback_data: 'x'.repeat(5000) });
  const [byLane, byRoute] = [await post(url, big), await send(route.app, big)];
  t.same(comparable(byLane), comparable(byRoute), 'a body over the limit: 413, the same');
  t.equal(byLane.status, 413);
  t.equal(fastify.n, 1, 'answered by the route (the lane leaves it)');

  const [a, b] = [await journal(lane.app), await journal(route.app)];
  t.equal(a.length, cases.length + 1, 'every callback journalled');
  t.same(a.map(entryOf), b.map(entryOf), 'the same journal entries');
});

t.test("a tenant's callback: the lane admits, limits and answers as the tenant's route does", async (t) => {
  const [lane, route] = [
    await buildHostedTestApp({ tenantLimits: { callbacksPerSecond: 3 } }),
    await buildHostedTestApp({ tenantLimits: { callbacksPerSecond: 3 } }),
  ];
  t.teardown(() => Promise.all([lane.app.close(), route.app.close()]));
  const fastify = routed(lane.app, '/t/');
  const base = await listen(lane.app);
  const [mine, twin] = [await createTenant(lane.app), await createTenant(route.app)];
  const replies: Sent[] = [];
  for (let i = 0; i < 5; i++) replies.push(await post(`${base}/t/${mine.id}/callback`, loginOf('p1'), callbackHeaders(mine)));
  t.same(
    replies.map((r) => r.body.code ?? r.body.error),
    ['R0', 'R0', 'R0', 'RATE_LIMITED', 'RATE_LIMITED'],
    'three a second, then 429',
  );
  t.match(replies[3]!.headers, { 'retry-after': /^\d+$/, 'ratelimit-limit': '3', 'content-type': 'application/json; charset=utf-8' });
  const routeReply = await send(route.app, loginOf('p1'), callbackHeaders(twin), `/t/${twin.id}/callback`);
  t.same(Object.keys(comparable(replies[0]!).headers).sort(), Object.keys(comparable(routeReply).headers).sort(), 'the same headers');
  t.equal(fastify.n, 0, 'the lane took them all');
  const unknown = await post(`${base}/t/nobody/callback`, loginOf('p1'), callbackHeaders(mine));
  t.match(unknown, { status: 404, body: { error: 'TENANT_UNKNOWN' } }, 'an unknown tenant: the route answers');
  const listed = await lane.app.inject({ method: 'GET', url: `/t/${mine.id}/admin/journal`, headers: asHost });
  t.equal(listed.json().entries.length, 3, 'the three admitted callbacks journalled, the refused ones not');
});

t.test('a callback whose reading throws (a defect): the lane answers R1 as the route does, and the server stays up', async (t) => {
  const [lane, route] = [await buildTestApp(), await buildTestApp()];
  t.teardown(() => Promise.all([lane.app.close(), route.app.close()]));
  // What a defect in the pipeline would do: a throw, synchronously, from the first step.
  for (const { sim } of [lane, route]) {
    (sim as { protocol: unknown }).protocol = { ...sim.protocol, read: failing };
  }
  const url = `${await listen(lane.app)}/callback`;
  const placed = JSON.stringify(login('usd'));
  const [byLane, byRoute] = [await post(url, placed), await send(route.app, placed)];
  t.same(comparable(byLane), comparable(byRoute), 'the same reply');
  t.equal(byLane.body.code, 'R1', String(byLane.headers['x-wallet-sim-reason']));
  t.equal((await post(url, placed)).status, 200, 'the server still answers');
});

function failing(): never {
  throw new Error('a defect');
}

t.test('a caller gone before its body was complete: journalled as the route refuses it (400)', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const { port } = new URL(await listen(app));
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const head = Object.entries(HEADERS).map(([name, value]) => `${name}: ${value}\r\n`);
  const partial = `POST /callback HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n${head.join('')}\r\n{"event_type":`;
  await new Promise((resolve) => socket.write(partial, resolve));
  socket.destroy(); // (the server reads the head and the part sent, then the end of the connection)
  await eventually(async () => (await journal(app)).length === 1, 5_000);
  const [entry] = await journal(app);
  t.match(entry, { reply: { status: 400 }, reason: /aborted/ }, 'the aborted callback is journalled, with why');
});

t.test('a journal that throws (a defect) while a caller gone mid-body is journalled: the lane logs it, the server stays up', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const recorded = sim.journal.record.bind(sim.journal);
  let failures = 0;
  sim.journal.record = () => {
    failures++;
    throw new Error('a defect');
  };
  const url = `${await listen(app)}/callback`;
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const head = Object.entries(HEADERS).map(([name, value]) => `${name}: ${value}\r\n`);
  await new Promise((resolve) =>
    socket.write(`POST /callback HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n${head.join('')}\r\n{`, resolve),
  );
  socket.destroy();
  await eventually(async () => failures === 1, 5_000);
  sim.journal.record = recorded;
  t.equal((await post(url, login('usd'))).body.code, 'R0', 'the server still answers');
});
