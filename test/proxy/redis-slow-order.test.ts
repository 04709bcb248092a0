// Blame on the side that caused it, with a slow wallet behind two proxy processes on one Redis: a
// provider's resend answered (by the other process) before its slow first attempt is graded in the
// order the two arrived, as one process grades it (test/proxy/slow-wallet-order.test.ts). The
// wallet's lateness is WALLET_ANSWERS_IN_TIME's; no provider check fails; both processes agree.
import t from 'tap';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { bet, buildTestApp, HEADERS, listen, login, result, TEST_SCENARIO } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { getJson, startUpstream, UPSTREAM_SCENARIO } from './upstream.js';

const usd = { currency: 'USD' };
interface Check {
  id: string;
  side: string;
  status: string;
  violations: { message: string }[];
}

t.test('two proxies on one Redis: a resend answered before its slow first attempt; the wallet is late', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const upstream = await startUpstream(t, {
    ...UPSTREAM_SCENARIO,
    rules: [{ name: 'slow-first', when: { event_type: 'bet', user_id: 'slow' }, then: { delay_ms: 1500 }, times: 1 }],
  });
  const grading = { client_timeout_s: 1, min_retry_gap_ms: 200, retry_window_s: 5, round_max_age_s: 60 };
  const prefix = uniquePrefix('proxy-order');
  const proxies: { base: string; url: string }[] = [];
  for (let i = 0; i < 2; i++) {
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix })) as RedisBackend;
    const built = await buildTestApp(
      { ...TEST_SCENARIO, players: [], grading },
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
  const send = (url: string, body: object, timeoutMs = 5000) =>
    fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) })
      .then((r) => r.json() as Promise<{ code: string }>)
      .catch(() => undefined);

  t.equal((await send(a.url, login('slow')))?.code, 'R0');
  const stake = bet('slow', 'g1', [['1', 'P', 10]], usd);
  t.equal(await send(a.url, stake, 1000), undefined, 'the first attempt times out at the client (1 s)');
  await new Promise((resolve) => setTimeout(resolve, 300)); // its back-off
  t.equal((await send(b.url, stake))?.code, 'R0', 'the resend, through the other process, answered while the first is still at the wallet');
  t.equal((await send(b.url, result('slow', 'g1', [['1', 'P', 10, 5]], usd)))?.code, 'R0');

  // Once the slow first attempt is answered too (1.5 s) and graded, by both processes.
  for (const p of [a, b]) {
    let checks: Check[] = [];
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
      checks = (await getJson(p.base, '/admin/report')).checks as Check[];
      if (checks.find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')?.status === 'fail') break;
    }
    const failed = checks.filter((c) => c.status === 'fail');
    t.same(
      failed.map((c) => [c.side, c.id]),
      [['wallet', 'WALLET_ANSWERS_IN_TIME']],
      `only the wallet's lateness: ${JSON.stringify(failed.map((c) => c.violations[0]?.message))}`,
    );
    for (const id of ['NO_PREMATURE_RETRY', 'RETRY_BACKOFF', 'LOST_REPLY_RETRIED'])
      t.notMatch(JSON.stringify(checks.find((c) => c.id === id)), /-\d+ ms/, `${id}: no negative gap`);
  }
});
