// Issue 35, item 8: an open event stream (GET /admin/events?grading=true) made SIGTERM and close()
// wait the whole grace period, and the log blamed delay_ms. Event streams end as shutdown begins.
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startSimulator } from '../src/app/start-simulator.js';
import { start } from './helpers/spawn-cli.js';

/** Far above the time a prompt exit takes, far below GRACE_MS. */
const BOUND_MS = 15_000;
const GRACE_MS = 60_000;

interface Stream {
  /** Resolves once the first bytes of the stream have arrived. */
  open: Promise<void>;
  /** Resolves with everything read, once the server ended the stream. */
  ended: Promise<string>;
}

function listen(url: string): Stream {
  let text = '';
  let opened: () => void;
  const open = new Promise<void>((r) => (opened = r));
  const ended = new Promise<string>((resolve, reject) => {
    const req = request(`${url}/admin/events?grading=true`, (res) => {
      res.setEncoding('utf8').on('data', (c: string) => {
        text += c;
        opened();
      });
      res.on('end', () => resolve(text));
      res.on('error', () => resolve(text));
    });
    req.on('error', reject);
    req.end();
  });
  return { open, ended };
}

t.test('SIGTERM with an open event stream: the stream ends and the process exits promptly, blaming no delay_ms', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-level', 'info', '--shutdown-grace-ms', String(GRACE_MS)]);
  const streams = [listen(sim.url), listen(sim.url)];
  await Promise.all(streams.map((s) => s.open));
  const signalled = Date.now();
  sim.child.kill('SIGTERM');
  const ran = await Promise.race([sim.exited, sleep(BOUND_MS, undefined, { ref: false })]);
  t.ok(ran, `exited within ${BOUND_MS} ms of SIGTERM (took ${Date.now() - signalled} ms; the grace is ${GRACE_MS} ms)`);
  t.equal(ran?.code, 0, 'exit 0');
  for (const s of streams) t.match(await s.ended, /: wallet-sim is shutting down/, 'the listener sees the stream end');
  t.match(
    ran?.stderr,
    /closing: event streams \(GET \/admin\/events\) end now; requests in flight are answered/,
    'the log says what it waits for',
  );
  t.notMatch(ran?.stderr, /still unanswered|delay_ms/, 'no connection cut, delay_ms not blamed');
  t.match(ran?.stdout, /shutdown: event streams ended/, 'the log names the streams ended');
});

t.test('close() with an open event stream resolves promptly', async (t) => {
  const sim = await startSimulator({ shutdownGraceMs: GRACE_MS });
  const stream = listen(sim.url);
  await stream.open;
  const began = Date.now();
  const closed = await Promise.race([sim.close().then(() => true), sleep(BOUND_MS, false, { ref: false })]);
  t.ok(closed, `close() resolved within ${BOUND_MS} ms (took ${Date.now() - began} ms; the grace is ${GRACE_MS} ms)`);
  t.match(await stream.ended, /: wallet-sim is shutting down/);
});
