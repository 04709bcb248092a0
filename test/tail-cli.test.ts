// `wallet-sim tail` spawned as a user runs it, against a simulator in this process listening on a
// real socket (a spawned `start` cost two seconds of CPU each, and is not what is under test here).
// Its refusals are parsed in this process (runCli); one, with a following tail's clean end, stays spawned.
import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import t, { type Test } from 'tap';
import { buildTestApp, HEADERS, listen, login } from './helpers/app.js';
import { CLI, cleanEnv, collect, run } from './helpers/spawn-cli.js';
import { runCli } from './helpers/run-here.js';

t.setTimeout(120_000);
// The cases are independent (a simulator and a tail each): two at a time.
t.jobs = 2;

function tail(tt: Test, args: string[]) {
  const child = spawn(process.execPath, [CLI, 'tail', ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const io = collect(child);
  tt.teardown(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await io.exited;
  });
  return io;
}

/** A simulator listening on a loopback port, closed after the test (after its tail: teardowns run last first). */
async function simulator(tt: Test, adminToken?: string): Promise<{ url: string }> {
  const { app } = await buildTestApp({}, { adminToken });
  tt.teardown(() => app.close());
  return { url: await listen(app) };
}

/** A loopback port nothing listens on (taken, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Sends a fresh callback (or, with `then`, two: make's, then then's) every 300 ms until `seen` (the
 * tail connects a moment after it starts).
 */
async function sendUntil(url: string, make: () => object, seen: () => boolean, then?: () => object): Promise<boolean> {
  for (const until = Date.now() + 20_000; Date.now() < until;) {
    await send(url, make());
    if (then) await send(url, then());
    for (let i = 0; i < 6; i++) {
      if (seen()) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return false;
}

const send = (url: string, body: object) =>
  fetch(`${url}/callback`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) }).then(
    (r) => r.json() as Promise<{ code: string }>,
  );

t.test('one readable line per callback', async (t) => {
  const sim = await simulator(t);
  const io = tail(t, ['--url', sim.url]);
  // The stream is up once the server has a listener; a callback sent before that is not replayed.
  t.ok(
    await sendUntil(
      sim.url,
      () => login('player-1'),
      () => io.stdout().includes('login'),
    ),
    'a login shows up',
  );
  const line = io
    .stdout()
    .split('\n')
    .find((l) => l.includes('login'))!;
  t.match(line, /^\d\d:\d\d:\d\d\.\d{3} #\d+ login player-1 login-\S+ R0 \d+ → \d+ \d+ms/, line);
  t.notMatch(line, /\x1b\[/, 'no colour when stdout is not a terminal');
});

t.test('--json prints journal entries, one per line', async (t) => {
  const sim = await simulator(t);
  const io = tail(t, ['--url', sim.url, '--json']);
  t.ok(
    await sendUntil(
      sim.url,
      () => ({ ...login('player-1'), timestamp: 'soon' }),
      () => io.stdout().includes('\n'),
    ),
    'an entry shows up',
  );
  const entry = JSON.parse(io.stdout().split('\n')[0]!);
  t.match(entry, { event_type: 'login', user_id: 'player-1', code: 'R3', findings: [{ code: 'SCHEMA', severity: 'error' }] });
});

t.test('the filters of the journal as options: only the matching callbacks', async (t) => {
  const sim = await simulator(t);
  const io = tail(t, ['--url', sim.url, '--json', '--user-id', 'player-2', '--event-type', 'login', '--replayed', 'false']);
  const lines = () => io.stdout().split('\n').filter(Boolean);
  // Pairs until the stream is up (a callback sent before that is not replayed)…
  t.ok(
    await sendUntil(
      sim.url,
      () => login('player-1'),
      () => lines().length > 0,
      () => login('player-2'),
    ),
    'a login of player-2 shows up',
  );
  t.match(io.stderr(), 'following the callbacks ' + sim.url + ' receives (only user_id=player-2, event_type=login, replayed=false)');
  // …then, with the stream surely up: what the filters drop, and one that passes last, as a marker.
  const again = login('player-2');
  const marker = login('player-2');
  for (const body of [login('player-1'), again, again, login('player-1'), marker]) await send(sim.url, body);
  for (let i = 0; i < 400 && !io.stdout().includes(marker.transaction_id); i++) await new Promise((r) => setTimeout(r, 50));
  const entries = lines().map((l) => JSON.parse(l) as { user_id: string; event_type: string; replayed: boolean; transaction_id: string });
  t.equal(entries.at(-1)?.transaction_id, marker.transaction_id, 'the last one shows up');
  t.equal(entries.filter((e) => e.transaction_id === again.transaction_id).length, 1, 'a login once, without its replay');
  t.same(
    [...new Set(entries.map((e) => `${e.user_id} ${e.event_type} ${e.replayed}`))],
    ['player-2 login false'],
    'nothing else: no callback of player-1, no replay',
  );
  const refused = await runCli(['tail', '--url', sim.url, '--code', 'R9']);
  t.not(refused.code, 0, 'a code outside R0–R4 is refused');
  t.match(refused.stderr, /--code <code>' argument 'R9' is invalid. Allowed choices are R0, R1, R2, R3, R4/);
});

t.test('the admin token is sent', async (t) => {
  const sim = await simulator(t, 'tok');
  const refused = await runCli(['tail', '--url', sim.url]);
  t.equal(refused.code, 2, 'without the token: exit 2');
  t.match(refused.stderr, /401.*--admin-token/);
  const io = tail(t, ['--url', sim.url, '--admin-token', 'tok', '--json']);
  t.ok(
    await sendUntil(
      sim.url,
      () => login('player-1'),
      () => io.stdout().includes('"login"'),
    ),
    'with it: entries',
  );
});

t.test('exit 2 when nothing listens there', async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const ran = await run(['tail', '--url', url]);
  t.equal(ran.code, 2);
  t.match(ran.stderr, `is wallet-sim running at ${url}?`);
});

t.test('the simulator ending the stream (shutting down): its reason said, exit 0; could not follow: exit 2', async (t) => {
  const { app } = await buildTestApp();
  const url = await listen(app);
  const io = tail(t, ['--url', url]);
  t.ok(
    await sendUntil(
      url,
      () => login('player-1'),
      () => io.stdout().includes('login'),
    ),
    'the stream is up',
  );
  await app.close();
  const ended = await io.exited;
  t.equal(ended.code, 0, 'a clean end: nothing failed');
  t.same(ended.stderr.trim().split('\n'), [
    `wallet-sim tail: following the callbacks ${url} receives; Ctrl-C to stop`,
    `wallet-sim tail: ${url} ended the stream (wallet-sim is shutting down)`,
  ]);

  const sim = await simulator(t);
  const plain = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'));
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  t.teardown(() => plain.close());
  const other = `http://127.0.0.1:${(plain.address() as { port: number }).port}`;
  const callback = await runCli(['tail', '--url', `${sim.url}/callback`]);
  const html = await runCli(['tail', '--url', other]);
  t.equal(callback.code, 2);
  t.equal(
    callback.stderr.trim(),
    `wallet-sim tail: ${sim.url}/callback/admin/events: HTTP 404; --url wants the simulator's base URL, not its callback URL: --url ${sim.url}`,
  );
  t.equal(html.code, 2);
  t.match(html.stderr, `${other}/admin/events answered 200 but not an event stream (content-type text/html); is ${other} a wallet-sim?`);
});
