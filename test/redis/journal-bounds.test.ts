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

  /** The stream's ids and n fields, and the sizes list beside it ("<id> <n>"). */
  const layout = async (store: RedisBackend) => {
    const entries = await store.client.xrange(`${store.prefix}journal`, '-', '+');
    // (an entry from before the byte bound has no n: it counts as 0)
    const sizeOf = (fields: string[]) => (fields.includes('n') ? Number(fields[fields.indexOf('n') + 1]) : 0);
    const stream = entries.map(([id, fields]) => `${id} ${sizeOf(fields)}`);
    const sizes = await store.client.lrange(`${store.prefix}journal:sizes`, 0, -1);
    const chars = Number(await store.client.get(`${store.prefix}journal:bytes`));
    return { stream, sizes, chars, sum: entries.reduce((n, [, fields]) => n + sizeOf(fields), 0) };
  };
  /** An entry as an older wallet-sim added it: in the stream and the count, not in the sizes list. */
  const addUnlisted = async (store: RedisBackend, id: number, chars: number) => {
    const e = JSON.stringify({ id, transaction_id: `old-${id}`, pad: 'x'.repeat(Math.max(0, chars - 40)) });
    await store.client.xadd(`${store.prefix}journal`, '*', 'id', String(id), 'n', String(e.length), 'e', e);
    await store.client.incrby(`${store.prefix}journal:bytes`, e.length);
  };

  t.test('a full journal drops its oldest by the sizes list, which stays in step with the stream', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 20, 6_000);
    for (let n = 1; n <= 120; n++) await journal.record(entry(n, 50 + (n % 9) * 40));
    const { stream, sizes, chars, sum } = await layout(store);
    t.same(sizes, stream, 'the list names each entry of the stream, oldest first, with its n');
    t.equal(chars, sum, 'journal:bytes is what the stream holds');
    t.ok(stream.length <= 20 && chars <= 6_000, `${stream.length} entries, ${chars} characters: within both bounds`);
    t.equal((await journal.select()).at(-1)!.transaction_id, 'tx-120');
  });

  t.test('entries from before the sizes list go first, the bounds exact, and the list catches up', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 10, 64 * 1024 * 1024);
    for (let n = 1; n <= 6; n++) await addUnlisted(store, n, 200);
    for (let n = 7; n <= 40; n++) {
      await journal.record(entry(n, 100));
      const { stream, chars, sum } = await layout(store);
      t.ok(stream.length <= 10, `after entry ${n}: ${stream.length} entries`);
      t.equal(chars, sum, `after entry ${n}: journal:bytes is what the stream holds`);
      // An older wallet-sim adding now and then between this one's entries (unbounded here: the
      // next add of this one trims for both).
      if (n % 7 === 0) await addUnlisted(store, 1000 + n, 150);
    }
    const kept = (await journal.select()).map((e) => e.transaction_id);
    t.equal(kept.length, 10, 'the last entry added was one of this wallet-sim: exactly the bound');
    t.notOk(
      kept.some((tx) => tx?.startsWith('old-') && Number(tx.slice(4)) < 1000),
      'the entries from before are gone first',
    );
    const { stream, sizes } = await layout(store);
    t.ok(
      sizes.every((s) => stream.includes(s)),
      'every listed entry is in the stream',
    );
  });

  t.test('a stream trimmed by other means: stale sizes are dropped, the count stays exact', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 8, 64 * 1024 * 1024);
    for (let n = 1; n <= 8; n++) await journal.record(entry(n, 100));
    const trimmed = (await store.client.xrange(`${store.prefix}journal`, '-', '+', 'COUNT', 3)).map(([, f]) =>
      Number(f[f.indexOf('n') + 1]),
    );
    await store.client.xtrim(`${store.prefix}journal`, 'MAXLEN', 5);
    await store.client.decrby(
      `${store.prefix}journal:bytes`,
      trimmed.reduce((a, b) => a + b, 0),
    );
    for (let n = 9; n <= 30; n++) {
      await journal.record(entry(n, 100 + n));
      const { stream, chars, sum } = await layout(store);
      t.ok(stream.length <= 8, `after entry ${n}: ${stream.length} entries`);
      t.equal(chars, sum, `after entry ${n}: journal:bytes is what the stream holds`);
    }
    const { stream, sizes } = await layout(store);
    t.same(sizes, stream, 'the list is in step again');
    t.same(
      (await journal.select()).map((e) => e.transaction_id),
      Array.from({ length: 8 }, (_, i) => `tx-${23 + i}`),
      'the newest 8, oldest first',
    );
    await journal.reset();
    t.same(await store.client.exists(`${store.prefix}journal:sizes`), 0, 'reset clears the list too');
  });

  t.test('a listed entry gone while the counts still agree: the oldest is read instead, the bounds exact', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 8, 64 * 1024 * 1024);
    for (let n = 1; n <= 8; n++) await journal.record(entry(n, 100));
    // Its oldest trimmed by other means (the list still names it), then an older wallet-sim's entry
    // added (not listed): 8 in the stream, 8 in the list, the list's head gone.
    const [, fields] = (await store.client.xrange(`${store.prefix}journal`, '-', '+', 'COUNT', 1))[0]!;
    await store.client.xtrim(`${store.prefix}journal`, 'MAXLEN', 7);
    await store.client.decrby(`${store.prefix}journal:bytes`, Number(fields[fields.indexOf('n') + 1]));
    await addUnlisted(store, 100, 120);
    for (let n = 9; n <= 12; n++) {
      await journal.record(entry(n, 100));
      const { stream, chars, sum } = await layout(store);
      t.equal(stream.length, 8, `after entry ${n}: 8 entries`);
      t.equal(chars, sum, `after entry ${n}: journal:bytes is what the stream holds`);
    }
  });

  t.test('a stream cleared without its list (an older wallet-sim): the list starts afresh with the next entry', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 6, 64 * 1024 * 1024);
    for (let n = 1; n <= 4; n++) await journal.record(entry(n, 100));
    // Cleared as a wallet-sim before the list did, and a stale size left whose id a stream made again
    // could give once more (here: one past any the clock gives).
    await store.client.del(`${store.prefix}journal`, `${store.prefix}journal:bytes`);
    await store.client.lpush(`${store.prefix}journal:sizes`, '99999999999999-0 5000');
    for (let n = 5; n <= 20; n++) await journal.record(entry(n, 100 + n));
    const { stream, sizes, chars, sum } = await layout(store);
    t.same(sizes, stream, 'the list names the stream again');
    t.equal(chars, sum, 'journal:bytes is what the stream holds');
    t.equal(stream.length, 6);
  });

  t.test('an older wallet-sim trimming to a smaller bound: the list does not outgrow the stream', async (t) => {
    const store = await open();
    const journal = new RedisJournal(store.client, store.prefix, 1000, 64 * 1024 * 1024);
    const key = `${store.prefix}journal`;
    for (let n = 1; n <= 200; n++) {
      await journal.record(entry(n, 50));
      // Its journal_add: read the oldest, delete it, take its n off the count; never the list.
      while ((await store.client.xlen(key)) > 5) {
        const [id, fields] = (await store.client.xrange(key, '-', '+', 'COUNT', 1))[0]!;
        await store.client.xdel(key, id);
        await store.client.decrby(`${key}:bytes`, Number(fields[fields.indexOf('n') + 1]));
      }
    }
    const { stream, sizes, chars, sum } = await layout(store);
    t.ok(sizes.length <= stream.length + 1, `${sizes.length} sizes listed for ${stream.length} entries`);
    t.equal(chars, sum, 'journal:bytes is what the stream holds');
  });
}
