// The Redis journal survives a crash as completely as the ledger does: Redis with appendonly yes +
// appendfsync always, callbacks streaming from several players, kill -9 mid-stream, restart on the
// same directory: every callback answered R0 is in the journal (as the ledger has every R0 change).
import { skip } from '../helpers/required.js';
import t from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, send, type Sent } from '../helpers/app.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';
import { eventually } from '../helpers/spawn-cli.js';

const STREAMS = 12;

const missing = redisMissing();
if (missing) {
  skip(t, 'the Redis tests of this file', missing);
} else {
  t.test('kill -9 of an AOF Redis mid-stream: every R0 is in the journal after the restart', async (t) => {
    const redis = await startRedis(t, { durable: true });
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('aof') })) as RedisBackend;
    const players = Array.from({ length: STREAMS }, (_, i) => ({ user_id: `s${i}`, balance: 1_000_000, currency: 'USD' }));
    const { app, sim } = await buildTestApp({ players }, { store });
    t.teardown(async () => {
      await app.close();
      await store.close();
    });

    const sent: { transaction_id: string; request: object; reply: Sent }[] = [];
    let stop = false;
    const streams = players.map(async ({ user_id }, s) => {
      for (let n = 0; !stop; n++) {
        const request = bet(user_id, `g${s}-${n}`, [['1', 'P', 1]], { currency: 'USD' });
        sent.push({ transaction_id: request.transaction_id, request, reply: await send(app, request) });
      }
    });
    const r0 = () => sent.filter((s) => s.reply.body.code === 'R0').length;

    t.ok(await eventually(async () => r0() >= 200, 60_000), 'callbacks are applied');
    await redis.kill();
    const killedAt = sent.length;
    t.ok(await eventually(async () => sent.slice(killedAt).some((s) => s.reply.body.code === 'R1'), 30_000), 'R1 while Redis is down');
    await redis.restart();
    const restartedAt = sent.length;
    t.ok(
      await eventually(async () => sent.slice(restartedAt).filter((s) => s.reply.body.code === 'R0').length >= 50, 60_000),
      'served again after the restart',
    );
    stop = true;
    await Promise.all(streams);

    const journalled = new Set((await sim.journal.select({ code: 'R0' })).map((e) => e.transaction_id));
    const answered = sent.filter((s) => s.reply.body.code === 'R0');
    const missingIds = answered.filter((s) => !journalled.has(s.transaction_id)).map((s) => s.transaction_id);
    t.same(missingIds, [], `all ${answered.length} R0 callbacks are in the journal (${sent.length - answered.length} R1)`);
    t.ok(
      sent.every((s) => ['R0', 'R1'].includes(s.reply.body.code as string)),
      'only R0 and R1',
    );
    // The provider's part: resend every R1 (a bet applied but not journalled replays R0).
    for (const s of sent) if (s.reply.body.code === 'R1') s.reply = await send(app, s.request);
    t.ok(
      sent.every((s) => s.reply.body.code === 'R0'),
      'every resend is R0',
    );
    for (const { user_id } of players) {
      const bets = sent.filter((s) => s.reply.body.user_id === user_id).length;
      t.equal(
        (await store.store.player(user_id))?.balance.toFixed(),
        String(1_000_000 - bets),
        `${user_id}: each of its ${bets} bets applied once`,
      );
    }
  });
}
