// Redis memory stays flat across resets (issue 35, item 5): a reset used to leave the finished
// session's grading stream (every event, with the request bodies) for an hour, so Redis grew by a
// session's stream per reset. A real redis-server, 10 sessions with traffic.
import t from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { openBackend } from '../../src/app/stores.js';
import { buildTestApp, HEADERS, login, send } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const SESSIONS = 10;
const CALLBACKS = 150;
/** feedback_data of each login: 6,000 characters (bodies under 8 KiB were kept whole by grading). */
const PADDING = 'f'.repeat(6000);

const redis = await redisOrSkip(t);
if (redis) {
  t.test('10 sessions with traffic: Redis memory and the prefix keys stay flat across resets', async (t) => {
    const prefix = uniquePrefix('growth');
    // A small journal, so what grows is what a reset leaves behind, not the journal's own bound.
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix, journalBytes: 1_000_000 })) as RedisBackend;
    const { app } = await buildTestApp({}, { store });
    t.teardown(async () => {
      await app.close();
      await store.close();
    });
    const client = store.client;
    const session = store.keyPrefix;
    const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await client.info('memory'))![1]);
    /** Every key of the prefix and its MEMORY USAGE. */
    const keys = async () => {
      const sizes = new Map<string, number>();
      let cursor = '0';
      do {
        const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        for (const k of found) sizes.set(k.slice(session.length), Number(await client.memory('USAGE', k)));
        cursor = next;
      } while (cursor !== '0');
      return sizes;
    };
    const total = (sizes: Map<string, number>) => [...sizes.values()].reduce((a, b) => a + b, 0);

    let n = 0;
    let sessionStream = 0;
    const after: { memory: number; keys: number; gradingKeys: number }[] = [];
    for (let s = 1; s <= SESSIONS; s++) {
      for (let i = 0; i < CALLBACKS; i++) {
        const reply = await send(app, login(`p${i % 20}`, { transaction_id: `tx-${++n}`, feedback_data: PADDING }), HEADERS);
        if (reply.body.code !== 'R0') t.fail(`login ${n}: ${JSON.stringify(reply.body)}`);
      }
      // The session's stream holds every event of it (the report folds them).
      const id = ((await app.inject({ method: 'GET', url: '/admin/report' })).json() as { session: { id: string } }).session.id;
      if (s === 1) sessionStream = (await keys()).get(`grading:${id}`) ?? 0;
      t.equal((await app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200);
      const sizes = await keys();
      const grading = [...sizes].filter(([k]) => k.startsWith('grading:') && k !== 'grading:session');
      after.push({ memory: await usedMemory(), keys: total(sizes), gradingKeys: grading.reduce((a, [, v]) => a + v, 0) });
    }
    t.comment(`one session's grading stream: ${sessionStream} bytes (MEMORY USAGE)`);
    t.comment(
      `after each reset: ${after.map((a) => `${(a.memory / 1e6).toFixed(1)} MB / keys ${(a.keys / 1e6).toFixed(2)} MB`).join(', ')}`,
    );
    t.ok(sessionStream > 200_000, 'the traffic is large enough to show growth');
    const [second, last] = [after[1]!, after.at(-1)!];
    t.ok(
      last.memory - second.memory < sessionStream,
      `used_memory grew ${last.memory - second.memory} bytes over 8 resets (a session's stream: ${sessionStream})`,
    );
    t.ok(last.keys - second.keys < sessionStream / 4, `the prefix's keys grew ${last.keys - second.keys} bytes over 8 resets`);
    t.ok(last.gradingKeys < sessionStream / 4, `finished sessions' streams hold ${last.gradingKeys} bytes in all`);
    const ttls = await Promise.all(
      [...(await keys()).keys()]
        .filter((k) => k.startsWith('grading:') && k !== 'grading:session')
        .map(async (k) => [k, await client.ttl(`${session}${k}`)] as const),
    );
    t.same(
      ttls.filter(([, ttl]) => ttl < 0 || ttl > 3600),
      [],
      'every finished session’s stream expires (an in-flight callback may still write to it)',
    );
    t.equal(
      ((await app.inject({ method: 'GET', url: '/admin/report' })).json() as { session: { id: string } }).session.id.length,
      8,
      'the current session reads',
    );
  });
}
