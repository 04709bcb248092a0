// `wallet-sim start --store redis` refusing at once what cannot work, naming the fix, and ending on
// a signal while it waits for Redis (docs/redis-failures.md, "At start").
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import t from 'tap';
import { Redis } from 'ioredis';
import { openBackend } from '../../src/app/stores.js';
import { CLI, cleanEnv, collect, eventually } from '../helpers/spawn-cli.js';
import { redisMissing, startRedis } from '../helpers/redis.js';
import { skip } from '../helpers/required.js';

/** What opening the store at `redisUrl` throws, and how long it took. */
async function refusal(redisUrl: string): Promise<{ message: string; ms: number }> {
  const started = Date.now();
  const message = await openBackend('redis', { redisUrl }).then(
    async (store) => {
      await store.close();
      return 'opened';
    },
    (e: Error) => e.message,
  );
  return { message, ms: Date.now() - started };
}

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

t.test('a URL that is not redis:// is refused at once', async (t) => {
  const { message, ms } = await refusal('http://127.0.0.1:16379');
  t.match(
    message,
    /^--redis-url http:\/\/127\.0\.0\.1:16379 is not a redis:\/\/ or rediss:\/\/ URL: write e\.g\. redis:\/\/127\.0\.0\.1:6379/,
  );
  t.ok(ms < 1000, `in ${ms} ms`);
});

t.test('a --redis-url without a scheme, or a list of nodes, is refused at once with what to write', async (t) => {
  const rows: [string, RegExp][] = [
    // (ioredis would read "localhost" as a path and try 127.0.0.1:6379)
    ['localhost', /^--redis-url localhost has no scheme: write redis:\/\/localhost \(or rediss:\/\/ for TLS/],
    ['127.0.0.1:16379', /^--redis-url 127\.0\.0\.1:16379 has no scheme: write redis:\/\/127\.0\.0\.1:16379/],
    ['127.0.0.1:7000,127.0.0.1:7001', /is a list of nodes: for a Redis Cluster write --redis-cluster 127\.0\.0\.1:7000,127\.0\.0\.1:7001/],
  ];
  for (const [url, want] of rows) {
    const { message, ms } = await refusal(url);
    t.match(message, want, url);
    t.ok(ms < 1000, `${url}: in ${ms} ms`);
  }
});

t.test('a --redis-cluster node with a scheme or spaces is refused at once', async (t) => {
  for (const list of ['redis://127.0.0.1:7000', '127.0.0.1:7000 127.0.0.1:7001']) {
    const started = Date.now();
    const message = await openBackend('redis', { redisCluster: list }).then(
      async (store) => {
        await store.close();
        return 'opened';
      },
      (e: Error) => e.message,
    );
    t.match(
      message,
      /is not host:port \(no scheme such as redis:\/\/, and the nodes separated by commas\); write e\.g\. --redis-cluster 10\.0\.0\.1:7000,10\.0\.0\.2:7000/,
      list,
    );
    t.ok(Date.now() - started < 1000, `${list}: at once`);
  }
});

const missing = redisMissing();
if (missing) skip(t, 'the Redis tests of this file', missing);
else {
  t.test('what waiting cannot mend is refused at once, naming the fix', async (t) => {
    const plain = await startRedis(t);
    const node = await startRedis(t, { cluster: true });
    const locked = await startRedis(t);
    const admin = new Redis(locked.port, '127.0.0.1');
    await admin.config('SET', 'requirepass', 's3cret');
    admin.disconnect();
    const cases = [
      [
        `redis://127.0.0.1:${locked.port}`,
        /refuses the connection: the password in --redis-url is missing \(NOAUTH.*redis:\/\/:PASSWORD@host:port/,
      ],
      [`redis://:nope@127.0.0.1:${locked.port}`, /refuses the connection: the password in --redis-url is wrong \(WRONGPASS/],
      [node.url, /is a cluster node \(cluster_enabled:1\): use --redis-cluster host:port,… \(some of its nodes\) instead of --redis-url/],
      [
        `${plain.url}/99`,
        /has no database 99 \(this Redis has 16 databases, 0 to 15: its `databases` setting\).*pick another in --redis-url/,
      ],
    ] as const;
    for (const [url, wanted] of cases) {
      const { message, ms } = await refusal(url);
      t.match(message, wanted, url);
      t.ok(ms < 3000, `${url}: in ${ms} ms, not after the 10 s wait`);
    }
    t.equal((await refusal(`${plain.url}/3`)).message, 'opened', 'a database it has: opened');
  });
}
