// Blame on the side that caused it, with a slow wallet behind two proxy processes on one Redis: a
// provider's resend answered (by the other process) before its slow first attempt is graded in the
// order the two arrived, as one process grades it (test/proxy/slow-wallet-order.test.ts). The
// wallet's lateness is WALLET_ANSWERS_IN_TIME's; no provider check fails; both processes agree.
import t from 'tap';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { bet, buildTestApp, listen, login, result, TEST_SCENARIO } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import type { Scenario } from '../../src/protocol/types.generated.js';
import {
  getJson,
  onlyTheWalletLate,
  sendCallback as send,
  SLOW_FIRST_BET,
  SLOW_FIRST_GRADING,
  startUpstream,
  UPSTREAM_SCENARIO,
} from './upstream.js';

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

// A resend sent in time waits at a slow wallet past its window's end: its arrival event is written
// only once the wallet answers. Reports asked meanwhile must not judge the window without it
// (before: LOST_REPLY_RETRIED failed, the provider blamed for the wallet's slowness).
const SLOW_BOTH: Scenario = {
  ...UPSTREAM_SCENARIO,
  rules: [
    { name: 'slow-first', when: { event_type: 'bet', user_id: 'slow' }, then: { delay_ms: 3500 }, times: 1 },
    { name: 'slow-resend', when: { event_type: 'bet', user_id: 'slow' }, then: { delay_ms: 2500 }, times: 1 },
  ],
};

t.test('a proxy on Redis: a resend in time, at a slow wallet past its window, is not judged missing', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const upstream = await startUpstream(t, SLOW_BOTH);
  const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('proxy-window') })) as RedisBackend;
  // The first attempt is lost at 3 s, its window ends at 4 s: the resend at ~3.3 s is in time, and
  // answered within the provider's 3 s (at ~5.8 s). Reports judge a second back: past 4 s from 5 s on.
  const grading = { client_timeout_s: 3, min_retry_gap_ms: 200, retry_window_s: 1, round_max_age_s: 60 };
  const proxy = { store, upstream: { url: upstream.url, timeoutMs: 30_000 } };
  const built = await buildTestApp({ ...TEST_SCENARIO, players: [], grading }, proxy);
  t.teardown(async () => {
    await built.app.close();
    await built.sim.store.close();
  });
  const base = await listen(built.app);
  const url = `${base}/callback`;

  t.equal((await send(url, login('slow')))?.code, 'R0');
  const stake = bet('slow', 'g1', [['1', 'P', 10]], usd);
  t.equal(await send(url, stake, 3000), undefined, 'the first attempt times out at the client (3 s)');
  await new Promise((resolve) => setTimeout(resolve, 300)); // its back-off
  let answered = false;
  const resend = send(url, stake, 3000).then((reply) => ((answered = true), reply));
  // Until the resend is answered, every report: the window open, never failed.
  const seen = new Set<string>();
  while (!answered) {
    const checks = (await getJson(base, '/admin/report')).checks as { id: string; status: string }[];
    seen.add(checks.find((c) => c.id === 'LOST_REPLY_RETRIED')!.status);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.equal((await resend)?.code, 'R0', 'the resend is answered within the time-out');
  t.notOk(seen.has('fail'), `LOST_REPLY_RETRIED while the resend was at the wallet: ${[...seen].join(', ')}`);
  t.equal((await send(url, result('slow', 'g1', [['1', 'P', 10, 5]], usd)))?.code, 'R0');
  await onlyTheWalletLate(t, base);
});
