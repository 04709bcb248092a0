// docs/redis-failures.md, "Lost state": a player listed but gone (its master restarted empty, its
// record evicted, the database flushed) is refused by the admin API as by the callbacks: 503
// STORE_UNREACHABLE naming the loss and POST /admin/reset, never 404 "create it with PUT", never a
// fresh player whose old bet's resend would be debited again.
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, send } from '../helpers/app.js';
import { clusterOrSkip } from '../helpers/redis-cluster.js';
import { ledgerKeys, startRedis, uniquePrefix } from '../helpers/redis.js';
import { eventually } from '../helpers/spawn-cli.js';

const USD = { currency: 'USD' };
const players = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].map((user_id) => ({ user_id, balance: 300, currency: 'USD' }));

async function wallet(t: Test, where: { redisUrl?: string; redisCluster?: string }, prefix: string) {
  const store = (await openBackend('redis', { ...where, redisPrefix: prefix })) as RedisBackend;
  const w = await buildTestApp({ players }, { store });
  t.teardown(async () => {
    await w.app.close();
    await store.close();
  });
  return { ...w, store };
}

/** What the admin API answers about `user` once its record is gone: each a 503 naming the loss and the reset. */
async function refusedByAdmin(t: Test, app: FastifyInstance, user: string, placed: object, resend: object = { code: 'R1' }) {
  const asks = [
    { method: 'GET', url: `/admin/players/${user}` },
    { method: 'GET', url: '/admin/players' },
    { method: 'PUT', url: `/admin/players/${user}`, payload: { balance: 1000, currency: 'USD' } },
  ] as const;
  for (const ask of asks) {
    const r = await app.inject(ask);
    t.equal(r.statusCode, 503, `${ask.method} ${ask.url}: 503`);
    t.match(
      r.json(),
      { error: 'STORE_UNREACHABLE', message: /lost wallet-sim's state .*POST \/admin\/reset starts afresh/ },
      'naming the loss',
    );
    t.notMatch(r.json().message, /create it/, 'never suggesting to create the player');
    t.notMatch(r.json().message, /ask again once it is back/, 'lost state does not come back: a reset is the way');
  }
  t.match((await send(app, placed)).body, resend, 'the resend of the bet applied before the loss: not debited again');
}

// (the cluster first: its nodes meet before this file's other servers start)
const cluster = await clusterOrSkip(t);

if (cluster)
  t.test('single Redis: a player record evicted, then the database flushed', async (t) => {
    const redis = await startRedis(t);
    const prefix = uniquePrefix('lost-admin');
    const w = await wallet(t, { redisUrl: redis.url }, prefix);
    const placed = bet('p1', 'g1', [['1', 'P', 100]], USD);
    t.match((await send(w.app, placed)).body, { code: 'R0', latest_balance: 200 });
    await w.store.client.del((await ledgerKeys(w.store.client, prefix)).player('p1'));
    // (its transaction's record is still there: a replay, or R1 while the loss is flagged)
    t.test('evicted', (t) => refusedByAdmin(t, w.app, 'p1', placed, { code: /^R[01]$/ }));
    t.test('flushed', async (t) => {
      await w.store.client.flushdb();
      await refusedByAdmin(t, w.app, 'p1', placed);
      t.equal((await w.app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200, 'POST /admin/reset starts afresh');
      t.match((await w.app.inject({ method: 'GET', url: '/admin/players/p1' })).json(), { balance: 300 });
    });
  });

if (cluster) {
  t.test("cluster: a player's master restarted empty", async (t) => {
    const prefix = uniquePrefix('lost-admin-cluster');
    const layout = new KeyLayout(prefix);
    const session = await cluster.serverOf(layout.gen);
    const owners = await Promise.all(
      players.map(async (p) => [p.user_id, await cluster.serverOf(layout.of(0).player(p.user_id))] as const),
    );
    const [lost, master] = owners.find(([, s]) => s !== session)!;
    const kept = owners.find(([, s]) => s !== master)![0];
    const w = await wallet(t, { redisCluster: cluster.nodes }, prefix);
    const placed = bet(lost, 'g1', [['1', 'P', 100]], USD);
    t.match((await send(w.app, placed)).body, { code: 'R0', latest_balance: 200 });
    await cluster.restartEmpty(master);
    t.ok(await eventually(async () => (await send(w.app, bet(kept, `k${Date.now()}`, [['1', 'P', 1]], USD))).body.code === 'R0', 15_000));
    // (the client may still be reconnecting to the restarted master: "unreachable" first)
    t.ok(
      await eventually(
        async () => /listed but gone/.test((await w.app.inject({ method: 'GET', url: `/admin/players/${lost}` })).json().message ?? ''),
        15_000,
      ),
      'the read names the player listed but gone',
    );
    await refusedByAdmin(t, w.app, lost, placed);
    t.equal((await w.app.inject({ method: 'GET', url: `/admin/players/${kept}` })).statusCode, 200, 'the other players are read');
    t.equal((await w.app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200, 'POST /admin/reset starts afresh');
    t.match((await w.app.inject({ method: 'GET', url: `/admin/players/${lost}` })).json(), { balance: 300 });
  });
}
