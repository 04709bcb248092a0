// The Redis journal bounds the bodies of its process's delayed callbacks as the in-memory one does:
// counted against --journal-bytes while in flight; past it, only an excerpt is held.
import { Redis } from 'ioredis';
import t from 'tap';
import { RedisJournal } from '../../src/journal/redis-journal.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const redis = await redisOrSkip(t);
if (redis) {
  t.test('bodies in flight count against maxBytes; past it an excerpt is held', async (t) => {
    const client = new Redis(redis.url);
    t.teardown(() => client.quit());
    const journal = new RedisJournal(client, uniquePrefix('inflight'), 100, 10_000);
    t.teardown(() => journal.close());
    const entry = (n: number) => ({
      received_at: new Date().toISOString(),
      request: { method: 'POST', url: '/callback', headers: {}, body: 'x'.repeat(n) as unknown },
      reply: { status: 200, headers: {}, body: { code: 'R0' }, dropped: false },
      replayed: false,
      findings: [],
    });
    const held = [entry(4000), entry(4000), entry(4000)];
    const pending = [];
    for (const e of held) pending.push(await journal.begin(e, 4000));
    t.equal((held[0]!.request.body as string).length, 4000, 'the first body is held whole');
    t.equal((held[1]!.request.body as string).length, 4000, 'so is the second (8,000 ≤ 10,000)');
    t.match(held[2]!.request.body as string, /^x{1024}…\(4000 characters; the rest is not kept: --journal-bytes/, 'the third: an excerpt');
    for (const p of pending) await p.finish({ replied_at: new Date().toISOString(), duration_ms: 1, client_gone: false });
    const again = entry(4000);
    await journal.begin(again, 4000);
    t.equal((again.request.body as string).length, 4000, 'finished bodies no longer count');
  });
}
