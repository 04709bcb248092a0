// A wallet closed on Redis (hosted mode: its tenant deleted and its keys swept) writes nothing more
// for a callback still being decided: its counts and rule counters refuse with the reason, and no
// key under its prefix comes back.
import t from 'tap';
import { Redis } from 'ioredis';
import { RedisHub } from '../../src/backends/redis/hub.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

t.test('after close: no count, no rule counter, no key', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const prefix = uniquePrefix('closed');
  // On a hub, as hosted mode opens a tenant's wallet: the connection stays open after the wallet closes.
  const hub = await RedisHub.open(redis.url, [`${prefix}*`], 5000);
  t.teardown(() => hub.close());
  const backend = await hub.backend(prefix);
  const admin = new Redis(redis.url);
  t.teardown(() => admin.disconnect());
  const counters = backend.counters;
  await counters.countCall('p1');
  t.ok((await admin.keys(`${prefix}*calls`)).length, 'counted while open');
  await backend.close();
  const before = (await admin.keys(`${prefix}*`)).sort();
  await t.rejects(counters.countCall('p2'), /wallet was closed/, 'a count refused, saying why');
  await t.rejects(counters.countCall('p3', true), /wallet was closed/, 'an unread count too');
  await t.rejects(counters.rules.match([0]), /wallet was closed/, 'a rule match refused');
  await t.rejects(counters.rules.fire(0, 1), /wallet was closed/, 'a rule firing refused');
  t.same((await admin.keys(`${prefix}*`)).sort(), before, 'no key written since');
});
