// Review of the Redis Cluster path (docs/scale-out.md, "Redis Cluster"): what a crash or a race
// between its steps leaves, checked against what the single-Redis script guarantees. Each subtest
// states the guarantee; the state a crash leaves is made by failing the step that would follow it.
import t, { type Test } from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { hashTag, KeyLayout } from '../../src/backends/redis/keys.js';
import type { JournalStore } from '../../src/journal/journal.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, login, send, type TestApp } from '../helpers/app.js';
import { clusterOrSkip } from '../helpers/redis-cluster.js';
import { ledgerKeys, uniquePrefix } from '../helpers/redis.js';
import { eventually } from '../helpers/spawn-cli.js';
import { Redis } from 'ioredis';

type Wallet = TestApp<JournalStore> & { store: RedisBackend };
type Call = (...args: unknown[]) => Promise<unknown>;

const cluster = await clusterOrSkip(t);
if (cluster) {
  const USD = { currency: 'USD' };
  const players = ['p0', 'p1', 'p2'].map((user_id) => ({ user_id, balance: 300, currency: 'USD' }));

  async function openStore(prefix: string): Promise<RedisBackend> {
    return (await openBackend('redis', { redisCluster: cluster!.nodes, redisPrefix: prefix })) as RedisBackend;
  }

  async function wallet(t: Test, prefix: string, store?: RedisBackend): Promise<Wallet> {
    const s = store ?? (await openStore(prefix));
    const w = await buildTestApp({ players }, { store: s });
    t.teardown(async () => {
      await w.app.close();
      await s.close();
    });
    return { ...w, store: s };
  }

  /** Makes `name` of the store's client fail (what a process dying there leaves) while `when` holds. */
  function failing(store: RedisBackend, name: 'call' | 'walletSessionCommit', when: (args: unknown[]) => boolean): () => void {
    const client = store.client as unknown as Record<string, Call>;
    const original = client[name]!.bind(client);
    client[name] = (...args: unknown[]) => (when(args) ? Promise.reject(new Error('simulated death')) : original(...args));
    return () => void (client[name] = original);
  }

  t.test("a player listed but gone (its master lost it): the other players' callbacks still R0", async (t) => {
    const prefix = uniquePrefix('gone');
    const w = await wallet(t, prefix);
    // What p0's master restarted without persistence leaves: p0 listed, its record gone.
    await w.store.client.del((await ledgerKeys(w.store.client, prefix)).player('p0'));
    t.equal((await send(w.app, bet('p0', 'g1', [['1', 'P', 1]], USD))).body.code, 'R1', 'p0: R1 (lost)');
    const other = await send(w.app, bet('p1', 'g1', [['1', 'P', 1]], USD));
    t.equal(other.body.code, 'R0', `p1 (its records whole): R0 (${String(other.headers['x-wallet-sim-reason'])})`);
    // The same, p0's and p1's callbacks at once (several processes' traffic: p0's keeps coming).
    const [, ...others] = await Promise.all([
      send(w.app, bet('p0', 'g2', [['1', 'P', 1]], USD)),
      ...[3, 4, 5, 6].map((i) => send(w.app, bet('p1', `g${i}`, [['1', 'P', 1]], USD))),
    ]);
    const codes = others.map((r) => `${r.body.code} ${String(r.headers['x-wallet-sim-reason'] ?? '')}`);
    t.same(
      others.map((r) => r.body.code),
      ['R0', 'R0', 'R0', 'R0'],
      `p1 beside p0's callback: R0 (${codes.join('; ')})`,
    );
  });

  t.test('PUT /admin/players of a new player, the process gone between its two writes: no lost state', async (t) => {
    const prefix = uniquePrefix('put');
    const w = await wallet(t, prefix);
    const key = (await ledgerKeys(w.store.client, prefix)).player('newbie');
    const restore = failing(w.store, 'call', (args) => args[0] === 'SET' && args[1] === key);
    const put = await w.app.inject({ method: 'PUT', url: '/admin/players/newbie', payload: { balance: 5 } });
    restore();
    t.not(put.statusCode, 200, 'the PUT not acknowledged');
    const next = await send(w.app, login('newbie'));
    t.not(next.body.code, 'R1', `newbie's login after it: not R1 (${String(next.headers['x-wallet-sim-reason'])})`);
    const again = await w.app.inject({ method: 'PUT', url: '/admin/players/newbie', payload: { balance: 5 } });
    t.equal(again.statusCode, 200, 'the PUT retried');
  });

  t.test("a seed in flight on one process: another's callbacks are not told the state is lost", async (t) => {
    const prefix = uniquePrefix('seeding');
    const storeA = await openStore(prefix);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = false;
    const client = storeA.client as unknown as Record<string, Call>;
    const call = client.call!.bind(client);
    // A's player records land late (many players, a loaded master): held until B has served.
    client.call = async (...args: unknown[]) => {
      if (args[0] === 'SET' && String(args[1]).includes('{p:')) {
        held = true;
        await gate;
      }
      return call(...args);
    };
    const a = wallet(t, prefix, storeA);
    t.ok(await eventually(async () => held, 15_000), "A's seed under way (its first record's write held)");
    try {
      const b = await wallet(t, prefix);
      const reply = await send(b.app, bet('p0', 'g1', [['1', 'P', 10]], USD));
      t.not(reply.body.code, 'R1', `B's bet of a seeded player: not R1 (${String(reply.headers['x-wallet-sim-reason'])})`);
      t.match(reply.body, { code: 'R0', latest_balance: 290 }, 'from the seeded balance');
    } finally {
      open();
    }
    // A's seed, done after B's: it follows the ledger B serves, never replaces it.
    const late = await a;
    t.match((await send(late.app, bet('p0', 'g2', [['1', 'P', 10]], USD))).body, { code: 'R0', latest_balance: 280 }, 'A: 300 − 10 − 10');
  });

  t.test("step 3 failed after the player's script (process gone, or no reply): the bet is in the ledger after its resend", async (t) => {
    const prefix = uniquePrefix('unordered');
    const w = await wallet(t, prefix);
    const placed = bet('p2', 'g1', [['1', 'P', 10]], USD);
    const restore = failing(w.store, 'walletSessionCommit', () => true);
    t.equal((await send(w.app, placed)).body.code, 'R1', 'not acknowledged');
    restore();
    t.match((await send(w.app, placed)).body, { code: 'R0', latest_balance: 290 }, 'its resend: R0, applied once');
    const ledger = await w.app.inject({ method: 'GET', url: '/admin/ledger' });
    const ids = (ledger.json() as { transaction_id: string }[]).map((r) => r.transaction_id);
    t.ok(ids.includes(placed.transaction_id), `GET /admin/ledger lists the applied bet (listed: ${ids.join(', ') || 'none'})`);
    // Its resends from now on (this process, and another reading afresh) replay, never list it again.
    const other = await wallet(t, prefix);
    for (const app of [w.app, other.app]) t.match((await send(app, placed)).body, { code: 'R0', latest_balance: 290 }, 'replayed');
    const again = (await w.app.inject({ method: 'GET', url: '/admin/ledger' })).json() as { transaction_id: string }[];
    t.equal(again.filter((r) => r.transaction_id === placed.transaction_id).length, 1, 'listed once');
    // Another bet's step 3 failed the same way, its resends on both processes at once: listed once.
    const next = bet('p2', 'g2', [['1', 'P', 10]], USD);
    const stop = failing(w.store, 'walletSessionCommit', () => true);
    t.equal((await send(w.app, next)).body.code, 'R1', 'not acknowledged');
    stop();
    const both = await Promise.all([send(w.app, next), send(other.app, next)]);
    t.same(
      both.map((r) => [r.body.code, r.body.latest_balance]),
      [
        ['R0', 280],
        ['R0', 280],
      ],
      'both resends: R0, applied once',
    );
    const listed = (await other.app.inject({ method: 'GET', url: '/admin/ledger' })).json() as { transaction_id: string }[];
    t.equal(
      listed.filter((r) => r.transaction_id === next.transaction_id).length,
      1,
      `listed once (${JSON.stringify(listed.filter((r) => r.transaction_id === next.transaction_id))})`,
    );
  });

  t.test("the session's master lost, a process started after: no record of the old ledger in the new one", async (t) => {
    const prefix = uniquePrefix('revived');
    const first = await wallet(t, prefix);
    t.match((await send(first.app, login('newcomer'))).body, { code: 'R0', latest_balance: 1000 });
    t.match((await send(first.app, bet('newcomer', 'g1', [['1', 'P', 10]], USD))).body, { code: 'R0', latest_balance: 990 });
    // The session's master restarted without persistence: every key of the session's tag gone.
    const layout = new KeyLayout(prefix);
    const node = await cluster!.serverOf(layout.gen);
    const direct = new Redis(node.port, '127.0.0.1');
    try {
      const keys = (await direct.keys(`${prefix}*`)).filter((k) => hashTag(k) === prefix);
      t.ok(keys.length > 0, 'the session had keys');
      await direct.del(...keys);
    } finally {
      direct.disconnect();
    }
    const later = await wallet(t, prefix); // a wallet-sim process (re)started now
    const reply = await send(later.app, bet('newcomer', 'g2', [['1', 'P', 10]], USD));
    t.ok(
      reply.body.code === 'R1' || reply.body.latest_balance === 990,
      `newcomer: R1 (lost), or a fresh player (1000 − 10); got ${reply.body.code} ${reply.body.latest_balance}`,
    );
  });
}

if (cluster) {
  const USD = { currency: 'USD' };
  const players = [{ user_id: 'p0', balance: 300, currency: 'USD' }];

  t.test('two resets at once: the one that lost the race does not rewrite the ledger the other started', async (t) => {
    const prefix = uniquePrefix('resets');
    const opened: Wallet[] = [];
    for (const _ of [0, 1]) {
      const store = (await openBackend('redis', { redisCluster: cluster.nodes, redisPrefix: prefix })) as RedisBackend;
      const w = await buildTestApp({ players }, { store });
      t.teardown(async () => {
        await w.app.close();
        await store.close();
      });
      opened.push({ ...w, store });
    }
    const [a, b] = opened as [Wallet, Wallet];
    const gates: (() => void)[] = [];
    const held = () => new Promise<void>((resolve) => gates.push(resolve));
    const client = b.store.client as unknown as Record<string, Call>;
    const [call, cas] = [client.call!.bind(client), client.walletCasAt!.bind(client)];
    let casCalls = 0;
    // B's reset: its new generation's records held until A reset and served; its retry's check held after.
    let first: string | undefined; // (the generation B's first attempt writes: `<prefix>g<n>:`)
    client.call = async (...args: unknown[]) => {
      const key = String(args[1]);
      if (args[0] === 'SET' && key.includes('{p:') && (first ??= key.slice(0, key.indexOf('{p:'))) === key.slice(0, key.indexOf('{p:')))
        await held();
      return call(...args);
    };
    client.walletCasAt = async (...args: unknown[]) => {
      if (++casCalls === 2) await held();
      return cas(...args);
    };
    const resetB = b.app.inject({ method: 'POST', url: '/admin/reset' });
    t.ok(await eventually(async () => gates.length === 1, 15_000), "B's reset under way");
    t.equal((await a.app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200, 'A reset (generation 1)');
    t.match((await send(a.app, bet('p0', 'g1', [['1', 'P', 10]], USD))).body, { code: 'R0', latest_balance: 290 });
    gates.shift()!();
    t.ok(await eventually(async () => gates.length === 1, 15_000), "B's first check failed, its retry held");
    const next = await send(a.app, bet('p0', 'g2', [['1', 'P', 10]], USD));
    t.match(next.body, { code: 'R0', latest_balance: 280 }, 'the next bet on A: 300 − 10 − 10');
    gates.shift()!();
    t.equal((await resetB).statusCode, 200, "B's reset done");
  });
}

if (cluster) {
  t.test('a --redis-prefix with a "{": the session\'s keys still share one slot (or the prefix is refused)', async (t) => {
    const prefix = `${uniquePrefix('brace')}{x:`;
    const opened = await openBackend('redis', { redisCluster: cluster.nodes, redisPrefix: prefix }).then(
      async (store) => {
        const w = await buildTestApp({}, { store });
        t.teardown(async () => {
          await w.app.close();
          await store.close();
        });
        return w;
      },
      (e: unknown) => e as Error,
    );
    if (opened instanceof Error) return void t.pass(`refused at start: ${opened.message}`);
    const reply = await send(opened.app, login('u1'));
    t.equal(reply.body.code, 'R0', `a login served (${String(reply.headers['x-wallet-sim-reason'])})`);
  });
}
