// The Backend contract (src/backends/backend.ts): one suite, run against memory, file and redis.
// What the simulator relies on is here; a new backend passes this suite before anything else.
import { skip } from '../helpers/required.js';
import t, { type Test } from 'tap';
import type { Backend, BackendOptions } from '../../src/backends/backend.js';
import type { Change } from '../../src/ledger/change.js';
import { FileBackend } from '../../src/backends/file/file-backend.js';
import { MemoryBackend } from '../../src/backends/memory/memory.js';
import { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { DEFAULT_THRESHOLDS } from '../../src/core/scenario/thresholds.js';
import { gradingOf, journalOf } from '../../src/app/compose.js';
import type { JournalEntry } from '../../src/journal/journal.js';
import type { LedgerEntry } from '../../src/ledger/ledger-entry.js';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';
import { tempData } from '../helpers/store.js';
import { startCluster } from '../helpers/redis-cluster.js';
import { CLUSTER_SCHEME } from '../../src/backends/redis/defaults.js';

type Open = (t: Test, options?: BackendOptions) => Promise<Backend>;

const backends: [string, Open][] = [
  ['memory', async (_t, options) => new MemoryBackend(options)],
  ['file', async (t, options) => FileBackend.open(await tempData(t), options)],
];
const missing = redisMissing();
if (missing) skip(t, 'the redis backend contract', missing);
else {
  const redis = await startRedis(t);
  backends.push(['redis', (_t, options) => RedisBackend.open(redis.url, { ...options, prefix: uniquePrefix('contract') })]);
  // The same store on a three-master Redis Cluster (--redis-cluster): one cluster for the file.
  const cluster = await startCluster(t);
  backends.push([
    'redis on a cluster',
    (_t, options) => RedisBackend.open(`${CLUSTER_SCHEME}${cluster.nodes}`, { ...options, prefix: uniquePrefix('contract') }),
  ]);
}

const SCENARIO: Scenario = { name: 'contract', credentials: { api_id: 'a', api_key: 'k' } };
const player = (user_id: string, balance: string): Change => ({ op: 'player', user_id, balance, currency: 'USD' });
const betTxn = (transaction_id: string, user_id: string, amount: string, balance_after: string): Change => ({
  op: 'txn',
  transaction_id,
  user_id,
  event_type: 'bet',
  fingerprint: 'f',
  game_no: 'g1',
  currency: 'USD',
  amount,
  balance_after,
  applied_at: Date.now(),
});
const entry = (n: number): Omit<JournalEntry, 'id'> => ({
  received_at: new Date().toISOString(),
  replied_at: new Date().toISOString(),
  duration_ms: 1,
  transaction_id: `tx-${n}`,
  event_type: 'login',
  user_id: 'p1',
  request: { method: 'POST', url: '/callback', headers: {}, body: { n } },
  reply: { status: 200, headers: {}, body: { code: 'R0' }, dropped: false },
  code: 'R0',
  replayed: false,
  findings: [],
});

async function rows(backend: Backend, userId?: string): Promise<LedgerEntry[]> {
  const all: LedgerEntry[] = [];
  for await (const batch of (await backend.ledger(userId)).batches) all.push(...batch);
  return all;
}

/** A backend joined with one player, closed after the test. */
async function joined(t: Test, open: Open, options?: BackendOptions): Promise<Backend> {
  const backend = await open(t, options);
  t.teardown(() => backend.close());
  t.equal(await backend.join(SCENARIO, [player('p1', '100')], () => undefined), undefined, 'a new backend has no other scenario to adopt');
  return backend;
}

for (const [kind, open] of backends) {
  t.test(`${kind}: the backend contract`, async (t) => {
    t.test('join seeds a new backend with the players; health is good', async (t) => {
      const backend = await joined(t, open);
      const own = kind.split(' ')[0];
      t.equal(backend.kind, own);
      t.equal(backend.failure, undefined, 'no failure');
      t.ok(['STORE_FAILED', 'STORE_UNREACHABLE'].includes(backend.failureCode), 'a failure has an API error code');
      t.equal(await backend.playerCount(), 1);
      t.equal((await backend.store.player('p1'))?.balance.toFixed(), '100');
      t.same(
        (await backend.store.players()).map((p) => p.user_id),
        ['p1'],
      );
      t.equal(backend.state === undefined, own === 'redis', 'only a backend in this process holds the state here');
    });

    t.test('transact: decide on a view, commit atomically, see the transaction again (idempotency)', async (t) => {
      const backend = await joined(t, open);
      const keys = { user_id: 'p1', transaction_id: 'b1', game_no: 'g1' };
      const first = await backend.store.transact(keys, (view) => {
        t.equal(view.player?.balance.toFixed(), '100', 'the view holds the player');
        t.equal(view.transaction, undefined, 'and no transaction yet');
        return { changes: [player('p1', '92.5'), betTxn('b1', 'p1', '7.5', '92.5')], seen: 'first' };
      });
      t.equal(first.seen, 'first', 'transact resolves with the decision');
      const again = await backend.store.transact(keys, (view) => ({ changes: [], transaction: view.transaction?.transaction_id }));
      t.equal(again.transaction, 'b1', 'a second callback with the id sees the applied transaction');
      t.equal((await backend.store.player('p1'))?.balance.toFixed(), '92.5', 'exact decimal balance');
    });

    t.test('the ledger lists the applied bets, oldest first, per player', async (t) => {
      const backend = await joined(t, open);
      await backend.store.commit([player('p2', '50')]);
      await backend.store.commit([player('p1', '90'), betTxn('b1', 'p1', '10', '90')]);
      await backend.store.commit([player('p2', '49.99'), betTxn('b2', 'p2', '0.01', '49.99')]);
      t.same(
        (await rows(backend)).map((r) => [r.transaction_id, r.amount, r.balance_after, r.round_status]),
        [
          ['b1', '10', '90', 'open'],
          ['b2', '0.01', '49.99', 'open'],
        ],
      );
      t.same(
        (await rows(backend, 'p2')).map((r) => r.transaction_id),
        ['b2'],
        'filtered by player',
      );
      t.equal((await backend.ledger()).complete, true, 'nothing forgotten');
    });

    t.test('the journal records, lists, counts and resets', async (t) => {
      const backend = await joined(t, open, { journalSize: 3 });
      const journal = await journalOf(backend);
      for (let n = 1; n <= 4; n++) await journal.record(entry(n));
      t.same(
        (await journal.list()).map((e) => e.transaction_id),
        ['tx-2', 'tx-3', 'tx-4'],
        'bounded by --journal-size, oldest dropped',
      );
      t.equal(await journal.count({ transaction_id: 'tx-3' }), 1);
      await journal.reset();
      t.equal(await journal.count(), 0);
    });

    t.test('counters: callbacks per player in the session, from 1; a new session starts again', async (t) => {
      const backend = await joined(t, open);
      const { counters } = backend;
      t.same([await counters.countCall('a'), await counters.countCall('a'), await counters.countCall('b')], [1, 2, 1]);
      await counters.resetCalls();
      t.equal(await counters.countCall('a'), 1);
      if (counters.rules) {
        t.same(await counters.rules.match([0, 1]), [1, 1], 'rule matches counted');
        t.equal(await counters.rules.fire(0, 1), true, 'a rule fires');
        t.equal(await counters.rules.fire(0, 1), false, 'but not past its `times`');
        t.same(await counters.rules.read(2), { matched: [1, 1], fired: [1, 0] });
      } else t.comment('no shared rule counters: the in-process rule engine counts rules (test/rules.test.ts)');
    });

    t.test('grading: a session at start, a new one on begin, the thresholds can change', async (t) => {
      const backend = await joined(t, open);
      const grading = await gradingOf(backend, DEFAULT_THRESHOLDS, () => 42);
      const first = (await grading.current()).info;
      t.equal(first.seed, 42, 'the session carries the seed');
      t.ok(first.id, 'and an id');
      await grading.begin(false);
      const second = (await grading.current()).info;
      t.not(second.id, first.id, 'begin starts a new session');
      t.equal(grading.session.info.id, second.id, 'the current session is the new one');
      grading.use({ ...DEFAULT_THRESHOLDS, client_timeout_s: 12 });
      t.equal(grading.session.grader.t.client_timeout_s, 12, 'new thresholds apply to the session');
    });

    t.test('publishing a scenario or a reset resolves; close resolves', async (t) => {
      const backend = await open(t);
      await backend.join(SCENARIO, [], () => undefined);
      await backend.publishScenario(SCENARIO);
      await backend.publishReset(SCENARIO);
      await backend.close();
      t.pass();
    });
  });
}
