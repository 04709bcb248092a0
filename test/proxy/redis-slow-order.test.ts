// Blame on the side that caused it, with a slow wallet behind two proxy processes on one Redis: a
// provider's resend answered (by the other process) before its slow first attempt is graded in the
// order the two arrived, as one process grades it (test/proxy/slow-wallet-order.test.ts). The
// wallet's lateness is WALLET_ANSWERS_IN_TIME's; no provider check fails; both processes agree.
import t from 'tap';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { bet, buildTestApp, listen, login, result, TEST_SCENARIO } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { onlyTheWalletLate, sendCallback as send, SLOW_FIRST_BET, SLOW_FIRST_GRADING, startUpstream } from './upstream.js';

const usd = { currency: 'USD' };

t.test('two proxies on one Redis: a resend answered before its slow first attempt; the wallet is late', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const upstream = await startUpstream(t, SLOW_FIRST_BET);
  const prefix = uniquePrefix('proxy-order');
  const proxies: { base: string; url: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix })) as RedisBackend;
    const built = await buildTestApp(
      { ...TEST_SCENARIO, players: [], grading: SLOW_FIRST_GRADING },
      { store, upstream: { url: upstream.url, timeoutMs: 30_000 } },
    );
    t.teardown(async () => {
      await built.app.close();
      await built.sim.store.close();
    });
    const base = await listen(built.app);
    proxies.push({ base, url: `${base}/callback` });
  }
  const [a, b] = proxies as [(typeof proxies)[0], (typeof proxies)[0]];

  t.equal((await send(a.url, login('slow')))?.code, 'R0');
  const stake = bet('slow', 'g1', [['1', 'P', 10]], usd);
  t.equal(await send(a.url, stake, 1000), undefined, 'the first attempt times out at the client (1 s)');
  await new Promise((resolve) => setTimeout(resolve, 300)); // its back-off
  t.equal((await send(b.url, stake))?.code, 'R0', 'the resend, through the other process, answered while the first is still at the wallet');
  t.equal((await send(b.url, result('slow', 'g1', [['1', 'P', 10, 5]], usd)))?.code, 'R0');

  // Once the slow first attempt is answered too (1.5 s) and graded, by both processes alike.
  for (const p of [a, b]) await onlyTheWalletLate(t, p.base);
});
