// Hosted probe runs on Redis: a run whose process died reads `failed`, and its tenant's slot is free,
// within the slot's time (the process renews it while the run goes on, whatever a check waits
// for); before, a dead process's run read `running` (a new run 409) for five minutes after its last
// check. A small slot here (1.5 s); the product's is 15 s.
import t from 'tap';
import { RedisRunShelf } from '../../src/app/probe-shelf-redis.js';
import { RedisHub } from '../../src/backends/redis/hub.js';
import { KeyLayout } from '../../src/backends/redis/keys.js';
import type { StoredRun } from '../../src/routes/probe-run.js';
import { CLUSTER_SCHEME } from '../../src/backends/redis/defaults.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';
import { clusterOrSkip } from '../helpers/redis-cluster.js';

const SLOT = 1500;
const redis = await redisOrSkip(t);
if (redis) {
  const prefix = uniquePrefix('probe-shelf');
  /** One process's shelf, on a hub of its own. */
  const processShelf = async () => {
    const hub = await RedisHub.open(redis.url, [`${prefix}none`], 1000);
    t.teardown(() => hub.close());
    return { hub, shelf: new RedisRunShelf(hub, (tenant) => `${prefix}${tenant}:`, SLOT) };
  };
  const running = (id: string): StoredRun => ({
    id,
    state: 'running',
    started_at: new Date().toISOString(),
    target: { url: 'http://127.0.0.1:1/callback', user: 'p1', currency: 'USD' },
    checks: [],
  });
  /** Polls run `id` on `shelf` until its state is not `running`, or `ms` passed: the last state. */
  const stateAfter = async (shelf: RedisRunShelf, tenant: string, id: string, ms: number) => {
    let state = (await shelf.get(tenant, id))?.state;
    for (const until = Date.now() + ms; state === 'running' && Date.now() < until; await new Promise((r) => setTimeout(r, 50)))
      state = (await shelf.get(tenant, id))?.state;
    return state;
  };

  t.test('a live run keeps its slot past the slot time, though no check writes meanwhile', async (t) => {
    const [a, b] = [await processShelf(), await processShelf()];
    t.equal(await a.shelf.claim('live', 'r1'), undefined, 'claimed');
    await a.shelf.put('live', running('r1'), 10);
    await new Promise((r) => setTimeout(r, SLOT * 3)); // (a check waiting on a slow wallet: no write)
    t.equal((await b.shelf.get('live', 'r1'))?.state, 'running', 'the other process still reads it running');
    t.equal(await b.shelf.claim('live', 'r2'), 'r1', 'the slot is still the run’s');
    await a.shelf.release('live', 'r1');
    t.equal(await b.shelf.claim('live', 'r2'), undefined, 'released: free');
    await b.shelf.release('live', 'r2');
  });

  t.test("a run whose process died: failed, and the slot free, within the slot's time", async (t) => {
    const [a, b] = [await processShelf(), await processShelf()];
    t.equal(await a.shelf.claim('dead', 'r1'), undefined);
    await a.shelf.put('dead', running('r1'), 10);
    a.shelf.close(); // as a SIGKILL would: no more renewals
    a.hub.close();
    t.equal(await stateAfter(b.shelf, 'dead', 'r1', SLOT * 5), 'failed');
    t.match(await b.shelf.get('dead', 'r1'), { message: /the process that ran it stopped before the run ended/ });
    t.equal(await b.shelf.claim('dead', 'r2'), undefined, 'a new run may start');
    await b.shelf.release('dead', 'r2');
  });

  const slotKey = (tenant: string) => `${new KeyLayout(`${prefix}${tenant}:`).session}probe:running`;

  t.test("a slot another run took meanwhile is not taken back by the first run's writes", async (t) => {
    const [a, b] = [await processShelf(), await processShelf()];
    t.equal(await a.shelf.claim('taken', 'r1'), undefined);
    await a.shelf.put('taken', running('r1'), 10);
    await a.hub.client.del(slotKey('taken')); // (expired while Redis was away)
    t.equal(await b.shelf.claim('taken', 'r2'), undefined, 'another run took the free slot');
    await a.shelf.put('taken', running('r1'), 10); // a check of r1 written
    t.equal(await b.hub.client.get(slotKey('taken')), 'r2', "the slot is still r2's (it was overwritten: r2 then read failed)");
    await b.shelf.release('taken', 'r2');
    a.shelf.close();
  });

  t.test('a slot Redis lost (flushed, restarted) is taken again by its live run: never shown failed for it', async (t) => {
    const [a, b] = [await processShelf(), await processShelf()];
    t.equal(await a.shelf.claim('lost', 'r1'), undefined);
    await a.shelf.put('lost', running('r1'), 10);
    await a.hub.client.del(slotKey('lost'));
    let holder: string | null = null;
    for (const until = Date.now() + SLOT * 5; holder === null && Date.now() < until; await new Promise((r) => setTimeout(r, 50)))
      holder = await b.hub.client.get(slotKey('lost'));
    t.equal(holder, 'r1', 'the renewal took it again');
    t.equal((await b.shelf.get('lost', 'r1'))?.state, 'running', 'the other process reads it running');
    t.equal(await b.shelf.claim('lost', 'r2'), 'r1', 'and no second run starts');
    await a.shelf.release('lost', 'r1');
  });
}

// On a Redis Cluster (--redis-cluster): a run's writes and reads are transactions over its keys, the
// tenant's list and its slot, which must lie in one hash slot (they spanned three: CROSSSLOT, the
// run's copy never written, a list of two runs unreadable by the other process).
const cluster = await clusterOrSkip(t);
if (cluster) {
  const prefix = uniquePrefix('probe-shelf-cluster');
  const processShelf = async () => {
    const hub = await RedisHub.open(`${CLUSTER_SCHEME}${cluster.nodes}`, [`${prefix}none`], 5000);
    t.teardown(() => hub.close());
    return new RedisRunShelf(hub, (tenant) => `${prefix}t:${tenant}:`, SLOT);
  };
  const run = (id: string, state: StoredRun['state']): StoredRun => ({
    id,
    state,
    started_at: new Date().toISOString(),
    target: { url: 'http://127.0.0.1:1/callback', user: 'p1', currency: 'USD' },
    checks: [],
  });

  t.test('on a Redis Cluster: runs written by one process are listed and read by another', async (t) => {
    const [a, b] = [await processShelf(), await processShelf()];
    for (const tenant of ['x', 'y', 'z']) {
      t.equal(await a.claim(tenant, 'r1'), undefined, `${tenant}: claimed`);
      await a.put(tenant, run('r1', 'running'), 2);
      await a.put(tenant, run('r1', 'done'), 2);
      await a.release(tenant, 'r1');
      t.equal(await b.claim(tenant, 'r2'), undefined, `${tenant}: the other process's run may start`);
      await b.put(tenant, run('r2', 'running'), 2);
      t.same(
        (await a.list(tenant)).map((r) => [r.id, r.state]),
        [
          ['r2', 'running'],
          ['r1', 'done'],
        ],
        `${tenant}: both runs listed, newest first, by the process that ran neither last`,
      );
      t.equal((await a.get(tenant, 'r2'))?.state, 'running', `${tenant}: and read one by one`);
      await b.put(tenant, run('r3', 'running'), 2);
      t.same(
        (await b.list(tenant)).map((r) => r.id),
        ['r3', 'r2'],
        `${tenant}: the oldest beyond the kept two dropped`,
      );
      t.equal(await a.get(tenant, 'r1'), undefined, `${tenant}: its record deleted`);
      await b.release(tenant, 'r2');
    }
  });
}
