// What one callback sends Redis (docs/scale-out.md, "What one callback sends Redis"): counted with
// MONITOR on a real redis-server, so a change that adds a command or a round trip to the hot path
// shows here. And the journal ids, given by the commit script (valid callbacks) or apart (refused
// ones), stay unique and complete when valid and refused callbacks of one player arrive together.
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, HEADERS, login, result, send, txid } from '../helpers/app.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { eventually } from '../helpers/spawn-cli.js';
import { journalOf } from '../../src/app/compose.js';

const redis = await redisOrSkip(t);
if (redis) {
  const open = async (t: Test, scenario: Partial<Scenario> = {}) => {
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('commands') })) as RedisBackend;
    const { app } = await buildTestApp(scenario, { store });
    t.teardown(async () => {
      await app.close();
      await store.close();
    });
    return { app, store };
  };

  /** The commands the store's connection sends for a login, a bet and its result, one list each. */
  const commandsOf = async (t: Test, scenario: Partial<Scenario> = {}): Promise<string[][]> => {
    const { app, store } = await open(t, scenario);
    // Scripts loaded, the player known to this process (its records cached: one script per callback).
    await send(app, login('player-1'), HEADERS);
    const client = new Redis(redis.url);
    const monitor = await client.monitor();
    t.teardown(() => {
      monitor.disconnect();
      client.disconnect();
    });
    // The store's own connection: the grading and journal followers read on connections of their own.
    const own = `127.0.0.1:${store.client.stream.localPort}`;
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source.endsWith(own)) seen.push(args[0]!.toLowerCase());
    });
    // A PING of the store's connection marks where a callback's commands end: everything it sent
    // before (its grading events too: they go before the reply) is run and shown before it.
    const upToPing = async () => {
      await store.client.ping();
      t.ok(await eventually(async () => seen.includes('ping')), 'MONITOR shows the PING');
      const commands = seen.splice(0);
      return commands.slice(0, commands.indexOf('ping'));
    };
    await upToPing();
    const perCallback: string[][] = [];
    const game = txid('g');
    for (const body of [login('player-1'), bet('player-1', game, [['1', 'P', 2]]), result('player-1', game, [['1', 'P', 2, 2]])]) {
      const reply = await send(app, body, HEADERS);
      t.equal(reply.body.code, 'R0');
      perCallback.push(await upToPing());
    }
    return perCallback;
  };

  const sent = (t: Test, perCallback: string[][], expected: string[], what: string) => {
    for (const [i, commands] of perCallback.entries()) t.same(commands, expected, `callback ${i + 1}: ${what} (${commands.join(' ')})`);
  };

  t.test('a login, a bet and its result: one script each, the count in it', async (t) => {
    // No rule draws, so nobody reads the count: the script counts the callback too.
    sent(t, await commandsOf(t), ['evalsha'], 'one script: check, commit, count, journal entry and grading event');
  });

  t.test('a rule that draws: the script waits for the count, the draw input', async (t) => {
    // It draws (so every callback's count is read), for another player (so it never fires here).
    const draws = { name: 'elsewhere', when: { user_id: 'someone-else' }, then: { code: 'R1' as const }, probability: 0.5 };
    sent(t, await commandsOf(t, { rules: [draws] }), ['hincrby', 'evalsha'], 'the count, then one script');
  });

  t.test('counts kept: in the script, or on their own when no script takes them', async (t) => {
    const { app, store } = await open(t);
    await send(app, login('c1'), HEADERS);
    // Concurrent callbacks of one player: the first script takes the counts of its turn, the rest go on their own.
    const replies = await Promise.all(Array.from({ length: 5 }, () => send(app, login('c1'), HEADERS)));
    t.ok(replies.every((r) => r.body.code === 'R0'));
    // A refused one (no timestamp: R3 without the ledger) is counted too.
    await send(app, { ...login('c1'), timestamp: undefined }, HEADERS);
    t.ok(await eventually(async () => (await store.client.hget(`${store.keyPrefix}calls`, 'c1')) === '7'), 'seven callbacks counted');
  });

  t.test('ids unique and every entry kept, valid and refused callbacks of one player together', async (t) => {
    const { app, store } = await open(t);
    await send(app, login('p2'), HEADERS);
    const sent = [];
    for (let i = 0; i < 20; i++) {
      // A valid login and one refused (no timestamp: R3, decided without the ledger) of the same player.
      sent.push(send(app, login('p2'), HEADERS), send(app, { ...login('p2'), timestamp: undefined }, HEADERS));
    }
    const replies = await Promise.all(sent);
    t.same(new Set(replies.map((r) => r.body.code)), new Set(['R0', 'R3']));
    const entries = await (await journalOf(store)).list();
    const ids = entries.map((e) => e.id);
    t.equal(entries.length, 41, 'every callback journalled');
    t.equal(new Set(ids).size, ids.length, 'ids unique');
    t.ok(
      ids.every((id) => id > 0),
      'none lost',
    );
  });
}
