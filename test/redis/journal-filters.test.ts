// The Redis journal answers the filter language as the in-memory one does (the same session, the
// same table: test/helpers/journal-filters.ts), from the JSON kept in its stream.
import t from 'tap';
import type { JournalStore } from '../../src/journal/journal.js';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { checkFilters, FILTER_SCENARIO, playSession } from '../helpers/journal-filters.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const redis = await redisOrSkip(t);
if (redis) {
  const redisApp = async (): Promise<TestApp<JournalStore> & { store: RedisBackend }> => {
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('filters') })) as RedisBackend;
    const built = await buildTestApp(FILTER_SCENARIO, { store });
    t.teardown(async () => {
      await built.app.close();
      await built.sim.store.close();
    });
    return { ...built, store: store as RedisBackend };
  };

  t.test('every field of the language filters the Redis journal; bad values are refused', async (t) => {
    const { app } = await redisApp();
    const { betTx } = await playSession(app);
    await checkFilters(t, app, betTx);
  });

  t.test('the stream keeps the JSON only, the filters read it; an entry with the older fields is read too', async (t) => {
    const { app, sim, store } = await redisApp();
    await playSession(app);
    const [, fields] = (await store.client.xrange(`${store.keyPrefix}journal`, '-', '+', 'COUNT', 10))[3]!;
    t.same(
      fields.filter((_, i) => i % 2 === 0),
      ['id', 'n', 'e'],
      'the refused bet: its id, length and JSON (its fields are not repeated beside it)',
    );
    // As a wallet-sim from before 29 Nov 2026 (session 20) wrote it: the filter's fields beside the JSON (here contradicting it).
    const fielded = {
      id: 98,
      user_id: 'p4',
      event_type: 'bet',
      transaction_id: 'old-0',
      replayed: false,
      request: { method: 'POST', url: '/callback', headers: {}, body: {} },
      reply: { status: 200, headers: {}, body: {}, dropped: false },
      findings: [],
    };
    const withFields = [
      'id',
      '98',
      'u',
      'p4',
      'ev',
      'bet',
      'tx',
      'old-0',
      'rp',
      '0',
      'c',
      'R2',
      'g',
      'G8',
      'n',
      '1',
      'e',
      JSON.stringify(fielded),
    ];
    await store.client.xadd(`${store.keyPrefix}journal`, '*', ...withFields);
    t.same(
      (await sim.journal.select({ game_no: 'G8' })).map((e) => e.id),
      [98],
      "an entry with the older fields: they are read (not its JSON's)",
    );
    // As a wallet-sim from before the filter language wrote it: id, u, ev, tx and the JSON only.
    const old = {
      id: 99,
      user_id: 'p3',
      event_type: 'bet',
      transaction_id: 'old-1',
      code: 'R3',
      replayed: true,
      rule: { index: 0, name: 'table-nine' },
      request: { method: 'POST', url: '/callback', headers: {}, body: { data: { game_no: 'G9', table_no: 'T9' } } },
      reply: { status: 200, headers: {}, body: {}, dropped: false },
      findings: [],
    };
    const legacy = ['id', '99', 'u', 'p3', 'ev', 'bet', 'tx', 'old-1', 'e', JSON.stringify(old)];
    await store.client.xadd(`${store.keyPrefix}journal`, '*', ...legacy);
    const ids = async (filter: object) => (await sim.journal.select(filter)).map((e) => e.id);
    t.same(await ids({ game_no: 'G9' }), [99], 'game_no read from the JSON');
    t.same(await ids({ code: 'R3', rule: 'table-nine', table_no: 'T9' }), [4, 99], 'code, rule and table_no too');
    t.same(await ids({ replayed: true }), [3, 99], 'and replayed');
  });
}
