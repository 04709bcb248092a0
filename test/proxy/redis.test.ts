// Proxy mode on a Redis store: `start --store redis --workers 2 --upstream` (the CLI), and two
// proxies in this process sharing one Redis, whose wallet-side grading folds both processes' events.
import t from 'tap';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import type { Rule } from '../../src/protocol/types.generated.js';
import { bet, buildTestApp, listen, login, post, TEST_SCENARIO } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { eventually, start } from '../helpers/spawn-cli.js';
import { getJson, scenarioFile, startUpstream } from './upstream.js';

const usd = { currency: 'USD' };
const DROP: Rule = { name: 'lost bet', when: { event_type: 'bet', user_id: 'w-drop' }, then: { drop_connection: true }, times: 1 };
/** POSTs; a closed connection is NO_REPLY. */
const send = async (url: string, body: object) => {
  try {
    return (await post(url, body)).body as { code: string; latest_balance?: number };
  } catch {
    return { code: 'NO_REPLY' };
  }
};

t.test('start --store redis --workers 2 --upstream', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const up = await startUpstream(t);
  const scenario = scenarioFile({ ...TEST_SCENARIO, players: [], rules: [DROP] });
  const proxy = await start(t, ['--port', '0', '--workers', '2', '--scenario', scenario, '--upstream', up.url], {
    WALLET_SIM_STORE: 'redis',
    WALLET_SIM_REDIS_URL: redis.url,
    WALLET_SIM_REDIS_PREFIX: uniquePrefix('proxy'),
    WALLET_SIM_LOG_LEVEL: 'silent',
  });
  t.match(proxy.stdout(), `proxying to ${up.url}`, 'the start line names the upstream');
  t.match(await getJson(proxy.url, '/health'), { status: 'ok', store: 'redis', upstream: { url: up.url } });
  const url = `${proxy.url}/callback`;
  const users = ['w-1', 'w-2', 'w-3', 'w-drop'];
  // Each player on connections of its own: the two workers share them.
  const outcomes = await Promise.all(
    users.map(async (user) => {
      const seen = [(await send(url, login(user))).code];
      const b = bet(user, 'g1', [['1', 'P', 10]], usd);
      let reply = await send(url, b);
      seen.push(reply.code);
      if (reply.code === 'NO_REPLY') {
        reply = await send(url, b);
        seen.push(reply.code);
      }
      return `${user}: ${seen.join(' ')} ${reply.latest_balance}`;
    }),
  );
  t.same(
    outcomes,
    ['w-1: R0 R0 990', 'w-2: R0 R0 990', 'w-3: R0 R0 990', 'w-drop: R0 NO_REPLY R0 990'],
    'the drop rule fired once across the workers',
  );
  t.same(((await up.get('/admin/ledger?user_id=w-drop')) as unknown[]).length, 1, 'one debit upstream for the dropped bet and its resend');
  const players = (await getJson(proxy.url, '/admin/players')) as { user_id: string; balance: number }[];
  t.same(
    players.map((p) => `${p.user_id} ${p.balance}`).sort(),
    users.map((u) => `${u} 990`),
    'every worker recorded what the upstream reported',
  );
});

t.test('two proxies on one Redis: one wallet-side verdict', async (t) => {
  const redis = await redisOrSkip(t);
  if (!redis) return;
  const up = await startUpstream(t);
  const prefix = uniquePrefix('proxy-grading');
  const proxies = [];
  for (let i = 0; i < 2; i++) {
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix })) as RedisBackend;
    const built = await buildTestApp({ players: [] }, { store, upstream: { url: up.url, timeoutMs: 30_000 } });
    t.teardown(async () => {
      await built.app.close();
      await built.sim.store.close();
    });
    proxies.push({ ...built, url: `${await listen(built.app)}/callback` });
  }
  const [a, b] = proxies as [(typeof proxies)[0], (typeof proxies)[0]];
  t.equal((await send(a.url, login('shared'))).code, 'R0');
  const placed = bet('shared', 'g1', [['1', 'P', 10]], usd);
  t.equal((await send(b.url, placed)).code, 'R0');
  t.equal((await send(a.url, placed)).latest_balance, 990, 'the resend through the other process: replayed upstream');
  const verdict = async (p: typeof a) => (await p.sim.currentGrading()).wallet!.checks().map((c) => `${c.id}: ${c.status} ${c.exercised}`);
  t.ok(
    await eventually(
      async () => (await verdict(a)).includes('WALLET_IDEMPOTENT: pass 1') && (await verdict(b)).includes('WALLET_IDEMPOTENT: pass 1'),
    ),
    'both processes folded the three exchanges',
  );
  t.same(await verdict(a), await verdict(b), 'the same verdict in both processes');
  t.notOk(
    (await verdict(a)).some((line) => line.includes(': fail')),
    'no wallet-side failure',
  );
});
