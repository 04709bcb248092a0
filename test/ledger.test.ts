// GET /admin/ledger: every bet and settlement applied, one row each, JSON or CSV, exact amounts,
// bounded like the wallet and saying from when it is complete; the same on the memory and Redis stores.
import { skip } from './helpers/required.js';
import t, { type Test } from 'tap';
import type { RedisBackend } from '../src/backends/redis/redis-backend.js';
import { openBackend } from '../src/app/stores.js';
import { bet, buildTestApp, login, result, send } from './helpers/app.js';
import { redisMissing, startRedis, uniquePrefix } from './helpers/redis.js';

const COLUMNS = 'transaction_id,event_type,user_id,game_no,currency,amount,balance_after,applied_at,round_status';

async function stores(t: Test): Promise<[string, (retain?: number) => Promise<RedisBackend | undefined>][]> {
  const list: [string, (retain?: number) => Promise<RedisBackend | undefined>][] = [['memory', async () => undefined]];
  if (redisMissing()) skip(t, 'the redis store ledger suite', redisMissing()!);
  else {
    const redis = await startRedis(t);
    list.push([
      'redis',
      async (retain) =>
        openBackend('redis', {
          redisUrl: redis.url,
          redisPrefix: uniquePrefix('ledger'),
          retainTransactions: retain,
        }) as Promise<RedisBackend>,
    ]);
  }
  return list;
}

t.test('the ledger on each store', async (t) => {
  for (const [kind, open] of await stores(t)) {
    t.test(`${kind}: one row per bet and settlement, exact amounts, JSON and CSV, per player`, async (t) => {
      const store = await open();
      const { app } = await buildTestApp({ players: [{ user_id: 'u', balance: 1, currency: 'USD' }] }, store ? { store } : {});
      t.teardown(async () => {
        await app.close();
        await store?.close();
      });
      const b1 = bet(
        'u',
        'G1',
        [
          ['1', 'P', 0.1],
          ['2', 'B', 0.2],
        ],
        { currency: 'USD' },
      );
      const r1 = result(
        'u',
        'G1',
        [
          ['1', 'P', 0.1, -0.1],
          ['2', 'B', 0.2, -0.2],
        ],
        { currency: 'USD' },
      );
      const b2 = bet('u', 'G2', [['1', 'P', 0.3]], { currency: 'USD' });
      const other = bet('x, "quoted"', 'G9', [['1', 'P', 5]], { currency: 'USD' });
      for (const c of [login('u'), b1, r1, b2, other]) t.equal((await send(app, c)).body.code, 'R0');
      t.equal((await send(app, b1)).body.code, 'R0', 'a replay adds no row');

      const res = await app.inject({ method: 'GET', url: '/admin/ledger' });
      t.equal(res.statusCode, 200);
      t.match(res.headers['content-type'], /^application\/json/);
      t.equal(res.headers['x-ledger-complete'], 'true');
      t.notOk(res.headers['x-ledger-complete-from']);
      t.match(res.body, /"amount":0\.3,"balance_after":0\.7,/, 'the decimal text itself: 1 − 0.3 = 0.7, no float artefacts');
      const rows = res.json();
      t.same(
        rows.map((r: Record<string, unknown>) => [
          r.transaction_id,
          r.event_type,
          r.user_id,
          r.game_no,
          r.currency,
          r.amount,
          r.balance_after,
          r.round_status,
        ]),
        [
          [b1.transaction_id, 'bet', 'u', 'G1', 'USD', 0.3, 0.7, 'settled'],
          [r1.transaction_id, 'bet_result', 'u', 'G1', 'USD', 0, 0.7, 'settled'],
          [b2.transaction_id, 'bet', 'u', 'G2', 'USD', 0.3, 0.4, 'open'],
          [other.transaction_id, 'bet', 'x, "quoted"', 'G9', 'USD', 5, 995, 'open'],
        ],
        'logins move no money: no rows; a full loss credits 0',
      );
      t.ok(
        rows.every((r: { applied_at: string }) => !Number.isNaN(Date.parse(r.applied_at))),
        'applied_at is a time',
      );

      const csv = await app.inject({ method: 'GET', url: '/admin/ledger?format=csv&user_id=x,%20%22quoted%22' });
      t.match(csv.headers['content-type'], /^text\/csv/);
      const lines = csv.body.split('\r\n');
      t.equal(lines[0], COLUMNS, 'a header line');
      t.match(lines[1], `${other.transaction_id},bet,"x, ""quoted""",G9,USD,5,995,`, 'quoted as RFC 4180 wants');
      t.equal(lines.length, 3, 'only that player');

      const bad = await app.inject({ method: 'GET', url: '/admin/ledger?format=xml' });
      t.equal(bad.statusCode, 400);
      t.match(bad.json(), { error: 'BAD_REQUEST', message: /format/ });
    });

    t.test(`${kind}: bounded like the wallet; says from when it is complete; emptied by a reset`, async (t) => {
      const store = await open(3);
      const { app } = await buildTestApp({}, store ? { store } : { retainTransactions: 3 });
      t.teardown(async () => {
        await app.close();
        await store?.close();
      });
      const bets = Array.from({ length: 5 }, (_, i) => bet('player-1', `G${i}`, [['1', 'P', 100]]));
      for (const b of bets) t.equal((await send(app, b)).body.code, 'R0');
      const res = await app.inject({ method: 'GET', url: '/admin/ledger' });
      const rows = res.json();
      t.same(
        rows.map((r: { transaction_id: string }) => r.transaction_id),
        bets.slice(2).map((b) => b.transaction_id),
        'the newest 3',
      );
      t.equal(res.headers['x-ledger-complete'], 'false');
      t.equal(res.headers['x-ledger-complete-from'], rows[0].applied_at, 'complete from the oldest row it holds');
      await app.inject({ method: 'POST', url: '/admin/reset' });
      const after = await app.inject({ method: 'GET', url: '/admin/ledger?format=csv' });
      t.equal(after.body, `${COLUMNS}\r\n`, 'a new session: no rows');
      t.equal(after.headers['x-ledger-complete'], 'true');
    });

    t.test(`${kind}: a large ledger is streamed in pieces`, async (t) => {
      const store = await open();
      const { app } = await buildTestApp({}, store ? { store } : {});
      t.teardown(async () => {
        await app.close();
        await store?.close();
      });
      for (let i = 0; i < 1200; i++) await send(app, bet('player-1', `S${i}`, [['1', 'P', 1]]));
      const res = await app.inject({ method: 'GET', url: '/admin/ledger' });
      t.equal(res.json().length, 1200);
      t.equal(res.headers['content-length'], undefined, 'chunked: never built as one string');
    });
  }
});
