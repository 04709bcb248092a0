// docs/scale-out.md, "One callback, one script": a process decides on the records it cached for a
// player and sends one script that checks them. Here two processes (two stores and apps on one
// Redis prefix) serve one player, so each one's cache goes stale behind its back: the failed check
// answers the current records, the callback is decided again on them, and the decisions stay exact
// (no double debit, a resend answered as a replay), with the commands each callback sent counted.
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { openBackend } from '../../src/app/stores.js';
import { journalOf } from '../../src/app/compose.js';
import { bet, buildTestApp, HEADERS, login, send } from '../helpers/app.js';
import { eventually } from '../helpers/spawn-cli.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

const redis = await redisOrSkip(t);
if (redis) {
  /** Two wallet-sim processes' worth (each its store, connection and cache) on one prefix, one player. */
  const twoWallets = async (t: Test) => {
    const prefix = uniquePrefix('one-script');
    const wallets = [];
    for (let i = 0; i < 2; i++) {
      const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix })) as RedisBackend;
      const built = await buildTestApp({ players: [{ user_id: 'racer', balance: 1000, currency: 'USD' }] }, { store });
      t.teardown(async () => {
        await built.app.close();
        await store.close();
      });
      wallets.push({ ...built, store });
    }
    return wallets;
  };

  /** The commands wallet `store`'s own connection sends during `work` (MONITOR; a PING marks the end). */
  const commandsDuring = async (t: Test, store: RedisBackend, work: () => Promise<unknown>): Promise<string[]> => {
    const client = new Redis(redis.url);
    const monitor = await client.monitor();
    t.teardown(() => {
      monitor.disconnect();
      client.disconnect();
    });
    const own = `127.0.0.1:${store.client.stream.localPort}`;
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source.endsWith(own)) seen.push(args[0]!.toLowerCase());
    });
    await store.client.ping();
    t.ok(await eventually(async () => seen.includes('ping')), 'MONITOR follows');
    seen.length = 0;
    await work();
    await store.client.ping();
    t.ok(await eventually(async () => seen.includes('ping')), 'MONITOR shows the end');
    return seen.slice(0, seen.indexOf('ping'));
  };

  t.test('a stale cache: the check answers the current records and the callback is decided again on them', async (t) => {
    const [a, b] = await twoWallets(t);
    t.equal((await send(a!.app, login('racer'), HEADERS)).body.code, 'R0', 'A serves the player: its records cached');
    const first = bet('racer', 'g1', [['1', 'P', 10]], { currency: 'USD' });
    t.equal((await send(b!.app, first, HEADERS)).body.latest_balance, 990, 'B debits behind A’s back');
    let reply: Awaited<ReturnType<typeof send>> | undefined;
    const commands = await commandsDuring(t, a!.store, async () => {
      reply = await send(a!.app, bet('racer', 'g2', [['1', 'P', 10]], { currency: 'USD' }), HEADERS);
    });
    t.equal(reply!.body.latest_balance, 980, 'A decides on the balance B left, not on its cached 1,000');
    t.same(commands, ['evalsha', 'evalsha'], 'the script whose check failed, then the one that commits: no read apart');
    // A resend of B's bet through A: A assumes a new transaction, the check finds it applied.
    const replay = await send(a!.app, first, HEADERS);
    t.equal(replay.body.code, 'R0', 'the resend is answered R0');
    t.equal(replay.body.latest_balance, 980, 'with the balance as it stands: nothing changed');
    t.equal((await send(b!.app, bet('racer', 'g3', [['1', 'P', 10]], { currency: 'USD' }), HEADERS)).body.latest_balance, 970, 'B too');
    for (const w of [a!, b!]) t.equal((await w.sim.store.player('racer'))?.balance.toFixed(), '970', 'three debits, one replay');
    const entries = await (await journalOf(a!.store)).list({ transaction_id: first.transaction_id });
    t.same(
      entries.map((e) => e.replayed),
      [false, true],
      'journalled: applied once, then replayed',
    );
  });

  t.test('40 bets each sent to both processes at once: each applied once, the rest replays', async (t) => {
    const [a, b] = await twoWallets(t);
    // Both serve the player first: every callback below is decided on a cache the other makes stale.
    for (const w of [a!, b!]) await send(w.app, login('racer'), HEADERS);
    const bets = Array.from({ length: 40 }, (_, i) => bet('racer', `c${i}`, [['1', 'P', 10]], { currency: 'USD' }));
    const replies = await Promise.all(bets.flatMap((body) => [send(a!.app, body, HEADERS), send(b!.app, body, HEADERS)]));
    t.ok(
      replies.every((r) => r.body.code === 'R0'),
      'all R0',
    );
    for (const w of [a!, b!]) t.equal((await w.sim.store.player('racer'))?.balance.toFixed(), '600', '40 debits of 10, not 80');
    const entries = (await (await journalOf(a!.store)).list({ event_type: 'bet' })).filter((e) => e.code === 'R0');
    t.equal(entries.filter((e) => !e.replayed).length, 40, 'each bet applied once');
    t.equal(entries.filter((e) => e.replayed).length, 40, 'and replayed once');
    t.same(
      entries
        .filter((e) => !e.replayed)
        .map((e) => e.balance_after)
        .sort((x, y) => x! - y!),
      Array.from({ length: 40 }, (_, i) => 600 + 10 * i),
      'each debit saw a distinct balance: none decided on a stale one',
    );
  });

  t.test('scripts flushed from Redis (a restart, SCRIPT FLUSH): the commit sends its script again and applies once', async (t) => {
    const [a] = await twoWallets(t);
    t.equal((await send(a!.app, login('racer'), HEADERS)).body.code, 'R0');
    const first = await commandsDuring(t, a!.store, () => send(a!.app, bet('racer', 'g1', [['1', 'P', 10]], { currency: 'USD' }), HEADERS));
    t.same(first, ['evalsha'], 'the script was sent whole once on this connection: its SHA1 since');
    const admin = new Redis(redis.url);
    t.teardown(() => admin.disconnect());
    await admin.script('FLUSH');
    let reply: Awaited<ReturnType<typeof send>> | undefined;
    const again = await commandsDuring(t, a!.store, async () => {
      reply = await send(a!.app, bet('racer', 'g2', [['1', 'P', 10]], { currency: 'USD' }), HEADERS);
    });
    t.same(again, ['evalsha', 'eval'], 'NOSCRIPT answered: the same call again, with the script whole');
    t.equal(reply!.body.code, 'R0');
    t.equal(reply!.body.latest_balance, 980, 'debited once');
    const next = await commandsDuring(t, a!.store, () => send(a!.app, bet('racer', 'g3', [['1', 'P', 10]], { currency: 'USD' }), HEADERS));
    t.same(next, ['evalsha'], 'and by its SHA1 again after');
  });
}
