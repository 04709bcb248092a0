// `wallet-sim start --store redis` refusing at once what cannot work, naming the fix, and ending on
// a signal while it waits for Redis (docs/redis-failures.md, "At start").
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { CLI, cleanEnv, collect, eventually } from '../helpers/spawn-cli.js';

t.test('SIGTERM while the store opens (a Redis that never answers): it exits at once, saying so', async (t) => {
  const sockets: Socket[] = [];
  const silent = createServer((socket) => void sockets.push(socket)); // accepts, never answers
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const { port } = silent.address() as { port: number };
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--store', 'redis', '--redis-url', `redis://127.0.0.1:${port}`], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const io = collect(child);
  t.teardown(() => void child.kill('SIGKILL'));
  t.ok(await eventually(async () => sockets.length > 0, 30_000), 'it connected and waits for a reply');
  const sent = Date.now();
  child.kill('SIGTERM');
  const ran = await io.exited;
  t.ok(Date.now() - sent < 3000, `ended ${Date.now() - sent} ms after SIGTERM`);
  t.equal(ran.code, 1, 'exit 1');
  t.match(ran.stderr, /SIGTERM received while starting \(opening the store\), nothing started/);
});
