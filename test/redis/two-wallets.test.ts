// docs/scale-out.md: two wallet-sim processes (two simulators and apps over real sockets,
// each with its own Redis connection) sharing one Redis act as one wallet.
import t, { type Test } from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import type { JournalStore } from '../../src/journal/journal.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, listen, login, post, type Sent, TEST_SCENARIO, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/spawn-cli.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { startCluster } from '../helpers/redis-cluster.js';

const redis = await redisOrSkip(t);
if (redis) {
  // A single Redis; and, in the full matrix (npm run test:full), a three-master Redis Cluster (--redis-cluster).
  const targets: [string, { redisUrl?: string; redisCluster?: string }][] = [['', { redisUrl: redis.url }]];
  if (process.env.WALLET_SIM_FULL_MATRIX) targets.push([' (Redis Cluster)', { redisCluster: (await startCluster(t)).nodes }]);
  for (const [label, where] of targets) {
    /** Two wallets on one Redis prefix; `call(i)` posts to one or the other. */
    async function twoWallets(t: Test, scenario: object = {}) {
      const prefix = uniquePrefix('two');
      const wallets: (TestApp<JournalStore> & { base: string })[] = [];
      for (let i = 0; i < 2; i++) {
        const store = (await openBackend('redis', { ...where, redisPrefix: prefix })) as RedisBackend;
        const built = await buildTestApp({ players: [{ user_id: 'racer', balance: 1000, currency: 'USD' }], ...scenario }, { store });
        t.teardown(async () => {
          await built.app.close();
          await built.sim.store.close();
        });
        wallets.push({ ...built, base: await listen(built.app) });
      }
      const call = (i: number, payload: object): Promise<Sent> => post(`${wallets[i % 2]!.base}/callback`, payload);
      return { wallets, call };
    }

    t.test(`200 concurrent bets of 10 against 1,000 split across both: exactly 100 R0, balance 0 on both${label}`, async (t) => {
      const { wallets, call } = await twoWallets(t);
      const replies = await Promise.all(
        Array.from({ length: 200 }, (_, i) => call(i, bet('racer', `g${i}`, [['1', 'P', 10]], { currency: 'USD' }))),
      );
      const codes = replies.map((r) => r.body.code);
      t.equal(codes.filter((c) => c === 'R0').length, 100, 'exactly 100 R0');
      // The rest R4; on a saturated machine a bet may still meet other processes' commits after its
      // last attempt and be answered R1 (nothing applied, the provider retries): never an R0 too many.
      const others = codes.filter((c) => c !== 'R0');
      t.same(
        [...new Set(others)].filter((c) => c !== 'R4' && c !== 'R1'),
        [],
        'the rest R4 (or R1: retry)',
      );
      t.ok(others.filter((c) => c === 'R4').length >= 90, 'nearly all R4');
      for (const w of wallets) t.equal((await w.sim.store.player('racer'))?.balance.toFixed(), '0', 'balance 0 seen from each wallet');
      const r0 = replies
        .filter((r) => r.body.code === 'R0')
        .map((r) => r.body.latest_balance)
        .sort((a, b) => a - b);
      t.same(
        r0,
        Array.from({ length: 100 }, (_, i) => i * 10),
        'each R0 saw a distinct balance: no two debits read the same one',
      );
    });

    t.test(`30 copies of one transaction split across both: one debit${label}`, async (t) => {
      const { wallets, call } = await twoWallets(t);
      const one = bet(
        'racer',
        'copied',
        [
          ['1', 'P', 10],
          ['2', 'B', 2.5],
        ],
        { currency: 'USD' },
      );
      const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => call(i, { ...one, timestamp: one.timestamp + (i % 3) })));
      t.same(
        replies.map((r) => r.body.code),
        Array(30).fill('R0'),
        'all R0',
      );
      t.same(
        replies.map((r) => r.body.latest_balance),
        Array(30).fill(987.5),
        'all report the balance after the single debit',
      );
      t.equal((await wallets[1]!.sim.store.player('racer'))?.balance.toFixed(), '987.5', 'debited once');
    });

    t.test(`a transaction_id another player's callback applied: R3 on either process, cached or not${label}`, async (t) => {
      const { wallets, call } = await twoWallets(t);
      const placed = bet('racer', 'mine', [['1', 'P', 10]], { currency: 'USD' });
      t.equal((await call(0, placed)).body.code, 'R0');
      const theirs = (game: string) => ({
        ...bet('other', game, [['1', 'P', 10]], { currency: 'USD' }),
        transaction_id: placed.transaction_id,
      });
      t.equal((await call(1, theirs('g1'))).body.code, 'R3', 'a player not served yet (read from Redis)');
      t.equal((await call(1, bet('other', 'g2', [['1', 'P', 10]], { currency: 'USD' }))).body.code, 'R0');
      t.equal((await call(1, theirs('g3'))).body.code, 'R3', 'a player served (decided on its cached records)');
      t.equal((await wallets[0]!.sim.store.player('other'))?.balance.toFixed(), '990', 'only its own bet applied');
    });

    t.test(`a times: 1 rule fires once across both${label}`, async (t) => {
      const { wallets, call } = await twoWallets(t, {
        rules: [{ name: 'once', when: { event_type: 'bet' }, then: { code: 'R1' }, times: 1 }],
      });
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(i, bet('racer', `r${i}`, [['1', 'P', 1]], { currency: 'USD' }))),
      );
      t.equal(replies.filter((r) => r.body.code === 'R1').length, 1, 'one R1 among 20 bets on two wallets');
      t.equal(replies.filter((r) => r.body.code === 'R0').length, 19);
      for (const w of wallets) {
        const hits = await (await fetch(`${w.base}/admin/scenario/rules`)).json();
        t.match(hits, [{ name: 'once', matched: 20, fired: 1, exhausted: true }], 'each wallet reports the shared counters');
      }
    });

    t.test(`the journal of one lists what the other served; the report sees both${label}`, async (t) => {
      const { wallets, call } = await twoWallets(t);
      const first = bet('racer', 'j1', [['1', 'P', 1]], { currency: 'USD' });
      const second = bet('racer', 'j2', [['1', 'P', 1]], { currency: 'USD' });
      await call(0, first);
      await call(1, second);
      for (const [i, w] of wallets.entries()) {
        const page = await (await fetch(`${w.base}/admin/journal`)).json();
        t.same(
          page.entries.map((e: { transaction_id: string }) => e.transaction_id),
          [first.transaction_id, second.transaction_id],
          `wallet ${i} lists both, in arrival order`,
        );
      }
      // The live stream (/admin/events, the dashboard) of one shows what the other serves.
      const seen: string[] = [];
      const unsubscribe = wallets[0]!.sim.journal.subscribe((e) => {
        if (e.transaction_id) seen.push(e.transaction_id);
      });
      t.teardown(unsubscribe);
      const third = bet('racer', 'j3', [['1', 'P', 1]], { currency: 'USD' });
      await call(1, third);
      t.ok(
        await eventually(async () => seen.includes(third.transaction_id), 10_000),
        'a subscriber of one wallet hears of a callback the other served',
      );
      const report = await (await fetch(`${wallets[0]!.base}/admin/report`)).json();
      t.equal(report.open_rounds.length, 3, 'the report of one grades the rounds opened through both');
    });

    t.test(`PUT /admin/scenario on one changes both; POST /admin/reset resets both${label}`, async (t) => {
      const { wallets, call } = await twoWallets(t);
      const put = await fetch(`${wallets[0]!.base}/admin/scenario`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ...TEST_SCENARIO,
          name: 'switched',
          players: [{ user_id: 'racer', balance: 1000, currency: 'USD' }],
          rules: [{ when: { event_type: 'login' }, then: { code: 'R4' } }],
        }),
      });
      t.equal(put.status, 200);
      t.ok(
        await eventually(async () => (await (await fetch(`${wallets[1]!.base}/admin/scenario`)).json()).name === 'switched', 5_000),
        'the other wallet has it within seconds',
      );
      t.equal((await call(1, login('racer'))).body.code, 'R4', 'and applies its rules');

      await call(0, bet('racer', 'before-reset', [['1', 'P', 100]], { currency: 'USD' }));
      t.equal((await wallets[1]!.sim.store.player('racer'))?.balance.toFixed(), '900');
      t.equal((await fetch(`${wallets[1]!.base}/admin/reset`, { method: 'POST' })).status, 200);
      t.equal((await wallets[0]!.sim.store.player('racer'))?.balance.toFixed(), '1000', 'the ledger is back to the scenario for both');
      t.same((await (await fetch(`${wallets[0]!.base}/admin/journal`)).json()).entries, [], 'the journal is empty for both');
      t.equal(
        (await call(0, bet('racer', 'before-reset', [['1', 'P', 100]], { currency: 'USD' }))).body.code,
        'R0',
        'a round of before the reset is new again',
      );
    });

    t.test(`callbacks racing on the other process right after a reset land in the new ledger, never the old one${label}`, async (t) => {
      const { wallets, call } = await twoWallets(t);
      for (let round = 0; round < 3; round++) {
        await call(0, login('racer')); // (wallet 0 works on the current generation)
        t.equal((await fetch(`${wallets[1]!.base}/admin/reset`, { method: 'POST' })).status, 200);
        // Wallet 0 learns of the reset from the first of these to read Redis; the others were built on the old generation.
        const players = Array.from({ length: 20 }, (_, i) => `fresh-${round}-${i}`);
        const replies = await Promise.all(players.map((p) => call(0, bet(p, 'g', [['1', 'P', 10]], { currency: 'USD' }))));
        for (const [i, p] of players.entries()) {
          if (replies[i]!.body.code !== 'R0') continue; // (an R1 "kept changing" is a provider's retry: nothing applied)
          t.equal(
            (await wallets[1]!.sim.store.player(p))?.balance.toFixed(),
            '990',
            `${p}: the R0 bet is in the ledger the other process reads`,
          );
        }
        t.ok(replies.filter((r) => r.body.code === 'R0').length >= 15, 'nearly all applied');
      }
    });
  }
}
