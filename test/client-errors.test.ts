// What Node's HTTP parser refuses before any handler (a request too slow, headers too large, bytes
// that are not HTTP) is answered in the house format with what to do next, and a callback cut for
// time is journalled as the 408 its caller got (it used to say "400 aborted").
import t from 'tap';
import { connect } from 'node:net';
import { buildTestApp, HEADERS, journal, listen, login } from './helpers/app.js';
import { eventually } from './helpers/spawn-cli.js';
import { parseCors } from '../src/http/cors.js';

const LIMITS = { headersTimeoutMs: 300, requestTimeoutMs: 600 };

/** Writes `bytes` on a new connection; resolves with all that was read once the server closes it. */
function sendRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let read = '';
    socket.on('data', (chunk) => (read += chunk.toString('latin1')));
    socket.on('error', () => {}); // (a reset after the reply: what was read is the answer)
    socket.on('close', () => resolve(read));
  });
}

/** The status line and the JSON body of a raw reply. */
function parsed(wire: string): { status: string; head: string; body: any } {
  const at = wire.indexOf('\r\n\r\n');
  return { status: wire.slice(0, wire.indexOf('\r\n')), head: wire.slice(0, at), body: JSON.parse(wire.slice(at + 4)) };
}

const head = (extra = '') =>
  `POST /callback HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(HEADERS)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}${extra}`;

for (const [through, options] of [
  ['the callback lane', {}],
  ['the callback route (--cors: no lane)', { cors: parseCors(true) }],
] as const) {
  t.test(`${through}: a callback whose body never completes gets 408, and the journal says 408 and why`, async (t) => {
    const { app } = await buildTestApp({}, { limits: LIMITS, ...options });
    t.teardown(() => app.close());
    const port = Number(new URL(await listen(app)).port);
    const wire = await sendRaw(port, `${head()}content-length: 100\r\n\r\n{"event_type":`);
    const { status, head: replyHead, body } = parsed(wire);
    t.equal(status, 'HTTP/1.1 408 Request Timeout');
    t.match(replyHead, /\r\ncontent-type: application\/json; charset=utf-8/i);
    t.match(replyHead, /\r\nconnection: close/i);
    t.equal(body.error, 'REQUEST_TIMEOUT');
    t.match(body.message, 'within 300 ms, --headers-timeout-ms');
    t.match(body.message, 'within 600 ms, --request-timeout-ms');
    t.match(body.message, 'send each request whole and at once');
    t.ok(await eventually(async () => (await journal(app)).length === 1, 5_000), 'journalled');
    const [entry] = await journal(app);
    t.equal(entry.reply.status, 408, 'the status its caller got');
    t.match(entry.reason, /^REQUEST_TIMEOUT: the request did not arrive in time/);
  });
}

t.test("headers larger than Node's limit: 431 with what to do; bytes that are not HTTP: 400 with what to check", async (t) => {
  const { app } = await buildTestApp({}, { limits: LIMITS });
  t.teardown(() => app.close());
  const port = Number(new URL(await listen(app)).port);
  const large = parsed(await sendRaw(port, `${head(`x-large: ${'a'.repeat(20_000)}\r\n`)}content-length: 2\r\n\r\n{}`));
  t.equal(large.status, 'HTTP/1.1 431 Request Header Fields Too Large');
  t.same(large.body, { error: 'HEADERS_TOO_LARGE', message: large.body.message });
  t.match(large.body.message, 'send fewer or shorter headers');
  const garbled = parsed(await sendRaw(port, 'NOT HTTP AT ALL\r\n\r\n'));
  t.equal(garbled.status, 'HTTP/1.1 400 Bad Request');
  t.equal(garbled.body.error, 'HTTP_MALFORMED');
  t.match(garbled.body.message, /^the request is not valid HTTP\/1\.1 \(HPE_\w+\)/);
  const both = parsed(await sendRaw(port, `${head()}content-length: 2\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n`));
  t.equal(both.body.error, 'HTTP_MALFORMED', 'Content-Length and Transfer-Encoding both');
  t.same(await journal(app), [], 'none of them reached a handler: nothing journalled');
});

for (const [through, options] of [
  ['the callback lane', {}],
  ['the callback route (--cors: no lane)', { cors: parseCors(true) }],
] as const) {
  t.test(`${through}: bytes past Content-Length are refused after the callback's own reply, not instead of it`, async (t) => {
    const { app } = await buildTestApp({}, { limits: LIMITS, ...options });
    t.teardown(() => app.close());
    const port = Number(new URL(await listen(app)).port);
    const body = JSON.stringify(login('usd'));
    const wire = await sendRaw(port, `${head()}content-length: ${body.length}\r\n\r\n${body}}\r\n\r\n`);
    const [first, second] = wire.split(/(?=HTTP\/1\.1 )/);
    t.match(first, /^HTTP\/1\.1 200 OK/, 'the callback answered');
    t.match(first, /"code":"R0"/);
    t.match(second ?? '', /^HTTP\/1\.1 400 Bad Request/, 'then the stray bytes refused');
    t.match(second ?? '', /"error":"HTTP_MALFORMED"/);
    const entries = await journal(app);
    t.equal(entries.length, 1);
    t.equal(entries[0].reply.status, 200, 'and the journal has the reply its caller got');
  });
}
