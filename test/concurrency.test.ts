// docs/design.md "Concurrency" and "Idempotency": simultaneous callbacks never interleave their
// read-modify-write, the balance never goes negative, and 30 copies of one transaction debit once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skip } from './helpers/required.js';
import t from 'tap';
import type { JournalStore } from '../src/journal/journal.js';
import type { Simulator } from '../src/core/simulator.js';
import { openBackend } from '../src/app/stores.js';
import type { RedisStore } from '../src/backends/redis/redis-store.js';
import type { Backend } from '../src/backends/backend.js';
import { bet, buildTestApp, journal, listen, post, result, send, type Sent, type TestApp } from './helpers/app.js';
import { redisMissing, startRedis, uniquePrefix } from './helpers/redis.js';
import { startCluster } from './helpers/redis-cluster.js';

type Transport = (built: TestApp<JournalStore>) => Promise<(payload: object) => Promise<Sent>>;

const transports: [string, Transport][] = [
  [
    'app.inject',
    async ({ app }) =>
      (payload) =>
        send(app, payload),
  ],
  [
    'a real socket',
    async ({ app }) => {
      const base = await listen(app);
      return (payload) => post(`${base}/callback`, payload);
    },
  ],
];

const stores: [string, () => { store: Promise<Backend>; cleanup: () => void }][] = [
  ['memory store', () => ({ store: openBackend('memory'), cleanup: () => {} })],
  [
    'file store',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-concurrency-'));
      return {
        store: openBackend('file', { data: join(dir, 'wallet.json') }),
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
];

// The same suite against the redis store, on a redis-server of this file's own.
const missing = redisMissing();
if (missing) skip(t, 'the redis store concurrency suite', missing);
else {
  const redis = await startRedis(t);
  stores.push([
    'redis store',
    () => ({
      store: openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('concurrency') }),
      cleanup: () => {},
    }),
  ]);
  // And on a three-master Redis Cluster (--redis-cluster): in the full matrix (npm run test:full).
  if (process.env.WALLET_SIM_FULL_MATRIX) {
    const cluster = await startCluster(t);
    stores.push([
      'redis store on a cluster',
      () => ({ store: openBackend('redis', { redisCluster: cluster.nodes, redisPrefix: uniquePrefix('concurrency') }), cleanup: () => {} }),
    ]);
  }
}

/** A balance as the store holds it, whatever the store. */
const balanceOf = async (sim: Simulator, user: string) => (await sim.store.player(user))?.balance.toFixed();
const openRounds = async (sim: Simulator) => (sim.backend.state ? sim.state.rounds.size : (sim.store as RedisStore).openRounds());

const BALANCE = 1000;
const AMOUNT = 7.5;
const BETS = 200;

for (const [transportName, transport] of transports) {
  for (const [storeName, makeStore] of stores) {
    t.test(`${transportName}, ${storeName}`, async (t) => {
      const { store, cleanup } = makeStore();
      const built = await buildTestApp({ players: [{ user_id: 'racer', balance: BALANCE, currency: 'USD' }] }, { store: await store });
      t.teardown(async () => {
        await built.app.close();
        await built.sim.backend.close();
        cleanup();
      });
      const call = await transport(built);

      t.test(`${BETS} concurrent bets on a balance that covers only some`, async (t) => {
        const requests = Array.from({ length: BETS }, (_, i) => bet('racer', `race-${i}`, [['1', 'P', AMOUNT]], { currency: 'USD' }));
        const replies = await Promise.all(requests.map((r) => call(r)));
        t.ok(
          replies.every((r) => r.status === 200),
          'every reply is HTTP 200',
        );
        const codes = replies.map((r) => r.body.code);
        const accepted = codes.filter((c) => c === 'R0').length;
        const expected = Math.floor(BALANCE / AMOUNT); // 133
        t.equal(accepted, expected, `exactly floor(${BALANCE} / ${AMOUNT}) = ${expected} bets accepted`);
        t.equal(codes.filter((c) => c === 'R4').length, BETS - expected, 'the rest get R4');
        t.same([...new Set(codes)].sort(), ['R0', 'R4'], 'no other code');
        const final = BALANCE - expected * AMOUNT; // 2.5
        t.equal(await balanceOf(built.sim, 'racer'), String(final), `balance ${BALANCE} − ${expected} × ${AMOUNT} = ${final}`);
        t.ok(
          replies.every((r) => r.body.latest_balance >= 0),
          'no reply reports a negative balance',
        );
        const r0Balances = replies
          .filter((r) => r.body.code === 'R0')
          .map((r) => r.body.latest_balance)
          .sort((a, b) => b - a);
        t.same(
          r0Balances,
          Array.from({ length: expected }, (_, i) => BALANCE - (i + 1) * AMOUNT),
          'each R0 saw a distinct balance: no two debits read the same one',
        );
        t.ok(
          replies.filter((r) => r.body.code === 'R4').every((r) => r.body.latest_balance < AMOUNT),
          'each R4 reports a balance short of the bet',
        );
        t.equal(await openRounds(built.sim), expected, 'a round only for each accepted bet');
      });

      t.test('30 concurrent copies of one transaction: all R0, one debit', async (t) => {
        await built.sim.setPlayer('copies', built.sim.config.defaultBalance, 'USD');
        const one = bet(
          'copies',
          'copied',
          [
            ['1', 'P', 10],
            ['2', 'B', 2.5],
          ],
          { currency: 'USD' },
        );
        const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => call({ ...one, timestamp: one.timestamp + (i % 3) })));
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
        t.equal(await balanceOf(built.sim, 'copies'), '987.5', 'debited once');
        const entries = await journal(built.app, { transaction_id: one.transaction_id });
        t.equal(entries.length, 30);
        t.equal(entries.filter((e) => !e.replayed).length, 1, 'one applied, 29 replayed');
      });

      t.test('concurrent bets and settlements of many players stay exact', async (t) => {
        const players = Array.from({ length: 20 }, (_, i) => `p${i}`);
        for (const p of players) await built.sim.setPlayer(p, built.sim.config.defaultBalance, 'USD');
        const amounts = [0.1, 0.2, 0.3];
        const bets = players.flatMap((p) => amounts.map((a) => bet(p, `g${a}`, [['1', 'P', a]], { currency: 'USD' })));
        t.ok(
          (await Promise.all(bets.map((b) => call(b)))).every((r) => r.body.code === 'R0'),
          'all bets accepted',
        );
        const settles = players.flatMap((p) => amounts.map((a) => result(p, `g${a}`, [['1', 'P', a, 0.2]], { currency: 'USD' })));
        t.ok(
          (await Promise.all(settles.map((s) => call(s)))).every((r) => r.body.code === 'R0'),
          'all settlements accepted',
        );
        // 1000 − (0.1 + 0.2 + 0.3) + (0.1 + 0.2 + 0.3) + 3 × 0.2 = 1000.6
        t.same(await Promise.all(players.map((p) => balanceOf(built.sim, p))), Array(players.length).fill('1000.6'), 'every balance exact');
      });
    });
  }
}
