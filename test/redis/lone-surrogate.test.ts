// A lone UTF-16 surrogate in an id (valid JSON: "\ud800") has no UTF-8 form and Lua's cjson refuses
// it: the Redis store must still give every callback the code the memory store gives, and keep two
// such ids apart (UTF-8 would turn both into U+FFFD).
import t from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, login, result, send } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const USD = { currency: 'USD' };

/** Each case: the callbacks sent in order (as JSON text: the lone surrogate travels as an escape). */
const cases: [string, () => object[]][] = [
  [
    'transaction_id',
    () => {
      const b = { ...bet('player-1', 'g1', [['1', 'P', 10]]), transaction_id: 'tx-\ud800' };
      const other = { ...bet('player-1', 'g2', [['1', 'P', 20]]), transaction_id: 'tx-\ud801' };
      return [b, b, other, { ...b, data: { ...b.data, game_no: 'g3' } }, result('player-1', 'g1', [['1', 'P', 10, 10]])];
    },
  ],
  [
    'user_id',
    () => [
      login('u-\ud800'),
      bet('u-\ud800', 'g1', [['1', 'P', 10]], USD),
      login('u-\udc00'),
      bet('u-\udc00', 'g1', [['1', 'P', 30]], USD),
      result('u-\ud800', 'g1', [['1', 'P', 10, 10]], USD),
      login('u-\ud800'),
    ],
  ],
  [
    'game_no',
    () => [
      bet('player-1', 'g-\ud800', [['1', 'P', 10]]),
      bet('player-1', 'g-\ud801', [['1', 'P', 10]]),
      result('player-1', 'g-\ud800', [['1', 'P', 10, 5]]),
      result('player-1', 'g-\ud800', [['1', 'P', 10, 5]]),
      bet('player-1', 'g-\ud800', [['2', 'B', 10]]),
    ],
  ],
];

t.test('a lone surrogate in an id: the Redis store answers as the memory store does', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  for (const [field, callbacks] of cases) {
    const requests = callbacks();
    const answers = async (store?: RedisBackend) => {
      const { app } = await buildTestApp({}, store ? { store } : {});
      t.teardown(() => app.close());
      const replies = [];
      for (const r of requests) replies.push(await send(app, JSON.stringify(r)));
      return replies.map((r) => [r.body.code, r.body.latest_balance, r.headers['x-wallet-sim-reason']]);
    };
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('surrogate') })) as RedisBackend;
    t.teardown(() => store.close());
    const memory = await answers();
    t.same(await answers(store), memory, `${field}: the same codes, balances and reasons`);
    t.notOk(
      memory.some(([code]) => code === 'R1'),
      `${field}: no R1 (${memory.map(([code]) => code).join(' ')})`,
    );
  }
});

t.test('two user_ids with different lone surrogates are two players in Redis, listed as sent', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('surrogate') })) as RedisBackend;
  t.teardown(() => store.close());
  const { app } = await buildTestApp({}, { store });
  t.teardown(() => app.close());
  await send(app, JSON.stringify(bet('a-\ud800', 'g1', [['1', 'P', 10]], USD)));
  await send(app, JSON.stringify(bet('a-\ud801', 'g1', [['1', 'P', 30]], USD)));
  const players = new Map((await store.store.players()).map((p) => [p.user_id, p.balance.toFixed()]));
  t.equal(players.get('a-\ud800'), '990');
  t.equal(players.get('a-\ud801'), '970');
});
