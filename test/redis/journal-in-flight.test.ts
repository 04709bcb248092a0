// The Redis journal bounds the bodies of its process's delayed callbacks as the in-memory one does:
// counted against --journal-bytes while in flight; past it, only an excerpt is held.
import { Redis } from 'ioredis';
import t from 'tap';
import { RedisJournal } from '../../src/journal/redis-journal.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const redis = await redisOrSkip(t);

/** An entry of the paging tests: told apart by its user_id. */
const entry = (user_id: string) => ({
  received_at: new Date().toISOString(),
  user_id,
  request: { method: 'POST', url: '/callback', headers: {}, body: { user_id } as unknown },
  reply: { status: 200, headers: {}, body: { code: 'R0' }, dropped: false },
  replayed: false,
  findings: [],
});
const users = (entries: { text: string }[]) => entries.map((e) => (JSON.parse(e.text) as { user_id: string }).user_id);
const timing = { replied_at: new Date().toISOString(), duration_ms: 1, client_gone: false };
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

if (redis) {
  t.test("a callback answered after another process's reset is not kept in the journal cleared meanwhile", async (t) => {
    const [a, b] = [new Redis(redis.url), new Redis(redis.url)];
    t.teardown(() => Promise.all([a.quit(), b.quit()]));
    const prefix = uniquePrefix('reset-in-flight');
    // Two processes' journals on one Redis.
    const [ja, jb] = [new RedisJournal(a, prefix, 100, 100_000), new RedisJournal(b, prefix, 100, 100_000)];
    t.teardown(() => (ja.close(), jb.close()));
    const entry = (tx: string) => ({
      received_at: new Date().toISOString(),
      transaction_id: tx,
      request: { method: 'POST', url: '/callback', headers: {}, body: { transaction_id: tx } as unknown },
      reply: { status: 200, headers: {}, body: { code: 'R0' }, dropped: false },
      replayed: false,
      findings: [],
    });
    const done = { replied_at: new Date().toISOString(), duration_ms: 1, client_gone: false };
    const before = await ja.begin(entry('tx-before'));
    await jb.record({ ...entry('tx-old'), replied_at: done.replied_at, duration_ms: 1 });
    const held = await jb.begin(entry('tx-held'));
    await jb.reset();
    t.same(jb.inFlight(), [], 'the resetting process lists none of its callbacks begun before in flight');
    const after = await ja.begin(entry('tx-after'));
    await held.finish(done);
    const stored = await before.finish(done);
    t.ok(stored.id > 0, 'its reply keeps its id (the callback is answered all the same)');
    await after.finish(done);
    t.same(
      (await jb.list()).map((e) => e.transaction_id),
      ['tx-after'],
      'only what began after the reset',
    );
    t.same(
      (await ja.list()).map((e) => e.transaction_id),
      ['tx-after'],
    );
  });
}

if (redis) {
  t.test('a page forward (after) ends before the oldest callback this process has in flight', async (t) => {
    const client = new Redis(redis.url);
    t.teardown(() => client.quit());
    const journal = new RedisJournal(client, uniquePrefix('paging'), 100, 1_000_000);
    t.teardown(() => journal.close());
    await journal.record({ ...entry('first'), replied_at: timing.replied_at, duration_ms: 1 });
    const slow = await journal.begin(entry('slow'));
    await journal.record({ ...entry('quick'), replied_at: timing.replied_at, duration_ms: 1 });
    t.same(users(await journal.select({ after: 0 })), ['first'], 'after 0: the entry before the one in flight');
    t.same(users(await journal.select({})), ['first', 'quick'], 'a read without after lists what is written');
    const first = await journal.select({ after: 0 });
    await slow.finish(timing);
    t.same(users(await journal.select({ after: first.at(-1)!.id })), ['slow', 'quick'], 'answered: the next page has it');
  });
}

if (redis) {
  t.test('a callback begun before a reset does not hold a page forward back (the journal it began in is gone)', async (t) => {
    const [a, b] = [new Redis(redis.url), new Redis(redis.url)];
    t.teardown(() => Promise.all([a.quit(), b.quit()]));
    const prefix = uniquePrefix('paging-reset');
    const [ja, jb] = [new RedisJournal(a, prefix, 100, 1_000_000), new RedisJournal(b, prefix, 100, 1_000_000)];
    t.teardown(() => (ja.close(), jb.close()));
    const write = (j: RedisJournal, user: string) => j.record({ ...entry(user), replied_at: timing.replied_at, duration_ms: 1 });
    // This process's own reset, then another's: each leaves a delayed callback of the cleared journal in flight here.
    const ownReset = await ja.begin(entry('cleared-by-own-reset'));
    await ja.reset();
    await write(ja, 'after-own-reset');
    t.same(users(await ja.select({ after: 0 })), ['after-own-reset'], 'own reset: the page has what came after it');
    const foreignReset = await ja.begin(entry('cleared-by-another'));
    await jb.reset();
    await write(ja, 'after-foreign-reset');
    t.same(users(await ja.select({ after: 0 })), ['after-foreign-reset'], "another process's reset: the same");
    const slow = await ja.begin(entry('slow'));
    await write(ja, 'quick');
    t.same(users(await ja.select({ after: 0 })), ['after-foreign-reset'], 'a callback of this journal still holds it back');
    for (const p of [ownReset, foreignReset, slow]) await p.finish(timing);
    t.same(users(await ja.select({ after: 0 })), ['after-foreign-reset', 'slow', 'quick'], 'the cleared ones are never written');
  });
}
