// The upstream visible: one connection tried at start (a warning in words when it fails, and
// wallet-sim starts anyway), GET /health's `upstream` kept up to date by the forwards, and a wallet
// not reached told apart from a slow one in the journal and in WALLET_ANSWERS_IN_TIME.
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import t, { type Test } from 'tap';
import { bet, buildTestApp, HEADERS, login, post, TEST_SCENARIO } from '../helpers/app.js';
import { eventually, run } from '../helpers/spawn-cli.js';
import { startSimulator } from '../../src/index.js';
import { scenarioFile, startProxy, startUpstream, UPSTREAM_SCENARIO } from './upstream.js';
import { start } from '../helpers/spawn-cli.js';

const usd = { currency: 'USD' };

/** A port nothing listens on: bound, then closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A plain-HTTP server answering `status` and `body` to anything, on a free loopback port (closed when the test ends). */
async function plainHttp(t: Test, status = 200, body = '{}'): Promise<number> {
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status).end(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}

const health = async (app: { inject: (o: { url: string }) => Promise<{ json(): any }> }) => (await app.inject({ url: '/health' })).json();
const inTimeOf = (proxy: Awaited<ReturnType<typeof startProxy>>) =>
  proxy.sim.grading.wallet!.checks().find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')!;

/** Runs `body`, resolving with the process warnings it raised meanwhile. */
async function warningsOf(body: () => Promise<unknown>): Promise<Error[]> {
  const seen: Error[] = [];
  const listener = (w: Error) => seen.push(w);
  process.on('warning', listener);
  try {
    await body();
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

t.test('GET /health names the upstream and whether it answered, kept up to date by the forwards', async (t) => {
  const up = await startUpstream(t);
  const proxy = await startProxy(t, {}, up.url);
  t.same((await health(proxy.app)).upstream, { url: up.url, reachable: null, last_error: null, checked_at: null }, 'not tried yet');
  await post(proxy.url, login('p1'));
  const after = (await health(proxy.app)).upstream;
  t.match(after, { url: up.url, reachable: true, last_error: null }, 'a reply: reachable');
  t.ok(Date.parse(after.checked_at) > 0, 'checked_at is a time');

  const plain = await buildTestApp();
  t.teardown(() => plain.app.close());
  t.notOk('upstream' in (await health(plain.app)), 'absent outside proxy mode');
});

t.test('a refused connection: reachable false with the reason in words, and not charged as slow', async (t) => {
  const proxy = await startProxy(t, {}, `http://127.0.0.1:${await deadPort()}/callback`);
  const b = bet('p1', 'g1', [['1', 'P', 10]], usd);
  await t.rejects(post(proxy.url, b), "the provider's connection is closed without a reply");
  t.match((await health(proxy.app)).upstream, { reachable: false, last_error: /connection refused .*is the wallet up/ });
  const [entry] = (await proxy.app.inject({ url: `/admin/journal?transaction_id=${b.transaction_id}` })).json().entries;
  t.match(entry.upstream.error, /^not reached: connection refused/, 'the journal says it was not reached');
  const inTime = inTimeOf(proxy);
  t.equal(inTime.status, 'fail');
  t.match(inTime.violations[0]!.message, /not reached: connection refused/);
  t.notMatch(inTime.violations[0]!.message, /no reply within|slow/);
  t.match(inTime.fix, /could not reach the wallet.*is the wallet up\?.*http or https\?/);
  t.notMatch(inTime.fix, /lock held across I\/O/, 'no slowness fix for a wallet not reached');
});

t.test('https against a plain-HTTP port: said in words (use http://), never an OpenSSL string', async (t) => {
  const port = await plainHttp(t);
  const proxy = await startProxy(t, {}, `https://127.0.0.1:${port}/callback`);
  const b = bet('p1', 'g1', [['1', 'P', 10]], usd);
  await t.rejects(post(proxy.url, b));
  const [entry] = (await proxy.app.inject({ url: `/admin/journal?transaction_id=${b.transaction_id}` })).json().entries;
  t.match(entry.upstream.error, /does not speak TLS.*use http:\/\//);
  t.notMatch(entry.upstream.error, /SSL routines|wrong version number|ERR_SSL/i, 'no raw OpenSSL text');
  t.match((await health(proxy.app)).upstream, { reachable: false, last_error: /does not speak TLS/ });
  t.match(inTimeOf(proxy).fix, /http or https\?/);
});

t.test('a slow upstream: no reply within the time-out, charged as slow (reachable, but silent)', async (t) => {
  const held: ServerResponse[] = [];
  const slow = createHttpServer((_req, res) => void held.push(res));
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const res of held) res.destroy();
    return new Promise<void>((resolve) => slow.close(() => resolve()));
  });
  const proxy = await startProxy(
    t,
    { grading: { client_timeout_s: 0.3 } }, // the provider's time-out is the proxy's
    `http://127.0.0.1:${(slow.address() as { port: number }).port}/callback`,
    300,
  );
  await t.rejects(post(proxy.url, login('p1')));
  const inTime = inTimeOf(proxy);
  t.match(inTime.violations[0]!.message, /no reply \(no reply within 300 ms\)/);
  t.match(inTime.fix, /Find what is slow/);
  t.notMatch(inTime.fix, /could not reach/);
  t.match((await health(proxy.app)).upstream, { reachable: true, last_error: 'no reply within 300 ms' });
});

t.test('startSimulator({ upstream }): a warning naming the reason when the wallet is down, and it starts anyway', async (t) => {
  const port = await deadPort();
  let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
  const warnings = await warningsOf(async () => {
    sim = await startSimulator({
      scenario: scenarioFile({ ...TEST_SCENARIO, players: [] }),
      upstream: `http://127.0.0.1:${port}/callback`,
    });
  });
  t.teardown(() => sim!.close());
  t.equal(warnings.length, 1, 'one warning');
  t.match(warnings[0], { code: 'WALLET_SIM_UPSTREAM_UNREACHABLE', message: /connection refused by 127\.0\.0\.1:\d+ \(is the wallet up/ });
  t.match(warnings[0]!.message, /starting anyway/);
  const h = await (await fetch(`${sim!.url}/health`)).json();
  t.match(h.upstream, { reachable: false, last_error: /connection refused/ }, '/health says so at once');

  const tls = await plainHttp(t);
  let other: Awaited<ReturnType<typeof startSimulator>> | undefined;
  const wrongScheme = await warningsOf(async () => {
    other = await startSimulator({ scenario: scenarioFile({ ...TEST_SCENARIO, players: [] }), upstream: `https://127.0.0.1:${tls}/x` });
  });
  t.teardown(() => other!.close());
  t.match(wrongScheme[0]?.message, /does not speak TLS.*use http:\/\//, 'https against plain HTTP: the fix in words');
  t.notMatch(wrongScheme[0]?.message, /SSL routines|wrong version number/i);
});

t.test('startSimulator({ upstream }) in front of a wallet that is up: no warning, reachable', async (t) => {
  const up = await startUpstream(t);
  let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
  const warnings = await warningsOf(async () => {
    sim = await startSimulator({ scenario: scenarioFile(UPSTREAM_SCENARIO), upstream: up.url });
  });
  t.teardown(() => sim!.close());
  t.same(warnings, []);
  t.match((await (await fetch(`${sim!.url}/health`)).json()).upstream, { url: up.url, reachable: true, last_error: null });
});

/** `wallet-sim start --upstream <upstream>` as a process, with no players of its own. */
const startProxyCli = (t: Test, upstream: string, ...more: string[]) =>
  start(t, ['--port', '0', '--scenario', scenarioFile({ ...TEST_SCENARIO, players: [] }), '--upstream', upstream, ...more]);

t.test('start --upstream with the wallet down: the warning on stderr, and it listens anyway', async (t) => {
  const port = await deadPort();
  const started = await startProxyCli(t, `http://127.0.0.1:${port}/cb`, '--upstream-timeout-ms', '2000');
  t.ok(await eventually(async () => /warning: the upstream wallet .* connection refused/.test(started.stderr())), started.stderr());
  t.ok(
    await eventually(async () =>
      /--upstream-timeout-ms 2000 is shorter than the scenario's grading.client_timeout_s 10: /.test(started.stderr()),
    ),
    "a shorter upstream wait than the provider's is warned of",
  );
  t.match(started.stderr(), /is the wallet up/);
  const h = await (await fetch(`${started.url}/health`)).json();
  t.match(h, { status: 'ok', upstream: { reachable: false } });
});

t.test('start --upstream with no path: a warning naming the callback path, and a 404 said as such', async (t) => {
  const port = await plainHttp(t, 404, '<h1>Not Found</h1>');
  const started = await startProxyCli(t, `http://127.0.0.1:${port}`);
  t.ok(
    await eventually(async () =>
      /warning: --upstream http:\/\/127\.0\.0\.1:\d+ has no path, .*e\.g\. http:\/\/127\.0\.0\.1:\d+\/callback/.test(started.stderr()),
    ),
    started.stderr(),
  );
  await fetch(`${started.url}/callback`, { method: 'POST', headers: HEADERS, body: JSON.stringify(login('p1')) });
  const report = await (await fetch(`${started.url}/admin/report`)).json();
  const valid = report.checks.find((c: { id: string }) => c.id === 'WALLET_REPLY_VALID');
  t.match(valid.violations[0].message, /HTTP 404: no callback route there \(is the URL the wallet's callback path/);
  t.notMatch(valid.violations[0].message, /undefined|Content-Type|reply header/, 'the route alone, not what a page lacks of a reply');
  t.match(
    valid.fix,
    "A 404 or 405 is no wallet's reply: point the callback URL at the wallet's callback route, path included (proxy mode: --upstream",
  );
});

t.test('an upstream that is this wallet-sim itself (its own callback URL given back): refused at start, nothing forwarded', async (t) => {
  const { upstreamIsSelf } = await import('../../src/app/upstream-self.js');
  const cases: [string, string, number, boolean][] = [
    ['http://127.0.0.1:8081/callback', '127.0.0.1', 8081, true],
    ['http://localhost:8081/callback', '127.0.0.1', 8081, true],
    ['http://127.0.0.1:8081/callback', '0.0.0.0', 8081, true],
    ['http://0.0.0.0:8081/callback', '127.0.0.1', 8081, true],
    ['http://127.0.0.1:8082/callback', '127.0.0.1', 8081, false],
    ['https://127.0.0.1:8081/callback', '127.0.0.1', 8081, false],
    ['http://127.0.0.2:8081/callback', '127.0.0.1', 8081, false],
    ['http://127.0.0.1/callback', '127.0.0.1', 80, true],
    ['http://127.0.0.1:8081/callback', '127.0.0.1', 0, false],
    ['http://wallet.invalid:8081/callback', '127.0.0.1', 8081, false],
  ];
  for (const [upstream, host, port, self] of cases)
    t.equal(await upstreamIsSelf(upstream, host, port), self, `${upstream} from ${host}:${port}`);

  const port = await deadPort();
  const own = `http://127.0.0.1:${port}/callback`;
  const ran = await run([
    'start',
    '--port',
    String(port),
    '--scenario',
    scenarioFile({ ...TEST_SCENARIO, players: [] }),
    '--upstream',
    own,
  ]);
  t.equal(ran.code, 1, ran.stderr);
  t.match(
    ran.stderr,
    `wallet-sim: --upstream ${own} is this wallet-sim itself (it listens on 127.0.0.1 port ${port}): ` +
      "each callback would be forwarded to itself, again and again; give the operator wallet's callback URL, or change --port; nothing started",
  );
  t.notMatch(ran.stderr, /connection refused/, 'no reach check said first');
  await t.rejects(
    startSimulator({ port, scenario: scenarioFile({ ...TEST_SCENARIO, players: [] }), upstream: `http://localhost:${port}/callback` }),
    { message: /the `upstream` option http:\/\/localhost:\d+\/callback is this wallet-sim itself .* or change the `port` option/ },
  );
});
