// --retain-transactions on the redis store (docs/design.md "Bounded memory"): the oldest transactions
// are forgotten into a set of 64-bit hashes in the same atomic step; their retries are R3
// TRANSACTION_EXPIRED, a forgotten settled round does not open again, nothing is applied twice.
import t from 'tap';
import { createStore } from '../../src/store/index.js';
import { RedisStore } from '../../src/store/redis.js';
import { bet, buildTestApp, journal, result, send } from '../helpers/app.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';

const missing = redisMissing();
if (missing) {
  t.comment(missing);
  t.pass('skipped: no redis-server');
} else {
  t.test('the oldest applied transactions are forgotten; their retries are refused, never applied twice', async (t) => {
    const redis = await startRedis(t);
    const prefix = uniquePrefix('retain');
    const store = (await createStore('redis', undefined, {
      redisUrl: redis.url,
      redisPrefix: prefix,
      retainTransactions: 3,
    })) as RedisStore;
    const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'KRW' }] }, { store });
    t.teardown(async () => {
      await app.close();
      await store.close();
    });
    const findingsOf = async (id: string) =>
      (await journal(app, { transaction_id: id })).at(-1).findings.map((f: { code: string }) => f.code);
    const balance = async () => (await sim.store.player('p'))?.balance.toFixed();

    const first = bet('p', 'r1', [['1', 'P', 100]]);
    const settle = result('p', 'r1', [['1', 'P', 100, 100]]);
    t.equal((await send(app, first)).body.code, 'R0');
    t.equal((await send(app, settle)).body.code, 'R0');
    t.equal(await balance(), '1100');
    for (let i = 0; i < 3; i++) t.equal((await send(app, bet('p', `later-${i}`, [['1', 'P', 1]]))).body.code, 'R0');
    t.equal(await store.client.llen(`${prefix}g0:order`), 3, 'only the newest 3 are kept');
    t.equal(await store.client.scard(`${prefix}g0:forgotten`), 3, 'two transactions and the settled round are forgotten');
    t.equal(await store.openRounds(), 3, 'open rounds stay');

    t.equal((await send(app, first)).body.code, 'R3', 'a late retry of a forgotten bet is refused');
    t.same(await findingsOf(first.transaction_id), ['TRANSACTION_EXPIRED']);
    t.equal((await send(app, settle)).body.code, 'R3');
    t.same(await findingsOf(settle.transaction_id), ['TRANSACTION_EXPIRED']);
    const reopen = bet('p', 'r1', [['9', 'P', 1]]);
    t.equal((await send(app, reopen)).body.code, 'R3', 'a forgotten settled round does not open again');
    t.same(await findingsOf(reopen.transaction_id), ['ROUND_EXPIRED']);
    t.equal(await balance(), '1097', 'nothing applied twice');
  });
}
