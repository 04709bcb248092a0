// The Redis journal is bounded like the in-memory one: --journal-size entries and --journal-bytes
// characters of JSON, oldest first, whichever process adds (two journals on one stream here).
import t from 'tap';
import type { JournalEntry } from '../../src/journal/journal.js';
import { RedisJournal } from '../../src/journal/redis-journal.js';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const entry = (n: number, padding: number): Omit<JournalEntry, 'id'> => ({
  received_at: '2026-11-23T20:00:00.000Z',
  replied_at: '2026-11-23T20:00:00.001Z',
  duration_ms: 1,
  transaction_id: `tx-${n}`,
  event_type: 'login',
  user_id: 'p1',
  request: { method: 'POST', url: '/callback', headers: {}, body: { pad: 'x'.repeat(padding) } },
  reply: { status: 200, headers: {}, body: { code: 'R0' }, dropped: false },
  code: 'R0',
  replayed: false,
  findings: [],
});

const redis = await redisOrSkip(t);
if (redis) {
  const open = async () => {
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('jbounds') })) as RedisBackend;
    t.teardown(() => store.close());
    return store;
  };

  t.test('--journal-bytes: the stream never holds more characters of JSON than the bound, the newest kept', async (t) => {
    const store = await open();
    // Two processes' journals on the same stream, each with the same bounds.
    const a = new RedisJournal(store.client, store.prefix, 1000, 20_000);
    const b = new RedisJournal(store.client, store.prefix, 1000, 20_000);
    for (let n = 1; n <= 200; n++) await (n % 2 ? a : b).record(entry(n, 100 + (n % 7) * 50));
    const kept = await a.select();
    const chars = kept.reduce((sum, e) => sum + e.text.length, 0);
    t.ok(chars <= 20_000, `${chars} characters kept, at most 20,000`);
    t.ok(chars > 20_000 - 600, 'and not far below it: only the oldest went');
    t.equal(kept.at(-1)!.transaction_id, 'tx-200', 'the newest is kept');
    const ids = kept.map((e) => e.id);
    t.same(
      ids,
      Array.from({ length: ids.length }, (_, i) => 201 - ids.length + i),
      'the oldest went first: the newest, in a row',
    );
    t.equal(Number(await store.client.get(`${store.prefix}journal:bytes`)), chars, 'journal:bytes is what the stream holds');
    t.same(await b.select(), kept, 'both processes see the same journal');
  });

  t.test('--journal-size: exactly that many entries', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 25, 64 * 1024 * 1024);
    for (let n = 1; n <= 60; n++) await journal.record(entry(n, 10));
    const kept = await journal.select();
    t.equal(kept.length, 25);
    t.equal(kept[0]!.transaction_id, 'tx-36');
    await journal.reset();
    t.same(await journal.select(), [], 'reset empties it');
    t.equal(await store.client.get(`${store.prefix}journal:bytes`), null, 'and its character count');
  });

  t.test('an entry longer than --journal-bytes is not kept; one from before the bound counts as 0', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 100, 2_000);
    const OLD = JSON.stringify({ id: 1, transaction_id: 'old' }); // fields id, u, ev, tx, e: no n
    await store.client.xadd(`${store.prefix}journal`, '*', 'id', '1', 'u', 'p1', 'ev', 'login', 'tx', 'old', 'e', OLD);
    await journal.record(entry(2, 5_000));
    t.same(
      (await journal.select()).map((e) => e.transaction_id),
      ['old'],
      'the long one is refused, the old one stays',
    );
    for (let n = 3; n <= 40; n++) await journal.record(entry(n, 100));
    const kept = await journal.select();
    t.ok(kept.reduce((sum, e) => sum + e.text.length, 0) <= 2_000 + OLD.length, 'bounded');
    t.equal(kept.at(-1)!.transaction_id, 'tx-40');
  });

  t.test('a character count that drifted (a stream trimmed by other means) never drops the entry just added', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 100, 10_000);
    await journal.record(entry(1, 100));
    await store.client.set(`${store.prefix}journal:bytes`, '999999');
    await journal.record(entry(2, 100));
    const kept = await journal.select();
    t.same(
      kept.map((e) => e.transaction_id),
      ['tx-2'],
      'the older entries go, the new one stays',
    );
    t.equal(Number(await store.client.get(`${store.prefix}journal:bytes`)), kept[0]!.text.length, 'the count is the stream again');
  });
}
