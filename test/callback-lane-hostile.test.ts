// What a raw socket can send that `inject` never does, to the callback lane (src/routes/callback-lane.ts)
// and to the callback route behind it: the same bytes to a server whose lane answers and to a twin
// whose every request goes to Fastify's routing (the route over a real socket, as before the lane),
// and the same replies on the wire and the same journal entries from both.
import t from 'tap';
import { type AddressInfo, connect, createServer as createNetServer } from 'node:net';
import dns from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Scenario } from '../src/protocol/types.generated.js';
import { buildTestApp, HEADERS, journal, listen, login } from './helpers/app.js';
import { eventually } from './helpers/spawn-cli.js';
import { asHost, bearer, buildHostedTestApp, callbackHeaders, type Created, createTenant, loginOf, SMALL } from './helpers/hosted.js';

const RULES: Scenario['rules'] = [
  { name: 'no content', when: { event_type: 'login', user_id: 'empty' }, then: { http_status: 204 } },
  { name: 'not modified', when: { event_type: 'login', user_id: 'same' }, then: { http_status: 304 } },
  { name: 'broken', when: { event_type: 'login', user_id: 'broken' }, then: { http_status: 500, body: 'oops' } },
  { name: 'slow', when: { event_type: 'login', user_id: 'slow' }, then: { delay_ms: 100 } },
  { name: 'lost', when: { event_type: 'login', user_id: 'lost' }, then: { drop_connection: true } },
];

/** A twin served over a socket by Fastify's routing alone: the callback route answers every callback. */
async function routeOnly(app: FastifyInstance): Promise<{ port: number; server: Server }> {
  await app.ready();
  const server = createServer((req, res) => app.routing(req, res));
  server.keepAliveTimeout = app.server.keepAliveTimeout; // (what a reply's Keep-Alive header says)
  // Node's parser refusing a request (400) before any handler: answered by Fastify's handler of that.
  server.on('clientError', (error, socket) => app.server.emit('clientError', error, socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** What a client does on one connection: bytes to write, a pause (ms), or 'close' (the client goes). */
type Step = string | Buffer | number | 'close';

/**
 * Runs the steps on a new connection; resolves with what was read once `replies` final replies are
 * complete, the server closed the connection, or the client went.
 */
function exchange(port: number, steps: Step[], replies: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let read = '';
    const done = () => {
      socket.destroy();
      resolve(read);
    };
    socket.on('data', (chunk) => {
      read += chunk.toString('latin1');
      if (complete(read) >= replies) done();
    });
    socket.on('close', done);
    socket.on('error', () => {}); // (a reset after the client went: what was read is the answer)
    const play = async () => {
      for (const step of steps) {
        if (step === 'close') return done();
        if (typeof step === 'number') await new Promise((resolve) => setTimeout(resolve, step));
        else socket.write(step);
      }
    };
    socket.once('connect', () => void play());
  });
}

/** How many final replies (not a 100 Continue) are complete in `wire`. */
function complete(wire: string): number {
  let count = 0;
  for (let at = 0; ;) {
    const headEnd = wire.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return count;
    const head = wire.slice(at, headEnd);
    const status = Number(head.slice(9, 12));
    const length = status === 204 || status === 304 ? 0 : Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
    const end = headEnd + 4 + length;
    if (wire.length < end) return count;
    if (status >= 200) count++;
    at = end;
  }
}

const HEAD = Object.entries(HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/** A callback's bytes: `extra` header lines, `headers` instead of the usual ones. */
function callback(body: string | Buffer, o: { extra?: string; path?: string; headers?: string } = {}): Buffer {
  const length = Buffer.byteLength(body);
  const head = `POST ${o.path ?? '/callback'} HTTP/1.1\r\nhost: wallet.test\r\n${o.headers ?? HEAD}${o.extra ?? ''}content-length: ${length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
}

/** The wire text without what differs by the second (the Date header, a reply's timestamp). */
const comparable = (wire: string) => wire.replace(/^date: .*\r\n/gim, '').replace(/"timestamp":\d+/g, '"timestamp":0');

/** Journal entries without their ids and times. */
const entries = (list: any[]) =>
  list.map(({ id: _i, received_at: _r, replied_at: _p, duration_ms: _d, ...rest }) => JSON.parse(comparable(JSON.stringify(rest))));

t.test('the same bytes over a socket: the lane answers and journals as the route does', async (t) => {
  const [lane, route] = [await buildTestApp({ rules: RULES }), await buildTestApp({ rules: RULES })];
  const lanePort = Number(new URL(await listen(lane.app)).port);
  const twin = await routeOnly(route.app);
  t.teardown(async () => {
    twin.server.close();
    await Promise.all([lane.app.close(), route.app.close()]);
  });
  const body = (user: string) => JSON.stringify(login(user));
  const usd = (o?: Parameters<typeof callback>[1]) => callback(body('usd'), o);
  /** A callback whose Content-Type line is `line` (none: '') */
  const typed = (line: string) => [usd({ headers: HEAD.replace('content-type: application/json\r\n', line && `${line}\r\n`) })];
  /** A callback whose request line is changed by `edit`. */
  const edited = (edit: (text: string) => string) => [Buffer.from(edit(usd().toString('latin1')), 'latin1')];
  const notUtf8 = callback(Buffer.concat([Buffer.from(body('usd').slice(0, -2)), Buffer.from([0xe9, 0xe2, 0x82]), Buffer.from('"}')]));
  const cases: [string, Step[], number?][] = [
    ["a rule's http_status 204", [callback(body('empty'))]],
    ["a rule's http_status 304", [callback(body('same'))]],
    ["a rule's http_status 500 and raw body", [callback(body('broken'))]],
    ['a Content-Type that is no media type', typed('content-type: json')],
    ['a Content-Type with a space for its semicolon', typed('content-type: application/json charset=utf-8')],
    ['an empty Content-Type', typed('content-type: ')],
    ['no Content-Type', typed('')],
    ['Content-Type in capitals with a charset', typed('Content-Type: APPLICATION/JSON; Charset=UTF-8')],
    ['three callbacks pipelined, the second delayed', [Buffer.concat([usd(), callback(body('slow')), usd()])], 3],
    ['a dropped connection with a callback pipelined behind', [Buffer.concat([callback(body('lost')), usd()])], 2],
    ['Connection: close', [usd({ extra: 'connection: close\r\n' })]],
    ['HTTP/1.0', edited((text) => text.replace('HTTP/1.1', 'HTTP/1.0'))],
    ['Expect: 100-continue', [usd({ extra: 'expect: 100-continue\r\n' })]],
    ['Content-Length 0', [callback('')]],
    ['Content-Encoding: gzip (not decoded)', [usd({ extra: 'content-encoding: gzip\r\n' })]],
    ['two Api-Key headers', [usd({ extra: 'api-key: another\r\n' })]],
    ['a query string and a fragment', [usd({ path: '/callback?from=raw#part' })]],
    ['a trailing slash', [usd({ path: '/callback/' })]],
    ['a percent-encoded path', [usd({ path: '/c%61llback' })]],
    ['bytes that are not UTF-8, split across writes', [notUtf8.subarray(0, -4), 30, notUtf8.subarray(-4)]],
    ["Node's parser refuses (400): Transfer-Encoding and Content-Length", [usd({ extra: 'transfer-encoding: chunked\r\n' })]],
    ["Node's parser refuses (400): a method in lower case", edited((text) => text.replace('POST', 'post'))],
    ["Node's parser refuses (400): bytes past the Content-Length", [Buffer.concat([usd(), Buffer.from('junk\r\n\r\n')])], 2],
    ['the caller gone during a delay', [callback(body('slow')), 30, 'close']],
    ['the caller gone before its body is complete', [usd().subarray(0, -10), 30, 'close']],
  ];
  for (const [name, steps, replies = 1] of cases) {
    const [before, beforeTwin] = [(await journal(lane.app)).length, (await journal(route.app)).length];
    const [byLane, byRoute] = [await exchange(lanePort, steps, replies), await exchange(twin.port, steps, replies)];
    t.equal(comparable(byLane), comparable(byRoute), `${name}: the same reply`);
    // (a delayed reply whose caller went is journalled when its delay ends; a caller gone mid-body once the server sees it go)
    const added = async (app: FastifyInstance, from: number) => (await journal(app)).length - from;
    const inFlight = () => lane.sim.journal.inFlight().length + route.sim.journal.inFlight().length;
    await eventually(async () => inFlight() === 0 && (await added(lane.app, before)) === (await added(route.app, beforeTwin)), 5_000);
    const [laneEntries, routeEntries] = [(await journal(lane.app)).slice(before), (await journal(route.app)).slice(beforeTwin)];
    t.same(entries(laneEntries), entries(routeEntries), `${name}: the same journal entries`);
  }
  t.same(await graded(lane.app), await graded(route.app), 'graded the same: the summary, the findings, each check');
});

/** The certification report's verdicts (without its times and session ids). */
async function graded(app: FastifyInstance) {
  const report = (await app.inject({ url: '/admin/report' })).json();
  const checks = report.checks.map((c: Record<string, unknown>) => [c.id, c.status, c.exercised]);
  return { summary: report.summary, findings: report.findings, checks };
}

t.test('listening on localhost: both its addresses, as Fastify binds them, each answered', async (t) => {
  if (!(await canListen('::1'))) {
    t.pass('skipped: no IPv6 loopback here');
    return;
  }
  // A host whose localhost is both ::1 and 127.0.0.1 (the usual /etc/hosts), whatever this one's says.
  const lookup = dns.lookup;
  const both = [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ];
  (dns as { lookup: unknown }).lookup = (host: string, options: unknown, done: (...a: unknown[]) => void) =>
    host === 'localhost' && (options as { all?: boolean })?.all
      ? process.nextTick(done, null, both)
      : Reflect.apply(lookup, dns, [host, options, done]);
  t.teardown(() => void ((dns as { lookup: unknown }).lookup = lookup));
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: 'localhost' });
  const addresses = app.addresses() as AddressInfo[];
  t.same(addresses.map((a) => a.family).sort(), ['IPv4', 'IPv6'], 'listening on both');
  for (const { address, family, port } of addresses) {
    const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}/callback`;
    const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(login('usd')) });
    t.match(await res.json(), { code: 'R0' }, `a callback to ${address} is answered`);
  }
});

function canListen(host: string): Promise<boolean> {
  const server = createNetServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, host, () => server.close(() => resolve(true)));
  });
}

t.test(
  "--max-connections: a connection whose callback was refused at once (a tenant's 429) is answered, and may be closed for a newcomer",
  async (t) => {
    // The tenant's clock stands still: its one callback a second is used by the first, however slow the machine
    // (a second passing before the next two admitted one of them, and b's 429 was its R0).
    const { app } = await buildHostedTestApp({ tenantLimits: { callbacksPerSecond: 1 }, limits: { maxConnections: 2 }, now: () => 0 });
    t.teardown(() => app.close());
    const tenant = await createTenant(app);
    const port = Number(new URL(await listen(app)).port);
    const head = Object.entries(callbackHeaders(tenant))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const path = `/t/${tenant.id}/callback`;
    const refused = (wire: string) => wire.startsWith('HTTP/1.1 429');
    // Two kept-alive connections, each refused (429, written before the body is read), then idle.
    const [a, b] = [openConnection(port), openConnection(port)];
    a.write(callback(JSON.stringify(loginOf('p1')), { path, headers: head }));
    await eventually(async () => complete(a.read) === 1);
    for (const held of [a, b]) held.write(callback(JSON.stringify(loginOf('p1')), { path, headers: head }));
    await eventually(async () => complete(a.read) === 2 && complete(b.read) === 1);
    t.ok(refused(b.read), 'refused: 429');
    // A newcomer at the cap: an idle connection is closed for it, it is answered.
    const c = openConnection(port);
    c.write(callback(JSON.stringify(loginOf('p2')), { path, headers: head }));
    await eventually(async () => c.closed || complete(c.read) === 1, 5_000);
    t.equal(complete(c.read), 1, `the newcomer is answered (${c.closed ? 'its connection was closed' : 'open'})`);
    t.ok(a.closed || b.closed, 'one of the idle ones was closed for it');
    for (const s of [a, b, c]) s.socket.destroy();
  },
);

t.test("a tenant's callbacks over raw sockets: admitted, refused (in flight, rate) and journalled as by its route", async (t) => {
  const made = async () => {
    const hosted = await buildHostedTestApp({ tenantLimits: { callbacksPerSecond: 3, callbacksInFlight: 1 }, now: () => 0 });
    return { ...hosted, tenant: await createTenant(hosted.app) };
  };
  const [lane, route] = [await made(), await made()];
  const twin = await routeOnly(route.app);
  t.teardown(async () => {
    twin.server.close();
    await Promise.all([lane.app.close(), route.app.close()]);
  });
  const ports = [Number(new URL(await listen(lane.app)).port), twin.port];
  const bodies = [1, 2, 3, 4, 5].map((n) => JSON.stringify(loginOf(`p${n}`)));
  const seen = await Promise.all(
    [lane, route].map(async ({ app, tenant }, i) => {
      const o = { path: `/t/${tenant.id}/callback`, headers: HEAD_OF(tenant) };
      const held = callback(bodies[0]!, o); // admitted, its body still coming: the tenant's one callback in flight
      const a = await exchangeStarted(ports[i]!, held.subarray(0, -5));
      const b = await exchange(ports[i]!, [callback(bodies[1]!, o)], 1); // 429 in flight
      a.write(held.subarray(-5));
      await eventually(async () => complete(a.read) === 1);
      a.socket.destroy();
      const c = await exchange(ports[i]!, [Buffer.concat(bodies.slice(2).map((body) => callback(body, o)))], 3); // R0, then 429 rate
      const listed = await app.inject({ url: `/t/${tenant.id}/admin/journal`, headers: asHost });
      const own = (text: string) =>
        text
          .replaceAll(tenant.id, 'ID')
          .replaceAll(tenant.credentials.api_key, 'KEY')
          .replaceAll(tenant.credentials.api_id, 'API')
          .replace(/"api-key":"[^"*]*\*+"/g, '"api-key":"(masked)"'); // (masked: its first characters shown)
      // Counted alike: callbacks by code, 429s, replies timed (their times aside).
      const metrics = (await app.inject({ url: '/metrics', headers: asHost })).body.split('\n');
      const counted = metrics.filter((line) =>
        /^wallet_sim_(callbacks_total|rate_limited_total|callback_duration_seconds_count)/.test(line),
      );
      return {
        wire: [a.read, b, c].map((w) => comparable(own(w))),
        journal: entries(JSON.parse(own(listed.body)).entries),
        counted: counted.map(own),
      };
    }),
  );
  t.same(seen[0]!.wire, seen[1]!.wire, 'the same replies on the wire');
  t.match(seen[0]!.wire.join(''), /IN_FLIGHT_LIMITED[^]*"code":"R0"[^]*RATE_LIMITED/, 'in flight, then a rate');
  t.equal(seen[0]!.journal.length, 2, 'the two admitted callbacks journalled, the refused ones not');
  t.same(seen[0]!.journal, seen[1]!.journal, 'the same journal entries');
  t.same(seen[0]!.counted, seen[1]!.counted, 'the same metrics');
  t.match(
    seen[0]!.counted.join('\n'),
    /code="R0"\} 2[^]*duration_seconds_count 5[^]*"callback"\} 2[^]*"in_flight"\} 1/,
    'two R0s, five replies timed, three 429s',
  );
});

const HEAD_OF = (tenant: Created) =>
  Object.entries(callbackHeaders(tenant))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');

/** A connection with `bytes` written, and what it reads. */
async function exchangeStarted(port: number, bytes: Buffer) {
  const held = openConnection(port);
  await new Promise((resolve) => held.socket.once('connect', resolve));
  held.write(bytes);
  return held;
}

/** A kept-alive connection whose bytes read are kept. */
function openConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  const held = { socket, read: '', closed: false, write: (bytes: Buffer) => socket.write(bytes) };
  socket.on('data', (chunk) => (held.read += chunk.toString('latin1')));
  socket.on('close', () => (held.closed = true));
  socket.on('error', () => {});
  return held;
}

t.test('a tenant deleted while its callback waits out a delay: that one is answered, the next gets 404', async (t) => {
  const { app, tenants } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const tenant = await createTenant(app);
  const scenario = { ...SMALL, rules: [{ name: 'slow', when: { event_type: 'login' }, then: { delay_ms: 200 } }] };
  const put = await app.inject({ method: 'PUT', url: `/t/${tenant.id}/admin/scenario`, headers: bearer(tenant.token), payload: scenario });
  t.equal(put.statusCode, 200, put.body);
  const port = Number(new URL(await listen(app)).port);
  const o = { path: `/t/${tenant.id}/callback`, headers: HEAD_OF(tenant) };
  const held = await exchangeStarted(port, callback(JSON.stringify(loginOf('p1')), o));
  const { sim } = tenants.get(tenant.id)!;
  await eventually(async () => (await sim.journal.inFlight()).length === 1, 5_000);
  const deleted = await app.inject({ method: 'DELETE', url: `/tenants/${tenant.id}`, headers: asHost });
  t.equal(deleted.statusCode, 204, 'deleted during the delay');
  await eventually(async () => complete(held.read) === 1, 5_000);
  t.match(held.read, /^HTTP\/1.1 200[^]*"code":"R0"/, 'the callback in flight is answered');
  held.write(callback(JSON.stringify(loginOf('p1')), o));
  await eventually(async () => complete(held.read) === 2, 5_000);
  t.match(held.read, /HTTP\/1.1 404[^]*TENANT_UNKNOWN/, 'the next, on the same connection: 404 (the route, the lane has no target)');
  held.socket.destroy();
});
