// Exact relay: the upstream's reply reaches the provider as it came (status, headers hop-by-hop
// aside, body bytes), over real sockets; wallet-sim's own replies keep the bytes they always had.
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import t, { type Test } from 'tap';
import { buildTestApp, HEADERS, listen, login, send } from '../helpers/app.js';
import { startProxy } from './upstream.js';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** POSTs with node:http and keeps the reply's bytes (no decoding, no header folding by a client library). */
function postRaw(url: string, payload: object): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: HEADERS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(payload));
  });
}

/** An upstream that answers every callback with `status`, `headers` and `body` as given. */
async function upstreamAnswering(t: Test, status: number, headers: Record<string, string>, body: Buffer): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.sendDate = false;
      res.writeHead(status, headers).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/callback`;
}

const R0 = (user: string) =>
  Buffer.concat([
    Buffer.from(`{"code":"R0","event_type":"login","user_id":"${user}","latest_balance":1000,"note":"`),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}\n'),
  ]);

t.test('Content-Type: application/json reaches the provider as application/json, the body byte for byte', async (t) => {
  const body = R0('p1');
  const upstream = await upstreamAnswering(t, 200, { 'Content-Type': 'application/json', 'X-Trace': 'abc', 'api-id': 'sandbox' }, body);
  const proxy = await startProxy(t, {}, upstream);
  const got = await postRaw(proxy.url, login('p1'));
  t.equal(got.status, 200);
  t.equal(got.headers['content-type'], 'application/json', 'no charset added');
  t.equal(got.headers['x-trace'], 'abc');
  t.equal(got.headers['api-id'], 'sandbox');
  // (a Date is added when the upstream sent none: RFC 9110 6.6.1 asks that of a recipient that forwards)
  t.ok(got.body.equals(body), 'the body bytes as they came, invalid UTF-8 included');
  const [entry] = (await proxy.app.inject({ url: '/admin/journal' })).json().entries;
  t.equal(entry.reply.headers['content-type'], got.headers['content-type'], 'the journal records what the provider got');
  t.equal(entry.upstream.headers['content-type'], 'application/json');
});

t.test('an upstream reply without a Content-Type gets none; odd types and statuses go as they are', async (t) => {
  const bare = await startProxy(t, {}, await upstreamAnswering(t, 200, {}, Buffer.from('{"code":"R0"}')));
  const got = await postRaw(bare.url, login('p1'));
  t.equal(got.headers['content-type'], undefined, 'none added');
  t.equal(got.body.toString(), '{"code":"R0"}');

  const odd = await startProxy(
    t,
    {},
    await upstreamAnswering(t, 502, { 'content-type': 'Application/JSON;charset=latin1' }, Buffer.from('x')),
  );
  const oddGot = await postRaw(odd.url, login('p1'));
  t.same([oddGot.status, oddGot.headers['content-type'], oddGot.body.toString()], [502, 'Application/JSON;charset=latin1', 'x']);
});

t.test("a rule's body in proxy mode goes under the upstream's headers as they are", async (t) => {
  const upstream = await upstreamAnswering(t, 200, { 'content-type': 'application/json' }, R0('p1'));
  const proxy = await startProxy(
    t,
    { rules: [{ name: 'other body', when: { event_type: 'login' }, then: { body: { code: 'R0', replaced: true } } }] },
    upstream,
  );
  const got = await postRaw(proxy.url, login('p1'));
  t.equal(got.headers['content-type'], 'application/json');
  t.same(JSON.parse(got.body.toString()), { code: 'R0', replaced: true });
});

t.test("wallet-sim's own replies (no upstream) are written as before: JSON text with a UTF-8 charset", async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const injected = await send(app, login('player-1'));
  t.equal(injected.headers['content-type'], 'application/json; charset=utf-8');
  const base = await listen(app);
  const got = await postRaw(`${base}/callback`, login('player-1'));
  t.equal(got.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(got.headers['content-length'], String(got.body.length));
  t.match(JSON.parse(got.body.toString()), { code: 'R0', user_id: 'player-1' });
});
