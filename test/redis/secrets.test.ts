// Secret headers never reach Redis: whatever the Redis store keeps of a callback (the journal's
// stream, the grading state and its evidence, the ledger), read back key by key from a real
// redis-server, holds no secret header's value.
import { Redis } from 'ioredis';
import t from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, HEADERS, listen, login, result } from '../helpers/app.js';
import { post } from '../helpers/net.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { eventually } from '../helpers/spawn-cli.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';

/** Every value stored under `prefix`, as text, whatever the key's type, by key. */
async function everything(client: Redis, prefix: string): Promise<Map<string, string>> {
  const all = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await client.type(key);
      const value =
        type === 'string'
          ? await client.get(key)
          : type === 'hash'
            ? await client.hgetall(key)
            : type === 'list'
              ? await client.lrange(key, 0, -1)
              : type === 'set'
                ? await client.smembers(key)
                : type === 'zset'
                  ? await client.zrange(key, 0, -1, 'WITHSCORES')
                  : type === 'stream'
                    ? await client.xrange(key, '-', '+')
                    : undefined;
      if (value === undefined) throw new Error(`${key}: a ${type}, which this test does not read; add it`);
      all.set(key, JSON.stringify(value));
    }
  } while (cursor !== '0');
  return all;
}

const redis = await redisOrSkip(t);
if (redis) {
  t.test('no secret header value is stored in Redis: journal, grading evidence, ledger', async (t) => {
    const prefix = uniquePrefix('secrets');
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix })) as RedisBackend;
    const { app, sim } = await buildTestApp(
      { rules: [{ name: 'lost', when: { event_type: 'bet', user_id: 'p' }, then: { drop_connection: true }, times: 1 }] },
      { store },
    );
    t.teardown(async () => {
      await app.close();
      await sim.store.close();
    });
    const url = `${await listen(app)}/callback`;
    const secrets = { cookie: 'session=abcdef123456', 'x-provider-token': 'tok-abcdef', 'api-key': HEADERS['api-key'] };
    const headers = { ...HEADERS, ...secrets };
    const USD = { currency: 'USD' };
    t.equal((await post(url, login('p'), headers, 5000)).body?.code, 'R0');
    t.ok((await post(url, bet('p', 'G1', [['1', 'P', 10]], USD), headers, 5000)).error, 'the first bet reply is dropped');
    // Resent under a new transaction_id: a RETRY_SAME_TRANSACTION violation, whose evidence cites both.
    t.ok((await post(url, bet('p', 'G1', [['1', 'P', 10]], USD), headers, 5000)).body?.code, 'the resend is answered');
    const settlement = result('p', 'G1', [['1', 'P', 10, 5]], USD);
    t.ok((await post(url, settlement, headers, 5000)).body?.code, 'the settlement is answered');

    const report = (await app.inject({ method: 'GET', url: '/admin/report' })).json();
    const check = report.checks.find((c: { id: string }) => c.id === 'RETRY_SAME_TRANSACTION');
    t.ok(check.violations[0]?.evidence.length > 0, 'the violation cites its callbacks');

    const client = new Redis(redis.url);
    const { session } = new KeyLayout(prefix);
    t.teardown(() => client.quit());
    // Grading events reach Redis after the reply (not waited for): read once the settlement's is there.
    const settled = `"tx":"${settlement.transaction_id}"`;
    const graded = (keys: Map<string, string>) =>
      [...keys].some(([key, value]) => key.startsWith(`${session}grading:`) && value.replaceAll('\\"', '"').includes(settled));
    let keys = new Map<string, string>();
    t.ok(await eventually(async () => graded((keys = await everything(client, prefix)))), "the settlement's grading event is in Redis");
    // The scenario is shared by every process on this Redis, credentials and all: configuration, not a callback.
    t.ok(keys.get(`${session}scenario`)?.includes(HEADERS['api-key']), "the scenario's own credentials are there");
    keys.delete(`${session}scenario`);
    t.ok(keys.has(`${session}journal`), 'the journal stream is read');
    const stored = [...keys].map(([key, value]) => `${key} ${value}`).join('\n');
    t.match(stored, /"cookie\\?":\\?"se\*+/, 'the headers are stored, masked');
    for (const [name, value] of Object.entries(secrets)) t.equal(stored.indexOf(value), -1, `${name}'s value is nowhere else in Redis`);
  });
}
