// A Redis Cluster callback whose decision is redone as a refusal after one of its steps lost a race
// (docs/scale-out.md, "Redis Cluster"): what its earlier steps set for it (the transaction_id's
// claim, a new player's admission) is given back, so nothing the callback never applied is held
// against another player. The race is made real: another wallet process commits between the steps.
import t, { type Test } from 'tap';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import type { JournalStore } from '../../src/journal/journal.js';
import { openBackend } from '../../src/app/stores.js';
import { bet, buildTestApp, login, send, type TestApp } from '../helpers/app.js';
import { clusterOrSkip } from '../helpers/redis-cluster.js';
import { ledgerKeys, uniquePrefix } from '../helpers/redis.js';

type Wallet = TestApp<JournalStore> & { store: RedisBackend };
type Call = (...args: unknown[]) => Promise<unknown>;

const cluster = await clusterOrSkip(t);
if (cluster) {
  const USD = { currency: 'USD' };
  const players = ['p0', 'p1'].map((user_id) => ({ user_id, balance: 300, currency: 'USD' }));

  async function wallet(t: Test, prefix: string, maxPlayers?: number): Promise<Wallet> {
    const store = (await openBackend('redis', { redisCluster: cluster!.nodes, redisPrefix: prefix, maxPlayers })) as RedisBackend;
    const w = await buildTestApp({ players }, { store });
    t.teardown(async () => {
      await w.app.close();
      await store.close();
    });
    return { ...w, store };
  }

  /** Runs `first` (another process's commit) just before the first call of the client's script `name`. */
  function before(
    store: RedisBackend,
    name: 'walletPlayerCommit' | 'walletClaim' | 'walletSessionCommit',
    first: () => Promise<void>,
  ): void {
    const client = store.client as unknown as Record<string, Call>;
    const original = client[name]!.bind(client);
    let done = false;
    client[name] = async (...args: unknown[]) => {
      if (!done) {
        done = true;
        await first();
      }
      return original(...args);
    };
  }

  /** Holds the store's first step 3 (its session script) until `release`; `atStep3` resolves once it is there. */
  function holdStep3(store: RedisBackend): { atStep3: Promise<void>; release: () => void } {
    let reached!: () => void;
    const atStep3 = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    before(store, 'walletSessionCommit', async () => {
      reached();
      await released;
    });
    return { atStep3, release };
  }

  const reason = (r: Awaited<ReturnType<typeof send>>) => `${String(r.body.code)} ${String(r.headers['x-wallet-sim-reason'] ?? '')}`;

  t.test("a bet redone as R4 (step 2 lost to another process's bet): its id stays free for another player", async (t) => {
    const prefix = uniquePrefix('redo-claim');
    const [w1, w2] = [await wallet(t, prefix), await wallet(t, prefix)];
    // p0 has 300; w2's bet of 200 lands between w1's claim and its player script: w1's 250 is then R4.
    before(w1.store, 'walletPlayerCommit', async () => {
      const other = await send(w2.app, bet('p0', 'g-other', [['1', 'P', 200]], USD));
      t.equal(other.body.code, 'R0', `the other process's bet: R0 (${reason(other)})`);
    });
    const first = bet('p0', 'g1', [['1', 'P', 250]], USD);
    const refused = await send(w1.app, first);
    t.equal(refused.body.code, 'R4', `p0's bet, decided again on 100: R4 (${reason(refused)})`);
    // The id was never applied: p1's bet under it is a transaction of its own.
    const reused = { ...bet('p1', 'g2', [['1', 'P', 1]], USD), transaction_id: first.transaction_id };
    for (const w of [w2, w1]) {
      const r = await send(w.app, reused);
      t.equal(r.body.code, 'R0', `p1's bet under the id p0 never applied: R0 (${reason(r)})`);
    }
    const ledger = await w1.app.inject({ method: 'GET', url: '/admin/ledger' });
    const rows = (JSON.parse(ledger.body) as { transaction_id: string; user_id: string }[]).filter(
      (row) => row.transaction_id === first.transaction_id,
    );
    t.same(
      rows.map((row) => row.user_id),
      ['p1'],
      'the ledger: the id applied once, to p1',
    );
  });

  t.test("the same bet racing on two processes, the loser's redo before the winner's step 3: applied and claimed once", async (t) => {
    const prefix = uniquePrefix('redo-race');
    const [w1, w2] = [await wallet(t, prefix), await wallet(t, prefix)];
    const placed = bet('p0', 'g1', [['1', 'P', 50]], USD);
    // w2's resend claims the id over w1's claim and applies it; its step 3 waits until w1 (whose
    // player script then fails) has given back what it set and answered: w1 must not take w2's claim.
    const { atStep3, release } = holdStep3(w2.store);
    let second: Promise<Awaited<ReturnType<typeof send>>> | undefined;
    before(w1.store, 'walletPlayerCommit', async () => {
      second = send(w2.app, placed);
      await atStep3;
    });
    const first = await send(w1.app, placed);
    release();
    const resent = await second!;
    t.match(first.body, { code: 'R0', latest_balance: 250 }, `w1: R0 at 250 (${reason(first)})`);
    t.match(resent.body, { code: 'R0', latest_balance: 250 }, `w2: R0 at 250 (${reason(resent)})`);
    const other = await send(w1.app, { ...bet('p1', 'g2', [['1', 'P', 1]], USD), transaction_id: placed.transaction_id });
    t.equal(other.body.code, 'R3', `p1 under p0's id: R3, the claim held (${reason(other)})`);
    const ledger = JSON.parse((await w2.app.inject({ method: 'GET', url: '/admin/ledger' })).body) as { transaction_id: string }[];
    t.equal(ledger.filter((row) => row.transaction_id === placed.transaction_id).length, 1, 'listed in the ledger once');
    const listed = await w1.store.client.get((await ledgerKeys(w1.store.client, prefix)).claim(placed.transaction_id));
    t.notOk(listed?.includes('attempt'), `the listed claim keeps no attempt (${listed})`);
  });

  t.test('two resends over each other, both redone as R4: the claim goes back past the withdrawn one', async (t) => {
    const prefix = uniquePrefix('redo-aba');
    const [w1, w2, w3] = [await wallet(t, prefix), await wallet(t, prefix), await wallet(t, prefix)];
    const placed = bet('p0', 'g1', [['1', 'P', 250]], USD);
    // w1 claims; w2 (the same bet) claims over w1's and waits before its player script; w3's bet
    // then leaves p0 100. w1's player script fails (its claim no longer there to give back: it
    // withdraws it) and is redone as R4; then w2's fails too: its give-back must not restore w1's.
    let reached!: () => void;
    const atStep2 = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const w1Done = new Promise<void>((resolve) => (release = resolve));
    before(w2.store, 'walletPlayerCommit', async () => {
      reached();
      await w1Done;
    });
    let second: Promise<Awaited<ReturnType<typeof send>>> | undefined;
    before(w1.store, 'walletPlayerCommit', async () => {
      second = send(w2.app, placed);
      await atStep2;
      const other = await send(w3.app, bet('p0', 'g-other', [['1', 'P', 200]], USD));
      t.equal(other.body.code, 'R0', `w3's bet: R0 (${reason(other)})`);
    });
    const first = await send(w1.app, placed);
    release();
    const resent = await second!;
    t.equal(first.body.code, 'R4', `w1: R4 (${reason(first)})`);
    t.equal(resent.body.code, 'R4', `w2: R4 (${reason(resent)})`);
    const reused = await send(w3.app, { ...bet('p1', 'g2', [['1', 'P', 1]], USD), transaction_id: placed.transaction_id });
    t.equal(reused.body.code, 'R0', `p1 under the id nobody applied: R0 (${reason(reused)})`);
    // w1's withdrawal is kept beside the claims, under no other id's claim.
    const named = { ...bet('p1', 'g3', [['1', 'P', 1]], USD), transaction_id: `${placed.transaction_id}:withdrawn` };
    const other = await send(w1.app, named); // (w1 has not served p1: it reads the claim)
    t.equal(other.body.code, 'R0', `p1 under the id "<that id>:withdrawn": R0 (${reason(other)})`);
  });

  t.test('a new player whose first bet is redone as R3 (its id claimed meanwhile): its admission is given back', async (t) => {
    const prefix = uniquePrefix('redo-admit');
    // Two players seeded, room for one more.
    const [w1, w2] = [await wallet(t, prefix, 3), await wallet(t, prefix, 3)];
    const first = bet('newbie', 'g1', [['1', 'P', 5]], USD);
    // w2 applies the same id to p0 between newbie's admission and its claim: newbie's bet is R3.
    before(w1.store, 'walletClaim', async () => {
      const other = await send(w2.app, { ...bet('p0', 'g9', [['1', 'P', 1]], USD), transaction_id: first.transaction_id });
      t.equal(other.body.code, 'R0', `p0's bet under the id: R0 (${reason(other)})`);
    });
    const refused = await send(w1.app, first);
    t.equal(refused.body.code, 'R3', `newbie's bet under p0's id: R3 (${reason(refused)})`);
    // newbie was never created: the third place is free for another new player.
    for (const w of [w1, w2]) {
      const r = await send(w.app, login('fresh'));
      t.equal(r.body.code, 'R0', `a new player, the third: R0 (${reason(r)})`);
    }
    const fourth = await send(w2.app, login('one-too-many'));
    t.equal(fourth.body.code, 'R3', `a fourth player: R3 (${reason(fourth)})`);
  });
  t.test("a new player created by two processes at once, one giving back its admission: the other's still holds the place", async (t) => {
    const prefix = uniquePrefix('redo-admit-race');
    // Two players seeded, room for one more: newbie's.
    const [w1, w2, w3] = [await wallet(t, prefix, 3), await wallet(t, prefix, 3), await wallet(t, prefix, 3)];
    const { atStep3, release } = holdStep3(w2.store);
    // w2 creates newbie (its step 3 waits) between w1's admission of newbie and w1's player script,
    // which then fails and gives its admission back; w2's, not listed yet, must still count.
    let second: Promise<Awaited<ReturnType<typeof send>>> | undefined;
    before(w1.store, 'walletPlayerCommit', async () => {
      second = send(w2.app, login('newbie'));
      await atStep3;
    });
    let fresh: Awaited<ReturnType<typeof send>> | undefined;
    before(w1.store, 'walletSessionCommit', async () => {
      fresh = await send(w3.app, login('fresh'));
    });
    const first = await send(w1.app, bet('newbie', 'g1', [['1', 'P', 5]], USD));
    release();
    t.equal((await second!).body.code, 'R0', "w2's login of newbie: R0");
    t.equal(first.body.code, 'R0', `w1's bet of newbie, decided again: R0 (${reason(first)})`);
    t.equal(fresh?.body.code, 'R3', `another new player meanwhile, the fourth: R3 (${fresh && reason(fresh)})`);
    const count = JSON.parse((await w3.app.inject({ method: 'GET', url: '/admin/players' })).body) as unknown[];
    t.equal(count.length, 3, 'three players');
  });
}
