// Transaction records an older wallet-sim wrote to Redis hold the sha256 fingerprint of the request
// (the first version its 43 characters, later ones the first 16): after an upgrade, a retry of such
// a transaction still replays, and its transaction_id with another body is still refused.
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import t from 'tap';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { bet, buildTestApp, journal, login, now, send } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';

const sha256 = (req: object) =>
  createHash('sha256')
    .update(stringify({ ...req, timestamp: undefined })!)
    .digest('base64url');

t.test('records with sha256 fingerprints replay after an upgrade; other bodies are refused', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const prefix = uniquePrefix('legacy-fp');
  const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix })) as RedisBackend;
  const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 100, currency: 'USD' }] }, { store });
  t.teardown(async () => {
    await app.close();
    await store.close();
  });
  const key = new KeyLayout(prefix).of(0);
  const placed = bet('p', 'g1', [['1', 'P', 10]], { currency: 'USD' });
  const entered = login('p');
  // The keys as an older wallet-sim SET them (the player's balance after the bet, the round it opened).
  await store.client.set(key.player('p'), JSON.stringify({ user_id: 'p', balance: '90', currency: 'USD' }));
  const round = { user_id: 'p', game_no: 'g1', currency: 'USD', stake: '10', bets: [['1', 'P', '10']], settled: false };
  await store.client.set(key.round('p', 'g1'), JSON.stringify(round));
  const record = (req: { transaction_id: string; event_type: string }, fingerprint: string) =>
    store.client.set(
      key.txn('p', req.transaction_id),
      JSON.stringify({ transaction_id: req.transaction_id, user_id: 'p', event_type: req.event_type, fingerprint }),
    );
  await record(entered, sha256(entered));
  await record(placed, sha256(placed).slice(0, 16));

  const retry = (req: object) => send(app, { ...req, timestamp: now() + 1 });
  t.match((await retry(placed)).body, { code: 'R0', latest_balance: 90 }, 'a retried bet (16-character record) replays');
  t.match((await retry(entered)).body, { code: 'R0', latest_balance: 90 }, 'a retried login (43-character record) replays');
  t.match((await retry({ ...placed, data: { ...placed.data, total_bet_amount: 10.5 } })).body, { code: 'R3' }, 'the bet changed: R3');
  t.match((await retry({ ...entered, feedback_data: 'other' })).body, { code: 'R3' }, 'the login changed: R3');
  t.same(
    (await journal(app, { user_id: 'p' })).map((e) => e.findings.map((f: { code: string }) => f.code)),
    [['TRANSACTION_REPLAYED'], ['TRANSACTION_REPLAYED'], ['TRANSACTION_REUSED'], ['TRANSACTION_REUSED']],
  );
  t.equal((await sim.store.player('p'))?.balance.toFixed(), '90', 'nothing applied twice');

  const fresh = login('p');
  t.equal((await send(app, fresh)).body.code, 'R0');
  const written = JSON.parse((await store.client.get(key.txn('p', fresh.transaction_id)))!);
  t.match(written.fingerprint, /^~[0-9a-v]{14}$/, 'a new transaction is recorded in the current format');
  t.match((await retry(fresh)).body, { code: 'R0' }, 'and its retry replays');
});

t.test('a prefix holding a wallet of the older key layout is refused with what to do, not silently left beside an empty one', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const prefix = uniquePrefix('older-layout');
  const { Redis } = await import('ioredis');
  const admin = new Redis(redis.url);
  t.teardown(() => admin.disconnect());
  await admin.set(`${prefix}gen`, '3'); // what a wallet-sim before the hash tags kept
  await t.rejects(openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix }), {
    message: /older wallet-sim.*another --redis-prefix.*delete those keys/,
  });
  t.equal(await admin.exists(new KeyLayout(prefix).gen), 0, 'nothing written under it');
  await admin.del(`${prefix}gen`);
  const store = await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix });
  await store.close();
  t.pass('once deleted, the prefix opens');
});
