// An upstream that is dead, answers garbage, is slow, or answers an HTTP error: the provider's
// connection is closed without a reply when there is no HTTP reply at all (what a dead wallet looks
// like to it), any HTTP reply is relayed as it came, and the journal and the wallet side say why.
import { createServer as createHttpServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { createServer, type Server } from 'node:net';
import t, { type Test } from 'tap';
import { bet, HEADERS, login, post } from '../helpers/app.js';
import { MAX_REPLY_BYTES } from '../../src/wallet/upstream-wallet.js';
import { startProxy } from './upstream.js';
import type { Scenario } from '../../src/protocol/types.generated.js';

const usd = { currency: 'USD' };

/** A TCP server on a free loopback port, closed when the test ends. */
async function serve(t: Test, server: Server | ReturnType<typeof createHttpServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('no address');
  return `http://127.0.0.1:${address.port}/callback`;
}

/** A port nothing listens on: bound, then closed. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/callback`;
}

async function noReply(t: Test, upstream: string, timeoutMs: number, why: RegExp, doc: Partial<Scenario> = {}) {
  const proxy = await startProxy(t, doc, upstream, timeoutMs);
  const b = bet('p1', 'g1', [['1', 'P', 10]], usd);
  await t.rejects(post(proxy.url, b), "the provider's connection closed without a reply");
  const [entry] = (await proxy.app.inject({ url: `/admin/journal?transaction_id=${b.transaction_id}` })).json().entries;
  t.match(entry, { reply: { dropped: true }, upstream: { forwarded: true, error: why }, reason: why }, 'the journal says why');
  const inTime = proxy.sim.grading.wallet!.checks().find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')!;
  t.equal(inTime.status, 'fail', 'the wallet side fails WALLET_ANSWERS_IN_TIME');
  t.match(inTime.violations[0], { journal_ids: [entry.id], message: why }, 'citing the journal entry');
  return proxy;
}

t.test('a dead upstream (connection refused)', async (t) => {
  await noReply(t, await deadUrl(), 30_000, /connection refused/);
});

t.test('an upstream answering bytes that are not HTTP', async (t) => {
  const garbage = createServer((socket) => {
    socket.once('data', () => socket.end('garbage, not HTTP\r\n\r\n'));
  });
  await noReply(t, await serve(t, garbage), 30_000, /not HTTP/);
});

t.test('a slow upstream: no reply within --upstream-timeout-ms', async (t) => {
  const held: import('node:http').ServerResponse[] = [];
  const slow = createHttpServer((_req, res) => {
    held.push(res); // never answered while the test runs
  });
  t.teardown(() => {
    for (const res of held) res.destroy();
  });
  const sent = Date.now();
  const url = await serve(t, slow);
  // The provider's own time-out is the proxy's: past it, the wallet is late.
  await noReply(t, url, 500, /no reply within 500 ms/, { grading: { client_timeout_s: 0.5 } });
  t.ok(Date.now() - sent < 10_000, 'given up on in time');

  // The proxy's shorter than the provider's (10 s): the wallet may yet have answered in time.
  const short = await startProxy(t, {}, url, 300);
  await t.rejects(post(short.url, bet('p1', 'g2', [['1', 'P', 10]], usd)));
  const inTime = short.sim.grading.wallet!.checks().find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')!;
  t.not(inTime.status, 'fail', "the proxy's own shorter wait judges nothing");
  t.same(inTime.violations, []);
});

t.test('an HTTP error with a non-JSON body is relayed as it came, and judged by WALLET_REPLY_VALID', async (t) => {
  const failing = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain', 'x-upstream': 'yes' }).end('upstream exploded'));
  });
  const proxy = await startProxy(t, {}, await serve(t, failing));
  const got = await post(proxy.url, login('p2'));
  t.same([got.status, got.raw, got.headers['x-upstream'], got.headers['content-type']], [500, 'upstream exploded', 'yes', 'text/plain']);
  const valid = proxy.sim.grading.wallet!.checks().find((c) => c.id === 'WALLET_REPLY_VALID')!;
  t.equal(valid.status, 'fail');
  t.equal(proxy.sim.grading.wallet!.checks().find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')!.status, 'pass', 'it did answer');
  const report = (await proxy.app.inject({ url: '/admin/report' })).json();
  t.equal(report.upstream, proxy.sim.wallet.upstream, 'the report names the upstream');
  t.match(report.upstream, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  t.equal(report.checks.filter((c: { side: string }) => c.side === 'wallet').length, 8, "the wallet's eight checks follow the provider's");
});

t.test('an upstream that compresses when asked: the proxy asks for the reply as it is', async (t) => {
  const seen: (string | undefined)[] = [];
  const gzipping = createHttpServer((req, res) => {
    seen.push(req.headers['accept-encoding']);
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({ code: 'R0', event_type: 'login', timestamp: 1, user_id: 'p3', latest_balance: 5 });
      const gzip = /gzip/.test(req.headers['accept-encoding'] ?? '');
      res.writeHead(200, {
        'content-type': 'application/json',
        'api-id': 'x',
        'api-key': 'y',
        'callback-url': 'http://provider.test/callback',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      res.end(gzip ? gzipSync(body) : body);
    });
  });
  const proxy = await startProxy(t, {}, await serve(t, gzipping));
  const got = await post(proxy.url, login('p3'), { ...HEADERS, 'accept-encoding': 'gzip, deflate' });
  t.same(seen, [undefined], 'no Accept-Encoding went upstream');
  t.match(got.body, { code: 'R0', latest_balance: 5 }, 'the provider reads the reply');
  const valid = proxy.sim.grading.wallet!.checks().find((c) => c.id === 'WALLET_REPLY_VALID')!;
  t.same(valid.violations, [], 'the reply is valid');
  t.equal(valid.status, 'pass');
});

t.test('an upstream reply over 1 MiB is no reply', async (t) => {
  const huge = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"code":"R0","pad":"${'x'.repeat(MAX_REPLY_BYTES)}"}`),
    );
  });
  await noReply(t, await serve(t, huge), 30_000, /over 1048576 bytes/);
});
