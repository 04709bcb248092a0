// docs/redis-failures.md, "On Redis Cluster": a process started while one player's master is down
// starts within the start-up bound and serves the other players (before: it never started, its
// subscribers' connect waiting forever on a ready check that asked the dead master).
import t from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';
import { CONNECT_WAIT_MS } from '../../src/backends/redis/connection.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, send } from '../helpers/app.js';
import { clusterOrSkip } from '../helpers/redis-cluster.js';
import { uniquePrefix } from '../helpers/redis.js';

const cluster = await clusterOrSkip(t);
if (cluster) {
  const players = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].map((user_id) => ({ user_id, balance: 300, currency: 'USD' }));

  t.test("processes started while a player's master is down: each starts in time and serves the other players", async (t) => {
    const prefix = uniquePrefix('start-down');
    const layout = new KeyLayout(prefix);
    const session = await cluster.serverOf(layout.gen);
    const owners = await Promise.all(
      players.map(async (p) => [p.user_id, await cluster.serverOf(layout.of(0).player(p.user_id))] as const),
    );
    const [, dead] = owners.find(([, s]) => s !== session)!;
    const kept = owners.find(([, s]) => s !== dead)![0];
    const open = async () => {
      const store = (await openBackend('redis', { redisCluster: cluster.nodes, redisPrefix: prefix })) as RedisBackend;
      t.teardown(() => store.close());
      const w = await buildTestApp({ players }, { store });
      t.teardown(() => w.app.close());
      return w;
    };
    await open(); // (seeded while every master is up)
    await dead.kill();
    // Several starts: which master a new connection's ready check asks is drawn at random.
    for (let i = 0; i < 4; i++) {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const w = await Promise.race([
        open(),
        new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), CONNECT_WAIT_MS + 5000))),
      ]);
      clearTimeout(timer);
      t.ok(w, `start ${i + 1}: started (${Date.now() - started} ms)`);
      if (!w) return;
      t.equal((await send(w.app, bet(kept, `g${i}`, [['1', 'P', 1]], { currency: 'USD' }))).body.code, 'R0', `${kept} served`);
      const health = await w.app.inject({ method: 'GET', url: '/health' });
      t.equal(health.statusCode, 200, '/health 200: the other players are served');
      t.match(
        health.json(),
        { status: 'ok', degraded: new RegExp(`no connection to master 127\\.0\\.0\\.1:${dead.port}`) },
        'degraded, naming the master',
      );
    }
    // A wallet seeded now (a new prefix) cannot write its players on the dead master: it says which master.
    const seed = async () => {
      const store = await openBackend('redis', { redisCluster: cluster.nodes, redisPrefix: uniquePrefix('seed-down') });
      t.teardown(() => store.close());
      await buildTestApp({ players }, { store });
    };
    const refused = await seed().then(
      () => 'started',
      (e: Error) => e.message,
    );
    t.match(
      refused,
      new RegExp(`is unreachable \\(.*no connection to master 127\\.0\\.0\\.1:${dead.port}\\)`),
      'seeding names the dead master',
    );
  });
}
