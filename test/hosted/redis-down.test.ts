// docs/redis-failures.md for the hosted sandbox: with Redis away, GET /health answers 503 with the
// reason (a balancer sees the outage) and GET /tenants 503 STORE_UNREACHABLE, never a 500 or "ok".
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { startSimulator } from '../../src/app/start-simulator.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';
import { asHost, bearer, callbackHeaders, type Created, HOST_TOKEN, loginOf } from '../helpers/hosted.js';
import { skip } from '../helpers/required.js';

const missing = redisMissing();
if (missing) skip(t, 'the hosted Redis-down test', missing);
else {
  /** A host on its own Redis, with one tenant created; `health()` reads GET /health. */
  const hostWithTenant = async (t: Test, { durable = false, timeoutMs = 500 } = {}) => {
    const redis = await startRedis(t, { durable });
    const host = await startSimulator({
      hosted: true,
      hostToken: HOST_TOKEN,
      store: 'redis',
      redisUrl: redis.url,
      redisPrefix: uniquePrefix('hosted-down'),
      redisTimeoutMs: timeoutMs,
    });
    t.teardown(() => host.close());
    const created = await fetch(`${host.url}/tenants`, {
      method: 'POST',
      headers: { ...asHost, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'acme' }),
    });
    t.equal(created.status, 201);
    const tenant = (await created.json()) as Created;
    const health = async () => {
      const res = await fetch(`${host.url}/health`);
      return { status: res.status, body: (await res.json()) as { error?: string; tenants: number } };
    };
    /** Polls /health until `done` (the registry is checked once a second): the last answer. */
    const healthUntil = async (done: (h: Awaited<ReturnType<typeof health>>) => boolean) => {
      let h = await health();
      for (const until = Date.now() + 15_000; !done(h) && Date.now() < until; await new Promise((r) => setTimeout(r, 100)))
        h = await health();
      return h;
    };
    return { redis, host, healthUntil, tenant };
  };

  t.test('Redis killed under a hosted host: /health and /tenants say so; back once it is', async (t) => {
    const { redis, host } = await hostWithTenant(t, { durable: true, timeoutMs: 1000 });
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

  t.test('Redis frozen (SIGSTOP) under an idle host: /health turns 503 by itself (it stayed 200 until a callback timed out)', async (t) => {
    const { redis, healthUntil } = await hostWithTenant(t);
    t.equal((await healthUntil((h) => h.status === 200)).status, 200);
    redis.signal('SIGSTOP');
    t.teardown(() => redis.signal('SIGCONT'));
    const frozen = await healthUntil((h) => h.status === 503);
    t.equal(frozen.status, 503, 'no traffic needed');
    t.match(frozen.body.error, /Redis at .*/);
    redis.signal('SIGCONT');
    t.equal((await healthUntil((h) => h.status === 200)).status, 200, 'back once it answers');
  });

  t.test('Redis flushed: the tenants are not forgotten as deleted; /health says the registry is lost', async (t) => {
    const { redis, host, healthUntil, tenant } = await hostWithTenant(t);
    const client = new Redis(redis.url);
    t.teardown(() => client.disconnect());
    await client.flushall();
    const lost = await healthUntil((h) => h.status === 503);
    t.equal(lost.status, 503);
    t.match(lost.body.error, /^Redis lost the tenant registry \(.*version gone: flushed, evicted or restarted without persistence\)/);
    t.equal(lost.body.tenants, 1, 'the tenant known is kept (it was dropped: tenants 0, GET /tenants [], its URL 404)');
    const callback = await fetch(tenant.callback_url, {
      method: 'POST',
      headers: callbackHeaders(tenant),
      body: JSON.stringify(loginOf('p1')),
    });
    t.match(await callback.json(), { code: 'R1' }, 'its callbacks: R1 for its lost wallet (were 404 TENANT_UNKNOWN: "check the URL")');
    const players = await fetch(`${host.url}/t/${tenant.id}/admin/players`, { headers: bearer(tenant.token) });
    const said = await players.text();
    t.equal(players.status, 503, `its admin API, with its token: 503 (was 401 "POST /tenants showed it once"): ${said}`);
    t.match(said, /lost wallet-sim's state/);
    const report = await fetch(`${host.url}/t/${tenant.id}/admin/report`, { headers: bearer(tenant.token) });
    t.equal(report.status, 503, 'its report too (it answered an empty session)');
    const listed = await fetch(`${host.url}/tenants`, { headers: asHost });
    t.equal(listed.status, 503, 'GET /tenants: 503 naming the loss (it answered [], every tenant forgotten)');
    t.match(await listed.json(), { error: 'STORE_UNREACHABLE', message: /lost wallet-sim's state/ });

    // The host's writes: each would start a registry of one, which every process follows by dropping
    // the tenants it serves as deleted (a creation did: GET /tenants then listed only the new one).
    const writes: [string, string, string?][] = [
      ['POST', '/tenants', JSON.stringify({ name: 'during-the-loss' })],
      ['POST', `/tenants/${tenant.id}/token`],
      ['DELETE', `/tenants/${tenant.id}`],
    ];
    for (const [method, path, body] of writes) {
      const res = await fetch(`${host.url}${path}`, {
        method,
        headers: body ? { ...asHost, 'content-type': 'application/json' } : asHost,
        ...(body && { body }),
      });
      t.equal(res.status, 503, `${method} ${path}: 503, nothing written`);
      t.match(await res.json(), {
        error: 'STORE_UNREACHABLE',
        message: /^Redis lost the tenant registry .*start afresh with another --redis-prefix/,
      });
    }
    t.same(await client.keys('*{tenants}*'), [], 'no registry of one begun (its records, tokens, version)');
    const still = await healthUntil((h) => h.status === 503);
    t.equal(still.body.tenants, 1, 'the tenant known is still kept');
    // An id or token the process does not know: not known to be wrong while the registry is lost.
    const strangers: [string, Record<string, string>][] = [
      [`/t/${tenant.id}/admin/players`, bearer('a-token-nobody-was-given-0123456789')],
      ['/t/AbCdEfGhIjKlMnOpQrStUv/admin/players', asHost],
    ];
    for (const [path, headers] of strangers) {
      const res = await fetch(`${host.url}${path}`, { headers });
      t.equal(res.status, 503, `${path}: 503 (it said 401 "check the token" or 404 "check the URL")`);
      t.match(await res.json(), { error: 'STORE_UNREACHABLE', message: /^Redis lost the tenant registry/ });
    }
    const again = await fetch(`${host.url}/t/${tenant.id}/admin/players`, { headers: bearer(tenant.token) });
    t.equal(again.status, 503, 'and its old token still names it (a rotation would have been lost with the registry)');
  });
}
