// --retain-transactions on the redis store (docs/design.md "Bounded memory"): the oldest transactions
// are forgotten into a set of 64-bit hashes in the same atomic step; their retries are R3
// TRANSACTION_EXPIRED, a forgotten settled round does not open again, nothing is applied twice.
import { skip } from '../helpers/required.js';
import t, { type Test } from 'tap';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { bet, buildTestApp, journal, result, send } from '../helpers/app.js';
import { ledgerKeys, redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';
import { player } from '../helpers/store.js';
import { type Change, forgottenRound, forgottenTxn, roundKey } from '../../src/ledger/change.js';
import { hash64 } from '../../src/backends/redis/records.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';
import { scanKeys } from '../../src/backends/redis/cluster.js';
import { startCluster } from '../helpers/redis-cluster.js';
import { eventually } from '../helpers/spawn-cli.js';

/** The bytes the forgotten-id buckets hold (each `<key>:<4 hex>` string), on every master of a cluster. */
async function forgottenBytes(store: RedisBackend, key: string): Promise<number> {
  let bytes = 0;
  await scanKeys(store.client, `${key}:*`, async (keys) => {
    for (const k of keys) if (/:[0-9a-f]{4}$/.test(k)) bytes += await store.client.strlen(k); // (not the :count)
  });
  return bytes;
}

const missing = redisMissing();
if (missing) {
  skip(t, 'the Redis tests of this file', missing);
} else {
  /** On one Redis (`where`), or a cluster's masters: the bound forgets, the retries are refused. */
  async function forgetsTheOldest(t: Test, where: { redisUrl: string } | { redisCluster: string }) {
    const prefix = uniquePrefix('retain');
    const store = (await openBackend('redis', { ...where, redisPrefix: prefix, retainTransactions: 3 })) as RedisBackend;
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
    const key = await ledgerKeys(store.client, prefix);
    t.equal(await store.client.llen(key.order), 3, 'only the newest 3 are kept');
    t.equal(await forgottenBytes(store, key.forgotten), 3 * 6, 'two transactions and the settled round are forgotten, 6 bytes each');
    t.equal(await store.store.openRounds(), 3, 'open rounds stay');
    // (on a cluster the players' keys of what was forgotten go right after the reply: a state to wait for)
    t.ok(await eventually(async () => (await store.client.exists(key.settled('p', 'r1'))) === 0), "the settled round's key is gone");

    t.equal((await send(app, first)).body.code, 'R3', 'a late retry of a forgotten bet is refused');
    t.same(await findingsOf(first.transaction_id), ['TRANSACTION_EXPIRED']);
    t.equal((await send(app, settle)).body.code, 'R3');
    t.same(await findingsOf(settle.transaction_id), ['TRANSACTION_EXPIRED']);
    const reopen = bet('p', 'r1', [['9', 'P', 1]]);
    t.equal((await send(app, reopen)).body.code, 'R3', 'a forgotten settled round does not open again');
    t.same(await findingsOf(reopen.transaction_id), ['ROUND_EXPIRED']);
    t.equal(await balance(), '1097', 'nothing applied twice');
    const gone = async () =>
      (await store.client.exists(key.txn('p', first.transaction_id))) + (await store.client.exists(key.claim(first.transaction_id))) === 0;
    t.ok(await eventually(gone), 'its record and claim are gone');
  }

  t.test('the oldest applied transactions are forgotten; their retries are refused, never applied twice', async (t) => {
    await forgetsTheOldest(t, { redisUrl: (await startRedis(t)).url });
  });

  // On a cluster the trim forgets in the session's slot and the players' keys go after it.
  t.test('on a Redis Cluster: the oldest applied transactions are forgotten; their retries are refused', async (t) => {
    await forgetsTheOldest(t, { redisCluster: (await startCluster(t)).nodes });
  });

  t.test('forgotten ids cost 6 bytes each in Redis, whatever their number; an old set of hashes is still honoured', async (t) => {
    const redis = await startRedis(t);
    const prefix = uniquePrefix('bound');
    const store = (await openBackend('redis', {
      redisUrl: redis.url,
      redisPrefix: prefix,
      retainTransactions: 1,
    })) as RedisBackend;
    t.teardown(() => store.close());
    await store.store.commit([player('p', '1000000')]);
    const rounds = 300;
    const ids: string[] = [];
    for (let i = 0; i < rounds; i++) {
      for (const [event_type, id] of [
        ['bet', `b${i}`],
        ['bet_result', `r${i}`],
      ] as const) {
        ids.push(id);
        const keys = { user_id: 'p', transaction_id: id, game_no: `g${i}` };
        const record: Change = { op: 'txn', transaction_id: id, user_id: 'p', event_type, fingerprint: 'f', game_no: `g${i}` };
        const settle: Change[] =
          event_type === 'bet_result'
            ? [{ op: 'round', user_id: 'p', game_no: `g${i}`, currency: 'USD', stake: '0', bets: [], settled: true }]
            : [];
        await store.store.transact(keys, () => ({ changes: [...settle, record] }));
      }
    }
    // 2 transactions per round forgotten (all but the newest), and 1 settled round each.
    const forgotten = 2 * rounds - 1 + (rounds - 1);
    t.equal(
      await forgottenBytes(store, new KeyLayout(prefix).of(0).forgotten),
      forgotten * 6,
      `${forgotten} forgotten ids in ${forgotten * 6} bytes`,
    );
    const refused = async (id: string) =>
      (await store.store.transact({ user_id: 'p', transaction_id: id }, (view) => ({ changes: [], view }))).view.transactionForgotten;
    t.ok(await refused('b0'), 'the oldest is still known as forgotten');
    t.ok(await refused(`b${rounds - 1}`), 'and a recent one');
    t.notOk(await refused('never-sent'), 'a never-seen id is not');
    // A Redis written by a wallet-sim before the buckets: its set of hex hashes still counts.
    await store.client.sadd(new KeyLayout(prefix).of(0).forgotten, hash64(forgottenTxn('from-the-old-set')));
    t.ok(await refused('from-the-old-set'), 'an id in the old set is forgotten');
  });
  t.test('an order entry an older wallet-sim wrote (its keys in full) is listed by the ledger and forgotten by the bound', async (t) => {
    const redis = await startRedis(t);
    const prefix = uniquePrefix('older-order');
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix, retainTransactions: 2 })) as RedisBackend;
    t.teardown(() => store.close());
    await store.store.commit([player('p', '1000')]);
    const key = new KeyLayout(prefix).of(0);
    // A settled bet_result as a wallet-sim before 29 Nov 2026 (session 20) recorded and listed it.
    const record = { transaction_id: 'old-r', user_id: 'p', event_type: 'bet_result', fingerprint: 'f', game_no: 'g0' };
    const row = { ...record, currency: 'USD', amount: '5', balance_after: '1005', applied_at: Date.now() };
    await store.client.set(key.txn('p', 'old-r'), JSON.stringify(row));
    await store.client.set(key.claim('old-r'), JSON.stringify(record));
    await store.client.set(key.settled('p', 'g0'), '1');
    const th = hash64(forgottenTxn('old-r'));
    const sh = hash64(forgottenRound(roundKey('p', 'g0')));
    const older = { t: key.txn('p', 'old-r'), c: key.claim('old-r'), th, s: key.settled('p', 'g0'), sh };
    await store.client.rpush(key.order, JSON.stringify(older));
    const listed = async () => {
      const rows = [];
      for await (const batch of (await store.ledger()).batches) rows.push(...batch.map((r) => r.transaction_id));
      return rows;
    };
    const login = (id: string) =>
      store.store.transact({ user_id: 'p', transaction_id: id }, () => ({
        changes: [{ op: 'txn', transaction_id: id, user_id: 'p', event_type: 'login', fingerprint: 'f' } as Change],
      }));
    await login('new-1');
    t.same(await listed(), ['old-r'], 'the ledger reads the older entry (a login is no ledger row)');
    await login('new-2');
    t.same(
      await store.client.exists(key.txn('p', 'old-r'), key.claim('old-r'), key.settled('p', 'g0')),
      0,
      'the bound forgot it: its record, claim and settled round are gone',
    );
    const view = (await store.store.transact({ user_id: 'p', transaction_id: 'old-r', game_no: 'g0' }, (v) => ({ changes: [], v }))).v;
    t.ok(view.transactionForgotten && view.roundForgotten, 'its id and its round are known as forgotten');
  });
}
