// DESIGN.md "Scale-out": two wallet-sim processes (two simulators and apps over real sockets,
// each with its own Redis connection) sharing one Redis act as one wallet.
import t, { type Test } from 'tap';
import { createStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/store.js';
import { bet, buildTestApp, listen, post, type Sent, type TestApp } from '../helpers/app.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';

const missing = redisMissing();
if (missing) {
  t.comment(missing);
  t.pass('skipped: no redis-server');
} else {
  const redis = await startRedis(t);

  /** Two wallets on one Redis prefix; `call(i)` posts to one or the other. */
  async function twoWallets(t: Test, scenario: object = {}) {
    const prefix = uniquePrefix('two');
    const wallets: (TestApp & { base: string })[] = [];
    for (let i = 0; i < 2; i++) {
      const store = (await createStore('redis', undefined, { redisUrl: redis.url, redisPrefix: prefix })) as Store;
      const built = await buildTestApp({ players: [{ user_id: 'racer', balance: 1000, currency: 'USD' }], ...scenario }, { store });
      t.teardown(async () => { await built.app.close(); await built.sim.store.close(); });
      wallets.push({ ...built, base: await listen(built.app) });
    }
    const call = (i: number, payload: object): Promise<Sent> => post(`${wallets[i % 2]!.base}/callback`, payload);
    return { wallets, call };
  }

  t.test('200 concurrent bets of 10 against 1,000 split across both: exactly 100 R0, balance 0 on both', async (t) => {
    const { wallets, call } = await twoWallets(t);
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i, bet('racer', `g${i}`, [['1', 'P', 10]], { currency: 'USD' }))));
    const codes = replies.map((r) => r.body.code);
    t.equal(codes.filter((c) => c === 'R0').length, 100, 'exactly 100 R0');
    t.equal(codes.filter((c) => c === 'R4').length, 100, 'the rest R4');
    for (const w of wallets) t.equal((await w.sim.store.player('racer'))?.balance.toFixed(), '0', 'balance 0 seen from each wallet');
    const r0 = replies.filter((r) => r.body.code === 'R0').map((r) => r.body.latest_balance).sort((a, b) => a - b);
    t.same(r0, Array.from({ length: 100 }, (_, i) => i * 10), 'each R0 saw a distinct balance: no two debits read the same one');
  });

  t.test('30 copies of one transaction split across both: one debit', async (t) => {
    const { wallets, call } = await twoWallets(t);
    const one = bet('racer', 'copied', [['1', 'P', 10], ['2', 'B', 2.5]], { currency: 'USD' });
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => call(i, { ...one, timestamp: one.timestamp + (i % 3) })));
    t.same(replies.map((r) => r.body.code), Array(30).fill('R0'), 'all R0');
    t.same(replies.map((r) => r.body.latest_balance), Array(30).fill(987.5), 'all report the balance after the single debit');
    t.equal((await wallets[1]!.sim.store.player('racer'))?.balance.toFixed(), '987.5', 'debited once');
  });
}
