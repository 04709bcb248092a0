// docs/redis-failures.md for the hosted sandbox: with Redis away, GET /health answers 503 with the
// reason (a balancer sees the outage) and GET /tenants 503 STORE_UNREACHABLE, never a 500 or "ok".
import t from 'tap';
import { startSimulator } from '../../src/app/start-simulator.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';
import { asHost, HOST_TOKEN } from '../helpers/hosted.js';
import { skip } from '../helpers/required.js';

const missing = redisMissing();
if (missing) skip(t, 'the hosted Redis-down test', missing);
else
  t.test('Redis killed under a hosted host: /health and /tenants say so; back once it is', async (t) => {
    const redis = await startRedis(t, { durable: true });
    const host = await startSimulator({
      hosted: true,
      hostToken: HOST_TOKEN,
      store: 'redis',
      redisUrl: redis.url,
      redisPrefix: uniquePrefix('hosted-down'),
      redisTimeoutMs: 1000,
    });
    t.teardown(() => host.close());
    const created = await fetch(`${host.url}/tenants`, {
      method: 'POST',
      headers: { ...asHost, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'acme' }),
    });
    t.equal(created.status, 201);
    t.equal((await fetch(`${host.url}/health`)).status, 200);

    await redis.kill();
    const health = await fetch(`${host.url}/health`);
    t.equal(health.status, 503, '/health: 503 while Redis is away');
    t.match(await health.json(), {
      status: 'store_failed',
      scenario: 'hosted',
      store: 'redis',
      error: /Redis at .* (is unreachable|does not answer)/,
    });
    const list = await fetch(`${host.url}/tenants`, { headers: asHost });
    t.equal(list.status, 503, 'GET /tenants: 503');
    t.match(await list.json(), { error: 'STORE_UNREACHABLE', message: /Redis at / });

    await redis.restart();
    const until = Date.now() + 20_000;
    let status = 0;
    while (Date.now() < until && (status = (await fetch(`${host.url}/health`)).status) !== 200)
      await new Promise((r) => setTimeout(r, 100));
    t.equal(status, 200, '/health: 200 again once Redis answers');
    t.equal((await fetch(`${host.url}/tenants`, { headers: asHost })).status, 200);
  });
