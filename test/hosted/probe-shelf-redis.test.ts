// Hosted probe runs on Redis: a run whose process died reads `failed`, and its tenant's slot is free,
// within the slot's time (the process renews it while the run goes on, whatever a check waits
// for); before, a dead process's run read `running` (a new run 409) for five minutes after its last
// check. A small slot here (1.5 s); the product's is 15 s.
import t from 'tap';
import { RedisRunShelf } from '../../src/app/probe-shelf-redis.js';
import { RedisHub } from '../../src/backends/redis/hub.js';
import type { StoredRun } from '../../src/routes/probe-run.js';
import { redisOrSkip, uniquePrefix } from '../helpers/redis.js';

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
}
