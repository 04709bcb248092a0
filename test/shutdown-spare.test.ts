// Closing with a connection that never sent a byte (a client's spare: undici opens one when a
// fetch is aborted, browsers open them ahead of need). Node's closeIdleConnections() leaves such a
// connection, so close() waited the whole --shutdown-grace-ms for it and counted it as a request cut.
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { buildTestApp, HEADERS, login } from './helpers/app.js';
import { closeGracefully } from '../src/http/shutdown.js';

// Never reached when it works; without the fix the spare is cut when it ends (cut: 1).
const GRACE_MS = 15_000;

async function opened(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

t.test('a spare connection is closed at once, a request in flight still answered', async (t) => {
  const { app } = await buildTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const spare = await opened(port);
  const spareClosed = new Promise<void>((resolve) => spare.once('close', () => resolve()));
  // A kept-alive connection that was used: Node closes it as idle (the case that always worked).
  const used = await fetch(`http://127.0.0.1:${port}/callback`, { method: 'POST', headers: HEADERS, body: JSON.stringify(login('p1')) });
  t.equal((await used.json()).code, 'R0');
  const cut = await closeGracefully(app, GRACE_MS);
  t.equal(cut, 0, 'no connection counted as cut');
  await spareClosed;
  t.pass('the spare connection closed');
});

t.test('a connection just accepted whose request is not read yet when closing begins: answered 503, not cut', async (t) => {
  const { app } = await buildTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const accepted = new Promise<void>((resolve) => app.server.once('connection', () => resolve()));
  const socket = await opened(port);
  await accepted;
  let reply = '';
  socket.setEncoding('latin1').on('data', (chunk: string) => (reply += chunk));
  socket.on('error', () => {}); // (a reset: what was read is checked)
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const body = JSON.stringify(login('p1'));
  const head = Object.entries(HEADERS)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  // Sent, and closing begun, in one turn: the server has read none of it when the gate runs.
  socket.write(`POST /callback HTTP/1.1\r\nhost: wallet.test\r\n${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const cut = await closeGracefully(app, GRACE_MS);
  await ended;
  t.match(reply, /^HTTP\/1\.1 503 [^]*"error":"SHUTTING_DOWN"/, 'refused 503 SHUTTING_DOWN (it was cut: a reset, nothing read)');
  t.equal(cut, 0, 'no connection counted as cut');
});
