// The built CLI as a user runs it: `start --store redis` processes on one redis-server, one of
// them SIGKILLed mid-stream (on one Redis and on a Redis Cluster); `--workers 2`; `--workers` refused without a shared store.
import { skip } from '../helpers/required.js';
import t, { type Test } from 'tap';
import { bet as betBody, post } from '../helpers/app.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';
import { startCluster } from '../helpers/redis-cluster.js';
import { run, runAll, start } from '../helpers/spawn-cli.js';

// The same id for the same n: a resend after NO_REPLY is the same transaction.
const bet = (n: number, user = 'streamer') => ({
  ...betBody(user, `g${n}`, [['1', 'P', 10]], { currency: 'USD' }),
  transaction_id: `cli-${process.pid}-${user}-${n}`,
});
const HEADERS = { 'content-type': 'application/json', 'api-id': 'sandbox', 'api-key': 'sandbox-key' };

/** POSTs; a connection error is { code: 'NO_REPLY' } (the outcome is unknown to the caller). */
const send = async (url: string, body: object) => {
  try {
    return (await post(`${url}/callback`, body, HEADERS)).body as { code: string; latest_balance?: number };
  } catch {
    return { code: 'NO_REPLY' };
  }
};

t.test('--workers is refused with the memory and file stores, naming the fix', async (t) => {
  const stores = ['memory', 'file'];
  const [noUrl, ...ran] = await runAll([
    ['start', '--store', 'redis', '--port', '0'],
    ...stores.map((store) => ['start', '--workers', '2', '--store', store, '--data', 'x.json', '--port', '0']),
  ]);
  for (const [i, store] of stores.entries()) {
    t.equal(ran[i]!.code, 1, `--store ${store}: exit 1`);
    t.match(ran[i]!.stderr, /--workers 2 needs a store the processes share: add --store redis --redis-url/, 'names the fix');
  }
  t.match(noUrl!.stderr, /--store redis needs --redis-url/);
});

const missing = redisMissing();
if (missing) {
  skip(t, 'the Redis tests of this file', missing);
} else {
  /** Two processes on one wallet (`where`: the Redis env), one SIGKILLed a quarter of the way through `TOTAL` bets. */
  async function killedMidStream(t: Test, where: Record<string, string>, TOTAL: number) {
    const env = { WALLET_SIM_STORE: 'redis', ...where, WALLET_SIM_REDIS_PREFIX: uniquePrefix('kill'), WALLET_SIM_LOG_LEVEL: 'silent' };
    const [a, b] = await Promise.all([start(t, ['--port', '0'], env), start(t, ['--port', '0'], env)]);
    const admin = (path: string, init?: RequestInit) => fetch(`${b.url}${path}`, init).then((r) => r.json());
    await admin('/admin/players/streamer', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ balance: 100000, currency: 'USD' }),
    });

    const outcomes: string[] = [];
    let killed = false;
    // Four callers, each alternating between the two processes; a is killed a quarter of the way.
    await Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let n = lane; n < TOTAL; n += 4) {
          if (n >= TOTAL / 4 && !killed) {
            killed = true;
            a.child.kill('SIGKILL');
          }
          outcomes[n] = (await send(n % 2 ? a.url : b.url, bet(n))).code;
        }
      }),
    );
    t.ok(outcomes.filter((c) => c === 'R0').length >= TOTAL / 2, 'most bets acknowledged');
    t.ok(outcomes.includes('NO_REPLY'), 'some calls to the killed process got no reply');
    t.same(
      [...new Set(outcomes)].filter((c) => c !== 'R0' && c !== 'NO_REPLY'),
      [],
      'nothing but R0 or no reply',
    );
    // The provider resends what got no reply, under its own transaction_id, to the survivor.
    for (let n = 0; n < TOTAL; n++) if (outcomes[n] === 'NO_REPLY') outcomes[n] = (await send(b.url, bet(n))).code;
    t.ok(
      outcomes.every((c) => c === 'R0'),
      'every resend is R0 (applied now, or replayed)',
    );
    const player = await admin('/admin/players/streamer');
    t.equal(player.balance, 100000 - 10 * TOTAL, `each of the ${TOTAL} bets applied exactly once`);
    const journal = await admin('/admin/journal?event_type=bet');
    const applied: string[] = journal.entries
      .filter((e: { replayed: boolean; code: string }) => e.code === 'R0' && !e.replayed)
      .map((e: { transaction_id: string }) => e.transaction_id);
    t.equal(new Set(applied).size, applied.length, 'the shared journal never shows a transaction applied twice');
  }

  t.test('two processes, one SIGKILLed mid-stream: every acknowledged bet applied exactly once', async (t) => {
    await killedMidStream(t, { WALLET_SIM_REDIS_URL: (await startRedis(t)).url }, 400);
  });

  // On a cluster a callback commits in three steps (claim, player, session): a process killed
  // between them leaves a claim or a player's writes without the rest, which the resend completes.
  t.test('on a Redis Cluster: two processes, one SIGKILLed mid-stream: every acknowledged bet applied exactly once', async (t) => {
    await killedMidStream(t, { WALLET_SIM_REDIS_CLUSTER: (await startCluster(t)).nodes }, 200);
  });

  t.test('--workers 2: one port, one start line, one wallet', async (t) => {
    const redis = await startRedis(t);
    const env = {
      WALLET_SIM_STORE: 'redis',
      WALLET_SIM_REDIS_URL: redis.url,
      WALLET_SIM_REDIS_PREFIX: uniquePrefix('workers'),
      WALLET_SIM_LOG_LEVEL: 'silent',
    };
    const s = await start(t, ['--port', '0', '--workers', '2'], env);
    t.match(s.stdout(), /store redis, 2 workers/, 'the start line says so');
    await fetch(`${s.url}/admin/players/racer`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ balance: 1000, currency: 'USD' }),
    });
    const replies = await Promise.all(Array.from({ length: 200 }, (_, n) => send(s.url, { ...bet(n, 'racer') })));
    t.equal(replies.filter((r) => r.code === 'R0').length, 100, 'exactly 100 of 200 bets of 10 against 1,000');
    t.equal((await (await fetch(`${s.url}/admin/players/racer`)).json()).balance, 0);
    t.equal((await fetch(`${s.url}/health`)).status, 200);
    const stopped = await s.stop();
    t.equal(stopped.code, 0, 'SIGTERM stops every worker and the primary exits 0');
    t.equal(stopped.stderr.match(/SIGTERM received, closing/g)?.length, 1, 'one closing line, not one per worker');
  });
}

if (!missing) {
  t.test('--redis-timeout-ms (and its env var) reaches Redis: a stopped Redis gives /health 503 within it', async (t) => {
    const redis = await startRedis(t);
    const env = { WALLET_SIM_STORE: 'redis', WALLET_SIM_REDIS_URL: redis.url, WALLET_SIM_LOG_LEVEL: 'silent' };
    const [byFlag, byEnv] = await Promise.all([
      start(t, ['--port', '0', '--redis-prefix', uniquePrefix('timeout'), '--redis-timeout-ms', '300'], env),
      start(t, ['--port', '0', '--redis-prefix', uniquePrefix('timeout')], { ...env, WALLET_SIM_REDIS_TIMEOUT_MS: '400' }),
    ]);
    redis.signal('SIGSTOP');
    t.teardown(() => redis.signal('SIGCONT'));
    for (const [wallet, ms] of [
      [byFlag, 300],
      [byEnv, 400],
    ] as const) {
      const started = performance.now();
      const res = await fetch(`${wallet.url}/health`);
      const took = performance.now() - started;
      t.equal(res.status, 503, `${ms} ms: /health 503`);
      t.match(((await res.json()) as { error: string }).error, `does not answer (no reply within --redis-timeout-ms ${ms} ms`);
      t.ok(took < ms + 2000, `answered in ${Math.round(took)} ms, not a hang`);
    }
    redis.signal('SIGCONT');
    const bad = await run(['start', '--store', 'redis', '--redis-url', redis.url, '--redis-timeout-ms', '0']);
    t.equal(bad.code, 1, '--redis-timeout-ms 0 is refused');
    t.match(bad.stderr, /--redis-timeout-ms.*must be an integer from 1/);
  });
}
