// Redis stopped (SIGKILL) and restarted mid-stream: callbacks answer R1 with the reason while it is
// down (never a 5xx), /health answers 503, no acknowledged change is lost (AOF, appendfsync
// always), and service resumes by itself once Redis is back.
import { skip } from '../helpers/required.js';
import t from 'tap';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { bet, buildTestApp, listen, post, type Sent } from '../helpers/app.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';
import { player } from '../helpers/store.js';
import { eventually } from '../helpers/spawn-cli.js';

const missing = redisMissing();
if (missing) {
  skip(t, 'the Redis tests of this file', missing);
} else {
  t.test('stop and restart Redis mid-stream', async (t) => {
    const redis = await startRedis(t, { durable: true });
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('down') })) as RedisBackend;
    const { app, sim } = await buildTestApp({ players: [{ user_id: 'streamer', balance: 100_000, currency: 'USD' }] }, { store });
    t.teardown(async () => {
      await app.close();
      await store.close();
    });
    const base = await listen(app);
    const health = async () => (await fetch(`${base}/health`)).status;

    const sent = new Map<string, { request: object; reply: Sent }>();
    let stop = false;
    let n = 0;
    const stream = (async () => {
      while (!stop) {
        const request = bet('streamer', `g${n++}`, [['1', 'P', 10]], { currency: 'USD' });
        sent.set(request.transaction_id, { request, reply: await post(`${base}/callback`, request) });
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const codes = () => [...sent.values()].map((s) => s.reply.body.code as string);

    t.ok(await eventually(async () => codes().filter((c) => c === 'R0').length >= 20, 30_000), 'bets are applied');
    await redis.kill();
    const killedAt = sent.size;
    t.ok(
      await eventually(
        async () =>
          codes()
            .slice(killedAt)
            .filter((c) => c === 'R1').length >= 5,
        30_000,
      ),
      'R1 while Redis is down',
    );
    t.equal(await health(), 503, '/health answers 503 while Redis is down');
    const players = await fetch(`${base}/admin/players`);
    t.equal(players.status, 503, '/admin/players answers 503 while Redis is down');
    t.match(await players.json(), { error: 'STORE_UNREACHABLE', message: /Redis at .* is unreachable/ });
    const down = [...sent.values()].slice(killedAt).find((s) => s.reply.body.code === 'R1')!;
    t.match(down.reply.headers['x-wallet-sim-reason'], /^R1: Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/, 'the reason names Redis');
    t.ok(
      [...sent.values()].every((s) => s.reply.status === 200),
      'never a 5xx: every reply is HTTP 200',
    );

    await redis.restart();
    const restartedAt = sent.size;
    t.ok(
      await eventually(
        async () =>
          codes()
            .slice(restartedAt)
            .filter((c) => c === 'R0').length >= 20,
        30_000,
      ),
      'service resumes by itself',
    );
    t.equal(await health(), 200, '/health is back to 200');
    stop = true;
    await stream;

    t.same([...new Set(codes())].sort(), ['R0', 'R1'], 'only R0 and R1');
    // The provider's part: resend every R1 under its own transaction_id (a commit whose reply was
    // lost replays R0; one that never ran is applied now).
    for (const s of sent.values()) {
      if (s.reply.body.code === 'R1') s.reply = await post(`${base}/callback`, s.request);
    }
    t.ok(
      codes().every((c) => c === 'R0'),
      'every resend is R0',
    );
    const player = await sim.store.player('streamer');
    t.equal(
      player?.balance.toFixed(),
      String(100_000 - 10 * sent.size),
      `each of the ${sent.size} bets applied exactly once: no acknowledged change lost, none twice`,
    );
  });

  // The socket dies while ioredis still says "ready" (its close event has not run yet): the
  // command is refused with "Stream isn't writeable"; the reason must still name Redis (CI saw this).
  t.test('a connection lost under a command is reported as Redis unreachable', async (t) => {
    const redis = await startRedis(t);
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('lost') })) as RedisBackend;
    t.teardown(() => store.close());
    await store.store.commit([player('p1', '100')]);
    store.client.stream.destroy();
    t.equal(store.client.status, 'ready', 'ioredis has not noticed yet');
    await t.rejects(
      store.store.transact({ user_id: 'p1', transaction_id: 't1' }, () => ({ changes: [] })),
      { message: /^Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable \(.+\); wallet-sim reconnects by itself$/ },
      'the reason names Redis and what happens next',
    );
  });
}
