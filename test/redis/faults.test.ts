// Redis that stops answering (SIGSTOP) or loses the wallet's keys (FLUSHALL, a restart without
// persistence, a process seeding afresh): callbacks answer R1 naming Redis within the time-out,
// never hang nor loop; /health answers 503 with the reason; service comes back by itself after
// SIGCONT, and after POST /admin/reset once the state was lost.
import { skip } from '../helpers/required.js';
import t, { type Test } from 'tap';
import { Redis } from 'ioredis';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { bet, buildTestApp, login, send } from '../helpers/app.js';
import { redisMissing, type RedisServer, startRedis, uniquePrefix } from '../helpers/redis.js';
import { eventually } from '../helpers/spawn-cli.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';

const TIMEOUT_MS = 1000;

async function wallet(t: Test, redis: RedisServer, prefix: string) {
  const store = (await openBackend('redis', {
    redisUrl: redis.url,
    redisPrefix: prefix,
    redisTimeoutMs: TIMEOUT_MS,
  })) as RedisBackend;
  const { app, sim } = await buildTestApp({}, { store });
  t.teardown(async () => {
    await app.close();
    await store.close();
  });
  const health = async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    return { status: res.statusCode, body: res.json() as { status: string; error?: string } };
  };
  const reset = async () =>
    (await app.inject({ method: 'POST', url: '/admin/reset', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode;
  return { app, sim, store, health, reset };
}

/** How long `work` takes, in ms. */
async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
}

/** Redis's count of commands processed so far (read on a connection of its own). */
async function commandsProcessed(url: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true });
  await client.connect();
  try {
    return Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))![1]);
  } finally {
    client.disconnect();
  }
}

const missing = redisMissing();
if (missing) {
  skip(t, 'the Redis tests of this file', missing);
} else {
  t.test('a frozen Redis (SIGSTOP): R1 and /health 503 within the time-out, back to R0 after SIGCONT', async (t) => {
    const redis = await startRedis(t);
    const w = await wallet(t, redis, uniquePrefix('frozen'));
    t.equal((await send(w.app, bet('player-1', 'g0', [['1', 'P', 10]]))).body.code, 'R0', 'served while Redis answers');

    redis.signal('SIGSTOP');
    t.teardown(() => redis.signal('SIGCONT'));
    // Callbacks of one player (queued in this process) and of others, all at once: the first to
    // time out marks Redis frozen, and the others are then refused without waiting for their own.
    const requests = [0, 1, 2, 3, 4].map((i) => bet(i < 3 ? 'player-1' : `p${i}`, `f${i}`, [['1', 'P', 10]]));
    const [replies, allMs] = await timed(() => Promise.all(requests.map((r) => send(w.app, r))));
    t.same(
      replies.map((r) => r.body.code),
      ['R1', 'R1', 'R1', 'R1', 'R1'],
      'every callback is answered R1',
    );
    for (const r of replies)
      t.match(r.headers['x-wallet-sim-reason'], /^R1: Redis at redis:\/\/127\.0\.0\.1:\d+ does not answer/, 'naming Redis');
    // Waiting in turn, the 3 of player-1 would take 3 time-outs.
    t.ok(allMs < TIMEOUT_MS * 2.5, `all 5 answered in ${Math.round(allMs)} ms (time-out ${TIMEOUT_MS} ms): none waits for another`);
    const health = await w.health();
    t.equal(health.status, 503, '/health answers 503');
    t.match(health.body.error, /^Redis at redis:\/\/127\.0\.0\.1:\d+ does not answer \(no reply within --redis-timeout-ms 1000 ms/);

    redis.signal('SIGCONT');
    t.ok(await eventually(async () => (await w.health()).status === 200, 10_000), '/health is 200 again once Redis answers');
    t.equal((await send(w.app, bet('player-1', 'g1', [['1', 'P', 10]]))).body.code, 'R0', 'callbacks are R0 again');
    // A bet answered R1 during the freeze may still have been applied when Redis woke (its reply was
    // lost): its retry replays R0, never debits twice.
    const retry = await send(w.app, requests[0]!);
    t.equal(retry.body.code, 'R0', 'a frozen-time bet resent is R0');
    const balance = (await w.store.store.player('player-1'))!.balance.toFixed();
    t.ok(['999980', '999970', '999960'].includes(balance), `balance ${balance}: each bet applied at most once`);

    // /health asked first, while nothing has timed out yet: 503 after one time-out, not a hang.
    redis.signal('SIGSTOP');
    const [frozen, healthMs] = await timed(w.health);
    t.equal(frozen.status, 503, '/health asked first answers 503 instead of hanging');
    t.ok(healthMs < TIMEOUT_MS + 2000, `in ${Math.round(healthMs)} ms (time-out ${TIMEOUT_MS} ms)`);
    redis.signal('SIGCONT');
    t.ok(await eventually(async () => (await w.health()).status === 200, 10_000), 'and 200 once Redis answers');
  });

  const lostCases: [string, (redis: RedisServer, store: RedisBackend) => Promise<void>][] = [
    ['FLUSHALL', async (_redis, store) => void (await store.client.flushall())],
    [
      'a restart without persistence',
      async (redis, store) => {
        await redis.restart();
        const back = await eventually(async () => store.client.status === 'ready', 10_000);
        if (!back) throw new Error('the store did not reconnect');
      },
    ],
  ];
  for (const [name, lose] of lostCases) {
    t.test(`lost state after ${name}: R1 with the reason, /health 503, no loop; POST /admin/reset starts afresh`, async (t) => {
      const redis = await startRedis(t);
      const w = await wallet(t, redis, uniquePrefix('lost'));
      const first = bet('player-1', 'g0', [['1', 'P', 100]]);
      t.equal((await send(w.app, first)).body.code, 'R0', 'a bet applied');

      await lose(redis, w.store);
      const before = await commandsProcessed(redis.url);
      const [reply, ms] = await timed(() => send(w.app, first));
      const used = (await commandsProcessed(redis.url)) - before;
      t.equal(reply.body.code, 'R1', 'the retry of the applied bet is refused, not applied again');
      t.match(
        reply.headers['x-wallet-sim-reason'],
        /^R1: Redis at redis:\/\/127\.0\.0\.1:\d+ lost wallet-sim's state \(no generation key: flushed, evicted or restarted without persistence\); POST \/admin\/reset starts afresh$/,
      );
      t.ok(ms < 2000, `answered in ${Math.round(ms)} ms`);
      t.ok(used < 100, `${used} Redis commands for that callback (journal included): no loop`);
      t.equal((await send(w.app, login('usd'))).body.code, 'R1', 'every callback is refused');
      const health = await w.health();
      t.equal(health.status, 503, '/health answers 503');
      t.match(health.body.error, /lost wallet-sim's state/);
      const players = await w.app.inject({ method: 'GET', url: '/admin/players' });
      t.equal(players.statusCode, 503, 'admin reads answer 503, not 500');
      t.match(players.json(), { error: 'STORE_UNREACHABLE', message: /lost wallet-sim's state .*POST \/admin\/reset starts afresh/ });
      const report = await w.app.inject({ method: 'GET', url: '/admin/report' });
      t.equal(report.statusCode, 503, 'the report too (it answered an empty session, every check not exercised)');
      t.match(report.json(), { error: 'STORE_UNREACHABLE', message: /lost wallet-sim's state \(the graded session .* gone/ });

      t.equal(await w.reset(), 200, 'POST /admin/reset works on the lost state');
      t.equal((await w.health()).status, 200, '/health is 200 again');
      t.equal((await w.app.inject({ method: 'GET', url: '/admin/report' })).statusCode, 200, 'and the report');
      t.equal((await send(w.app, first)).body.code, 'R0', 'callbacks are R0 again');
      t.equal((await w.store.store.player('player-1'))!.balance.toFixed(), '999900', 'from the scenario afresh: the bet applied once');
      t.equal(await w.store.client.exists(`${w.store.keyPrefix}scenario`), 1, 'the scenario is in Redis again');
    });
  }

  t.test('a loss no callback has met yet: the ledger and the journal answer 503, never an empty 200', async (t) => {
    const redis = await startRedis(t);
    const w = await wallet(t, redis, uniquePrefix('lost-reads'));
    t.equal((await send(w.app, bet('player-1', 'g0', [['1', 'P', 100]]))).body.code, 'R0', 'a bet applied');
    const read = (url: string) => w.app.inject({ method: 'GET', url });
    t.equal((await read('/admin/ledger')).statusCode, 200, 'the ledger reads before the loss');
    await w.store.client.flushall();
    for (const url of ['/admin/ledger', '/admin/ledger?format=csv', '/admin/journal', '/admin/scenario/rules']) {
      const res = await read(url);
      t.equal(res.statusCode, 503, `GET ${url}: 503 (before: a reply cut off mid-stream, an empty journal, counters of zero)`);
      t.match(
        res.json(),
        { error: 'STORE_UNREACHABLE', message: /lost wallet-sim's state .*POST \/admin\/reset starts afresh/ },
        'naming the loss and the way out',
      );
    }
    t.equal(await w.reset(), 200, 'POST /admin/reset starts afresh');
    const after = await read('/admin/ledger');
    t.equal(after.statusCode, 200, 'the ledger reads again');
    t.equal(after.headers['x-ledger-complete'], 'true');
    t.equal((await read('/admin/journal')).statusCode, 200, 'and the journal');
  });

  t.test('the scenario key evicted alone: the report and the rules answer 503 naming it', async (t) => {
    const redis = await startRedis(t);
    const w = await wallet(t, redis, uniquePrefix('evicted-scenario'));
    t.equal((await send(w.app, login('usd'))).body.code, 'R0');
    const read = (url: string) => w.app.inject({ method: 'GET', url });
    t.equal((await read('/admin/report')).statusCode, 200, 'the report reads before');
    t.equal(await w.store.client.del(`${w.store.keyPrefix}scenario`), 1, 'the active scenario evicted');
    for (const url of ['/admin/report', '/admin/scenario/rules', '/admin/ledger', '/admin/journal']) {
      const res = await read(url);
      t.equal(res.statusCode, 503, `GET ${url}: 503 (before: the report and the rules answered 200)`);
      t.match(res.json(), { error: 'STORE_UNREACHABLE', message: /lost wallet-sim's state \(no scenario key/ });
    }
    t.equal(await w.reset(), 200, 'POST /admin/reset starts afresh');
    t.equal((await read('/admin/report')).statusCode, 200, 'and the report reads again');
  });

  t.test('a process seeding a flushed Redis afresh: the others refuse until a reset', async (t) => {
    const redis = await startRedis(t);
    const prefix = uniquePrefix('reseeded');
    const a = await wallet(t, redis, prefix);
    t.equal((await send(a.app, bet('player-1', 'g0', [['1', 'P', 100]]))).body.code, 'R0');
    await a.store.client.flushall();
    const b = await wallet(t, redis, prefix); // starts on the empty Redis and seeds it
    t.equal((await send(b.app, login('player-1'))).body.code, 'R0', 'the new process serves its new ledger');
    const refused = await send(a.app, login('player-1'));
    t.equal(refused.body.code, 'R1', 'the old one does not silently take the new ledger for its own');
    t.match(refused.headers['x-wallet-sim-reason'], /lost wallet-sim's state \(seeded afresh by another process/);
    t.equal(await b.reset(), 200, 'a reset on any process');
    t.ok(await eventually(async () => (await send(a.app, login('player-1'))).body.code === 'R0', 10_000), 'is followed by every process');
    t.equal((await a.health()).status, 200, 'whose /health is 200 again');
  });

  t.test('a player record evicted while still listed: R1, not a new player', async (t) => {
    const redis = await startRedis(t);
    const w = await wallet(t, redis, uniquePrefix('evicted'));
    t.equal((await send(w.app, login('usd'))).body.code, 'R0');
    await w.store.client.del(new KeyLayout(w.store.prefix).of(0).player('usd'));
    const reply = await send(w.app, login('usd'));
    t.equal(reply.body.code, 'R1');
    t.match(reply.headers['x-wallet-sim-reason'], /lost wallet-sim's state \(player "usd" listed but gone/);
  });
}
