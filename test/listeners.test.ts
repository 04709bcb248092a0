// GET /admin/events listeners (issue 21, item 2): capped (--max-listeners, never more than half the
// connection cap), refused with 503 LISTENERS_FULL and a closed connection, CORS headers under
// --cors, and never holding the slots callbacks need, even under a process fd limit of 1,024.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { buildTestApp, HEADERS, listen, login, post } from './helpers/app.js';
import { CLI, cleanEnv, collect, LISTENING } from './helpers/spawn-cli.js';

t.setTimeout(180_000);

interface Listener {
  socket: Socket;
  received: string;
  closed: boolean;
}

/** A raw GET /admin/events that never reads on its own accord beyond what arrives. */
function listener(port: number, headers = ''): Listener {
  const l: Listener = { socket: connect(port, '127.0.0.1'), received: '', closed: false };
  l.socket.on('connect', () => l.socket.write(`GET /admin/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}\r\n`));
  l.socket.setEncoding('utf8').on('data', (c: string) => {
    l.received += c;
  });
  l.socket.on('error', () => {});
  l.socket.on('close', () => {
    l.closed = true;
  });
  return l;
}

const streaming = (l: Listener) => l.received.startsWith('HTTP/1.1 200') && l.received.includes(': wallet-sim journal events');
const refused = (l: Listener) => l.received.startsWith('HTTP/1.1 503') && l.closed;

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (check()) return true;
  return check();
}

t.test('listeners past --max-listeners get 503 LISTENERS_FULL and their connection closed; a freed slot serves again', async (t) => {
  const { app } = await buildTestApp({}, { limits: { maxListeners: 2 } });
  t.teardown(() => app.close());
  const url = await listen(app);
  const port = Number(new URL(url).port);
  const first = [listener(port), listener(port)];
  t.teardown(() => first.forEach((l) => l.socket.destroy()));
  t.ok(await until(() => first.every(streaming), 10_000), 'two listeners are served');
  const extra = listener(port);
  t.ok(await until(() => refused(extra), 10_000), `the third is refused and closed: ${extra.received.split('\r\n')[0]}`);
  const body = JSON.parse(extra.received.slice(extra.received.indexOf('\r\n\r\n') + 4)) as { error: string; message: string };
  t.equal(body.error, 'LISTENERS_FULL');
  t.match(body.message, /^2 listeners already follow GET \/admin\/events.*close one .* or start wallet-sim with a higher --max-listeners$/);
  t.match(extra.received, /\r\nconnection: close\r\n/i);

  first[0]!.socket.destroy();
  let again: Listener | undefined;
  // The server sees the close a moment later: ask until a listener is served again.
  t.ok(
    await until(() => {
      if (again && streaming(again)) return true;
      if (!again || again.closed) again = listener(port);
      return false;
    }, 10_000),
    'once one goes, a new listener is served',
  );
  again?.socket.destroy();
  t.equal((await post(`${url}/callback`, login('player-1'))).body.code, 'R0', 'callbacks are served meanwhile');
});

t.test('listeners never take more than half the connection cap', async (t) => {
  const { app } = await buildTestApp({}, { limits: { maxListeners: 100, maxConnections: 6 } });
  t.teardown(() => app.close());
  const port = Number(new URL(await listen(app)).port);
  const all = Array.from({ length: 4 }, () => listener(port));
  t.teardown(() => all.forEach((l) => l.socket.destroy()));
  t.ok(await until(() => all.filter(streaming).length === 3 && all.filter(refused).length === 1, 10_000), '3 served, 1 refused');
});

t.test('under --cors the stream carries Access-Control-Allow-Origin for a listed origin', async (t) => {
  const origin = 'http://qa.example.test';
  const { app } = await buildTestApp({}, { cors: { anyOrigin: false, origins: [origin] } });
  t.teardown(() => app.close());
  const url = await listen(app);
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const res = await fetch(`${url}/admin/events`, { headers: { origin }, signal: abort.signal });
  t.equal(res.status, 200);
  t.equal(res.headers.get('access-control-allow-origin'), origin);
  t.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
});

t.test('1,000 idle listeners against a server limited to 1,024 files: honest logins are all answered', async (t) => {
  const child = spawn(
    '/bin/sh',
    ['-c', 'ulimit -n 1024 && exec "$0" "$@"', process.execPath, CLI, 'start', '--port', '0', '--log-level', 'silent'],
    {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const io = collect(child);
  t.teardown(async () => {
    child.kill('SIGKILL');
    await io.exited;
  });
  t.ok(await until(() => LISTENING.test(io.stdout()), 30_000), `the server starts: ${io.stderr()}`);
  const url = LISTENING.exec(io.stdout())![1]!;
  const port = Number(new URL(url).port);

  const listeners: Listener[] = [];
  t.teardown(() => listeners.forEach((l) => l.socket.destroy()));
  for (let i = 0; i < 1000; i++) {
    listeners.push(listener(port));
    if (i % 100 === 99) await new Promise((r) => setImmediate(r));
  }
  t.ok(await until(() => listeners.every((l) => streaming(l) || l.closed), 60_000), 'every listener is served or turned away');
  t.equal(listeners.filter(streaming).length, 100, '--max-listeners (100) are served');
  t.equal(listeners.filter(refused).length, 900, 'the other 900 are answered 503 and closed');

  const codes: string[] = [];
  for (let i = 0; i < 30; i++) {
    const sent = await post(`${url}/callback`, login(`honest-${i}`), HEADERS).catch((e: Error) => ({ body: { code: e.message } }));
    codes.push(String((sent.body as { code?: string }).code));
  }
  t.same(
    codes.filter((c) => c !== 'R0'),
    [],
    '30 of 30 honest logins answered R0',
  );
});
