// docs/scale-out.md, "Redis Cluster": the redis store on a local three-master cluster
// (--redis-cluster). Two processes act as one wallet, a transaction_id is applied once across
// players (its claim), a reset reaches both, and a master lost mid-traffic fails only the
// callbacks of its players. One cluster for the file.
import t, { type Test } from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';
import { claimOf, unlistedClaim } from '../../src/backends/redis/records.js';
import type { JournalStore } from '../../src/journal/journal.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, journal, login, result, send, type TestApp } from '../helpers/app.js';
import { clusterOrSkip } from '../helpers/redis-cluster.js';
import { ledgerKeys, uniquePrefix } from '../helpers/redis.js';
import { eventually } from '../helpers/spawn-cli.js';

const cluster = await clusterOrSkip(t);
if (cluster) {
  const USD = { currency: 'USD' };
  const players = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].map((user_id) => ({ user_id, balance: 300, currency: 'USD' }));

  /** `n` wallet-sim processes' worth (each its store and Cluster connection) on one prefix. */
  async function wallets(
    t: Test,
    n: number,
    prefix = uniquePrefix('cluster'),
  ): Promise<(TestApp<JournalStore> & { store: RedisBackend })[]> {
    const built: (TestApp<JournalStore> & { store: RedisBackend })[] = [];
    for (let i = 0; i < n; i++) {
      const store = (await openBackend('redis', { redisCluster: cluster!.nodes, redisPrefix: prefix })) as RedisBackend;
      const w = await buildTestApp({ players }, { store });
      t.teardown(async () => {
        await w.app.close();
        await store.close();
      });
      built.push({ ...w, store });
    }
    return built;
  }

  t.test('two processes on the cluster: one wallet, each transaction_id applied once across players', async (t) => {
    const [a, b] = await wallets(t, 2);
    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, i) => send([a!, b!][i % 2]!.app, bet('p0', `g${i}`, [['1', 'P', 10]], USD))),
    );
    const codes = replies.map((r) => r.body.code as string);
    t.equal(codes.filter((c) => c === 'R0').length, 30, '300 covers exactly 30 bets of 10');
    t.equal(codes.filter((c) => c === 'R4').length, 30, 'the rest R4');
    t.equal((await b!.sim.store.player('p0'))?.balance.toFixed(), '0');

    const placed = bet('p1', 'g1', [['1', 'P', 10]], USD);
    t.match((await send(a!.app, placed)).body, { code: 'R0', latest_balance: 290 });
    t.match((await send(b!.app, placed)).body, { code: 'R0', latest_balance: 290 }, 'its resend on the other process replays');
    const stolen = { ...bet('p2', 'g1', [['1', 'P', 10]], USD), transaction_id: placed.transaction_id };
    t.match((await send(b!.app, stolen)).body, { code: 'R3' }, "another player's callback with that transaction_id: R3");
    t.equal((await a!.sim.store.player('p2'))?.balance.toFixed(), '300', 'and nothing applied');
    const listed = await journal(a!.app);
    t.equal(listed.length, 63, 'the journal of one lists what both served');
    t.same(
      listed.at(-1).findings.map((f: { code: string }) => f.code),
      ['TRANSACTION_REUSED'],
    );
  });

  t.test("a refusal decided on a player's kept records: another player's transaction_id is still R3, as on one Redis", async (t) => {
    const [a] = await wallets(t, 1);
    const placed = bet('p1', 'g1', [['1', 'P', 10]], USD);
    t.equal((await send(a!.app, placed)).body.code, 'R0');
    t.equal((await send(a!.app, login('p2'))).body.code, 'R0', "p2 served: this process keeps p2's records");
    // Decided on them, the id looks unclaimed and the bet too large: R4, with no claim written (no claim step).
    const stolen = { ...bet('p2', 'g2', [['1', 'P', 5000]], USD), transaction_id: placed.transaction_id };
    const reply = await send(a!.app, stolen);
    t.equal(reply.body.code, 'R3', `R3 (it was R4: the claim went unchecked): ${JSON.stringify(reply.body)}`);
    const last = (await journal(a!.app)).at(-1);
    t.same(
      last.findings.map((f: { code: string }) => f.code),
      ['TRANSACTION_REUSED'],
    );
  });

  t.test('a player the other process created after this one saw it absent: served, no false lost state', async (t) => {
    const [a, b] = await wallets(t, 2);
    t.match((await send(b!.app, result('newcomer', 'g0', [['1', 'P', 1, 1]], USD))).body, { code: 'R3' }, 'B sees newcomer absent');
    const first = login('newcomer');
    t.match((await send(a!.app, first)).body, { code: 'R0', latest_balance: 1000 }, 'A creates it');
    t.match((await send(b!.app, first)).body, { code: 'R0', latest_balance: 1000 }, "B replays A's login (R0, not R1 lost state)");
    t.match((await send(b!.app, bet('newcomer', 'g1', [['1', 'P', 10]], USD))).body, { code: 'R0', latest_balance: 990 });
  });

  t.test("a crash between a new player's script and the session's: its next callback lists it", async (t) => {
    const prefix = uniquePrefix('unlisted');
    const [w] = await wallets(t, 1, prefix);
    const listed = async () =>
      ((await w!.app.inject({ method: 'GET', url: '/admin/players' })).json() as { user_id: string }[]).map((p) => p.user_id);
    t.match((await send(w!.app, login('newcomer'))).body, { code: 'R0', latest_balance: 1000 });
    // What a process that died after the player's script of newcomer's first callback leaves: the player, unlisted.
    await w!.store.client.srem((await ledgerKeys(w!.store.client, prefix)).players, 'newcomer');
    t.notOk((await listed()).includes('newcomer'), 'unlisted, as the crash left it');
    t.match((await send(w!.app, bet('newcomer', 'g1', [['1', 'P', 10]], USD))).body, { code: 'R0', latest_balance: 990 });
    t.ok((await listed()).includes('newcomer'), 'listed by its next callback');
    t.match((await send(w!.app, login('stranger'))).body, { code: 'R0' });
    t.same((await listed()).filter((id) => !id.startsWith('p')).sort(), ['newcomer', 'stranger'], 'and nothing else listed');
  });

  t.test("a claim left by a crash: the player's resend applies it; another player's is refused", async (t) => {
    const prefix = uniquePrefix('claim');
    const [w] = await wallets(t, 1, prefix);
    const placed = bet('p3', 'g1', [['1', 'P', 10]], USD);
    // What a process that died between the claim and the player's script leaves behind.
    const claim = { transaction_id: placed.transaction_id, user_id: 'p3', event_type: 'bet', fingerprint: '~leftover' };
    await w!.store.client.set(
      (await ledgerKeys(w!.store.client, prefix)).claim(placed.transaction_id),
      unlistedClaim(claimOf(claim), 'a-crashed-attempt'),
    );
    t.match((await send(w!.app, placed)).body, { code: 'R0', latest_balance: 290 }, 'the resend is applied');
    t.match((await send(w!.app, placed)).body, { code: 'R0', latest_balance: 290 }, 'once');
    const ledger = (await w!.app.inject({ method: 'GET', url: '/admin/ledger' })).json() as { transaction_id: string }[];
    t.equal(ledger.filter((r) => r.transaction_id === placed.transaction_id).length, 1, 'listed in the ledger once');
    const other = bet('p4', 'g1', [['1', 'P', 10]], USD);
    await w!.store.client.set(
      (await ledgerKeys(w!.store.client, prefix)).claim(other.transaction_id),
      claimOf({ ...claim, user_id: 'p5' }),
    );
    t.match((await send(w!.app, other)).body, { code: 'R3' }, "an id another player's callback claimed: R3");
  });

  t.test('a reset on one process: the other serves the new ledger', async (t) => {
    const [a, b] = await wallets(t, 2);
    t.equal((await send(b!.app, bet('p5', 'g1', [['1', 'P', 100]], USD))).body.latest_balance, 200);
    t.equal((await a!.app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200);
    t.equal((await send(b!.app, bet('p5', 'g1', [['1', 'P', 100]], USD))).body.latest_balance, 200, 'from the seeded balance again');
    t.equal((await journal(a!.app)).length, 1, 'the journal began again');
  });

  t.test(
    "a reset on another process, its sweep part-way (the player's record gone, still listed): decided again, no false lost state",
    async (t) => {
      const prefix = uniquePrefix('cluster-swept');
      const [a, b] = await wallets(t, 2, prefix);
      t.equal((await send(a!.app, login('p5'))).body.code, 'R0', "a keeps p5's records");
      const old = await ledgerKeys(a!.store.client, prefix);
      t.equal((await b!.app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200, 'b resets');
      const swept = async () => (await a!.store.client.get(old.player('p5'))) === null && (await a!.store.client.exists(old.players)) === 0;
      t.ok(await eventually(swept, 15_000), "the old ledger's p5 and players set swept");
      await a!.store.client.sadd(old.players, 'p5'); // (as when its players set is not swept yet)
      // Decided on the kept records (the ended ledger's): too large, a refusal; p5's script finds its record gone.
      const reply = await send(a!.app, bet('p5', 'g1', [['1', 'P', 5000]], USD));
      t.equal(
        reply.body.code,
        'R4',
        `decided again on the new ledger (it was R1, "listed but gone"): ${reply.headers['x-wallet-sim-reason'] ?? ''}`,
      );
      t.equal((await send(a!.app, bet('p5', 'g2', [['1', 'P', 100]], USD))).body.latest_balance, 200, 'and served from it');
    },
  );

  /** The first value `get` gives (polled: a restarted node rejoining is a state, not a time), or undefined after 15 s. */
  async function firstOf<T>(get: () => Promise<T | undefined>): Promise<T | undefined> {
    let value: T | undefined;
    await eventually(async () => (value = await get()) !== undefined, 15_000);
    return value;
  }

  /** A player whose master is not the session's, and one on another master again (undefined: none seeded there). */
  async function spread(prefix: string) {
    const layout = new KeyLayout(prefix); // (a player's slot is its tag's, `{p:<id>}`, whatever the generation: of(0) will do)
    const session = await cluster!.serverOf(layout.gen);
    const owners = await Promise.all(
      players.map(async (p) => [p.user_id, await cluster!.serverOf(layout.of(0).player(p.user_id))] as const),
    );
    const [lost, master] = owners.find(([, s]) => s !== session)!;
    return { lost, master, kept: owners.find(([, s]) => s !== master)?.[0] };
  }

  t.test("a player's master restarted without persistence: R1 (listed but gone), never a fresh player", async (t) => {
    const prefix = uniquePrefix('lost-player');
    const { lost, master, kept } = await spread(prefix);
    if (!kept) return void t.comment('every seeded player on one master: nothing to compare');
    const [w] = await wallets(t, 1, prefix);
    for (const user of [lost, kept]) t.match((await send(w!.app, bet(user, 'g1', [['1', 'P', 100]], USD))).body, { code: 'R0' });
    await cluster!.restartEmpty(master);
    const back = await eventually(async () => (await send(w!.app, login(kept))).body.code === 'R0', 15_000);
    t.ok(back, `${kept} served while and after the master restarts`);
    // Once from the process's cache of the player, once read afresh: both find it listed but gone.
    for (const round of ['again', 'read afresh']) {
      const reply = await firstOf(async () => {
        const r = await send(w!.app, bet(lost, `g-${round}`, [['1', 'P', 1]], USD));
        return String(r.headers['x-wallet-sim-reason']).includes('unreachable') ? undefined : r; // (the client reconnecting)
      });
      t.equal(reply?.body.code, 'R1', `${lost} (${round}): R1`);
      t.match(String(reply?.headers['x-wallet-sim-reason']), /lost wallet-sim's state \(player "[^"]+" listed but gone/, 'naming the loss');
    }
    t.notOk(
      await w!.store.client.exists((await ledgerKeys(w!.store.client, prefix)).player(lost)),
      `no fresh ${lost} at the default balance`,
    );
    const health = await w!.app.inject({ method: 'GET', url: '/health' });
    t.equal(health.statusCode, 200, '/health: 200, the other players are served');
    t.match(health.json().degraded, `lost wallet-sim's state of player ${JSON.stringify(lost)}`, '… and degraded names the lost player');
    t.equal((await w!.app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200, 'POST /admin/reset starts afresh');
    t.notOk((await w!.app.inject({ method: 'GET', url: '/health' })).json().degraded, 'the reset clears it');
    t.match((await send(w!.app, bet(lost, 'g2', [['1', 'P', 100]], USD))).body, { code: 'R0', latest_balance: 200 });
  });

  t.test("the session's master restarted without persistence: every callback R1, POST /admin/reset starts afresh", async (t) => {
    const prefix = uniquePrefix('lost-session');
    const [w] = await wallets(t, 1, prefix);
    t.match((await send(w!.app, bet('p0', 'g1', [['1', 'P', 100]], USD))).body, { code: 'R0', latest_balance: 200 });
    await cluster!.restartEmpty(await cluster!.serverOf(new KeyLayout(prefix).gen));
    const refused = await firstOf(async () => {
      const r = await send(w!.app, bet('p0', 'g1', [['1', 'P', 100]], USD));
      return /lost wallet-sim's state/.test(String(r.headers['x-wallet-sim-reason'])) ? r : undefined;
    });
    t.equal(refused?.body.code, 'R1', 'the resend of the applied bet: R1, not applied again');
    t.equal((await w!.app.inject({ method: 'GET', url: '/health' })).statusCode, 503, '/health answers 503');
    t.equal((await w!.app.inject({ method: 'POST', url: '/admin/reset' })).statusCode, 200, 'POST /admin/reset works on the lost state');
    t.match((await send(w!.app, bet('p0', 'g1', [['1', 'P', 100]], USD))).body, { code: 'R0', latest_balance: 200 }, 'from the scenario');
  });

  t.test("a master frozen (SIGSTOP): its players' callbacks time out (R1), the others' go on (R0)", async (t) => {
    const prefix = uniquePrefix('frozen-master');
    const { lost, master, kept } = await spread(prefix);
    if (!kept) return void t.comment('every seeded player on one master: nothing to compare');
    // The healthy master's replies must beat the time-out too, on a machine as busy as CI's: 1.5 s, not a few hundred ms.
    const store = (await openBackend('redis', { redisCluster: cluster!.nodes, redisPrefix: prefix, redisTimeoutMs: 1500 })) as RedisBackend;
    const w = await buildTestApp({ players }, { store });
    t.teardown(async () => {
      master.signal('SIGCONT');
      await w.app.close();
      await store.close();
    });
    for (const user of [lost, kept]) t.equal((await send(w.app, login(user))).body.code, 'R0', `${user} served`);
    master.signal('SIGSTOP');
    const [stuck, ...others] = await Promise.all([
      send(w.app, bet(lost, 'f1', [['1', 'P', 1]], USD)),
      ...[1, 2, 3].map((i) => send(w.app, bet(kept, `f${i}`, [['1', 'P', 1]], USD))),
    ]);
    t.equal(stuck!.body.code, 'R1', `${lost} (the frozen master): R1 after the time-out`);
    t.same(
      others.map((r) => r.body.code),
      ['R0', 'R0', 'R0'],
      `${kept} (another master): R0`,
    );
    master.signal('SIGCONT');
  });

  t.test("a master lost mid-traffic: its players' callbacks fail (R1), the others' go on (R0)", async (t) => {
    const prefix = uniquePrefix('lost-master');
    const { lost, master, kept } = await spread(prefix);
    if (!kept) return void t.comment('every seeded player on one master: nothing to compare');
    const [w] = await wallets(t, 1, prefix);
    for (const user of [lost, kept]) t.equal((await send(w!.app, login(user))).body.code, 'R0', `${user} served`);
    await master.kill();
    const after = await Promise.all(
      Array.from({ length: 10 }, (_, i) => send(w!.app, bet(i % 2 ? kept : lost, `m${i}`, [['1', 'P', 1]], USD))),
    );
    const codes = (user: string) => after.filter((_, i) => (i % 2 ? kept : lost) === user).map((r) => r.body.code ?? r.status);
    t.comment(after.map((r) => `${r.body.code} ${r.headers['x-wallet-sim-reason'] ?? ''}`).join('\n'));
    t.same(codes(kept), ['R0', 'R0', 'R0', 'R0', 'R0'], `${kept} (another master): R0`);
    t.ok(
      codes(lost).every((c) => c === 'R1'),
      `${lost} (the lost master): R1 (${codes(lost).join(' ')})`,
    );
    t.equal((await w!.app.inject({ method: 'GET', url: '/health' })).statusCode !== 0, true, 'the process answers');
    const last = await send(w!.app, bet(kept, 'm-last', [['1', 'P', 1]], USD));
    t.equal(last.body.code, 'R0', `and still serves the others (${last.headers['x-wallet-sim-reason']})`);
  });
}
