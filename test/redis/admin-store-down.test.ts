// docs/redis-failures.md: while Redis is down or frozen, every admin read answers 503
// STORE_UNREACHABLE with the reason (before: 500 INTERNAL "unexpected error (Stream isn't writeable
// …)" or "(Command timed out)" from the journal's, the report's, the ledger's reads).
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { ReplyError } from 'ioredis';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, send } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const READS = ['/admin/journal', '/admin/report', '/admin/players', '/admin/players/p1', '/admin/ledger'];

async function refused(t: Test, app: FastifyInstance, reason: RegExp) {
  for (const url of READS) {
    const r = await app.inject({ method: 'GET', url });
    t.equal(r.statusCode, 503, `${url}: 503`);
    t.match(r.json(), { error: 'STORE_UNREACHABLE', message: reason }, `${url}: the reason`);
  }
}

const redis = await redisOrSkip(t);
if (redis) {
  const store = (await openBackend('redis', {
    redisUrl: redis.url,
    redisPrefix: uniquePrefix('admin-down'),
    redisTimeoutMs: 500,
  })) as RedisBackend;
  const { app } = await buildTestApp({ players: [{ user_id: 'p1', balance: 100, currency: 'USD' }] }, { store });
  t.teardown(async () => {
    await app.close();
    await store.close();
  });
  t.match((await send(app, bet('p1', 'g1', [['1', 'P', 10]], { currency: 'USD' }))).body, { code: 'R0' });

  t.test('frozen (SIGSTOP): 503 naming the time-out', async (t) => {
    redis.signal('SIGSTOP');
    t.teardown(() => redis.signal('SIGCONT'));
    // (the first read waits for its time-out; each names Redis, not an unexpected error)
    await refused(t, app, /^Redis at redis:\/\/127\.0\.0\.1:\d+ (does not answer|is unreachable \(Command timed out)/);
  });

  t.test('down (killed): 503 naming Redis', async (t) => {
    await redis.kill();
    // (the reason the frozen Redis left may still stand if no command reached it since SIGCONT)
    await refused(t, app, /^Redis at redis:\/\/127\.0\.0\.1:\d+ (is unreachable|does not answer)/);
  });

  t.test('CLUSTERDOWN and errors that are not Redis being away', async (t) => {
    t.match(
      store.unavailable(new ReplyError('CLUSTERDOWN The cluster is down')),
      /^Redis at redis:\/\/.* answers "CLUSTERDOWN The cluster is down" .*until its slot is served again/,
    );
    t.equal(store.unavailable(new ReplyError('ERR wrong number of arguments')), undefined, "Redis's answer to a command");
    t.equal(store.unavailable(new TypeError('x is not a function')), undefined, 'a bug');
  });
}
