// Issue 9 (amounts have a bound, memory has a bound) and issue 15 item 6 (a bet's cost never grows
// with its round): through the app, and the forgotten-ids record directly.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { FilePersistence } from '../../src/backends/file/file-persistence.js';
import { MAX_BETS_PER_REQUEST, MAX_BETS_PER_ROUND } from '../../src/protocol/seed/checks.js';
import { ForgottenIds } from '../../src/ledger/forgotten.js';
import { balanceOf, bet, buildTestApp, journal, result, send, snapshot } from '../helpers/app.js';

const findingsOf = async (app: Parameters<typeof journal>[0], transactionId: string) =>
  (await journal(app, { transaction_id: transactionId })).at(-1).findings.map((f: { code: string }) => f.code);

t.test('a settlement that would take the balance past 10^15 minor units is R3: nothing credited, the round stays open', async (t) => {
  const { app, sim } = await buildTestApp({ players: [{ user_id: 'rich', balance: 9999999999990, currency: 'USD' }] });
  t.teardown(() => app.close());
  t.equal((await send(app, bet('rich', 'g1', [['1', 'P', 10]], { currency: 'USD' }))).body.code, 'R0');
  const win = result('rich', 'g1', [['1', 'P', 10, 20]], { currency: 'USD' });
  const res = await send(app, win);
  t.equal(res.body.code, 'R3');
  t.same(await findingsOf(app, win.transaction_id), ['AMOUNT_TOO_LARGE']);
  t.equal(balanceOf(sim, 'rich'), '9999999999980', 'nothing credited');
  t.equal((await send(app, result('rich', 'g1', [['1', 'P', 10, -10]], { currency: 'USD' }))).body.code, 'R0', 'the round is still open');
});

t.test('two huge wins can no longer make a balance unreadable', async (t) => {
  const { app } = await buildTestApp({ players: [{ user_id: 'p', balance: 100, currency: 'USD' }] });
  t.teardown(() => app.close());
  await send(app, bet('p', 'g', [['1', 'P', 10]], { currency: 'USD' }));
  const huge = result('p', 'g', [['1', 'P', 10, 9.99999999999999e307]], { currency: 'USD' });
  t.equal((await send(app, huge)).body.code, 'R3');
  const players = (await app.inject({ url: '/admin/players' })).json();
  t.match(players, [{ user_id: 'p', balance: 90 }]);
});

t.test('admin and scenario balances have the same bound', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'PUT', url: '/admin/players/p', payload: { balance: 1e60, currency: 'USD' } });
  t.equal(res.statusCode, 400);
  t.match(res.json(), { details: [{ pointer: '/balance', message: /not below 10000000000000 USD/ }] });
  t.equal(sim.player('p'), undefined, 'nothing created');
  t.equal(
    (await app.inject({ method: 'PUT', url: '/admin/players/p', payload: { balance: 9999999999999.99, currency: 'USD' } })).statusCode,
    200,
    'just below the bound',
  );
  const scenario = await app.inject({
    method: 'PUT',
    url: '/admin/scenario',
    payload: { name: 'x', credentials: { api_id: 'a', api_key: 'b' }, players: [{ user_id: 'q', balance: 1e15, currency: 'KRW' }] },
  });
  t.equal(scenario.statusCode, 400);
  t.match(scenario.json(), { details: [{ pointer: '/players/0/balance' }] });
});

t.test(
  `bets per request (${MAX_BETS_PER_REQUEST}) and per round (${MAX_BETS_PER_ROUND}) are bounded: R3 BETS_TOO_MANY, nothing debited`,
  async (t) => {
    const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1e9, currency: 'KRW' }] });
    t.teardown(() => app.close());
    const many = (n: number, from = 0) => Array.from({ length: n }, (_, i): [string, string, number] => [String(from + i), 'P', 1]);
    const tooMany = bet('p', 'big', many(MAX_BETS_PER_REQUEST + 1));
    t.equal((await send(app, tooMany)).body.code, 'R3');
    t.same(await findingsOf(app, tooMany.transaction_id), ['BETS_TOO_MANY']);
    for (let i = 0; i < MAX_BETS_PER_ROUND / MAX_BETS_PER_REQUEST; i++) {
      t.equal((await send(app, bet('p', 'big', many(MAX_BETS_PER_REQUEST, i * MAX_BETS_PER_REQUEST)))).body.code, 'R0');
    }
    const over = bet('p', 'big', many(1, MAX_BETS_PER_ROUND));
    t.equal((await send(app, over)).body.code, 'R3');
    t.same(await findingsOf(app, over.transaction_id), ['BETS_TOO_MANY']);
    t.equal(balanceOf(sim, 'p'), String(1e9 - MAX_BETS_PER_ROUND));
  },
);

t.test('the file store logs only the bets a callback added, never the whole round again', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-bets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const store = await FilePersistence.open(join(dir, 'data.json'));
  const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1e9, currency: 'KRW' }] }, { store });
  for (let i = 0; i < 200; i++) t.equal((await send(app, bet('p', 'long', [[String(i), 'P', 1]]))).body.code, 'R0');
  await app.close();
  await store.abandon();
  const log = (await readdir(dir)).find((n) => n.endsWith('.log'))!;
  const lines = (await readFile(join(dir, log), 'utf8')).trim().split('\n');
  const longest = Math.max(...lines.slice(-50).map((l) => l.length));
  t.ok(longest < 400, `the 200th bet's log line is small (${longest} characters)`);
  const reopened = await FilePersistence.open(join(dir, 'data.json'));
  const again = await buildTestApp({ players: [] }, { store: reopened });
  t.equal(snapshot(again.sim), snapshot(sim), 'the replayed state is the same: 200 bets, stake 200');
  t.equal(again.sim.state.rounds.values().next().value?.bets.size, 200);
  await again.app.close();
  await reopened.close();
});

t.test(
  '--retain-transactions: the oldest applied transactions are forgotten; their retries are R3 TRANSACTION_EXPIRED, never applied twice',
  async (t) => {
    const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'KRW' }] }, { retainTransactions: 3 });
    t.teardown(() => app.close());
    const first = bet('p', 'r1', [['1', 'P', 100]]);
    const settle = result('p', 'r1', [['1', 'P', 100, 100]]);
    t.equal((await send(app, first)).body.code, 'R0');
    t.equal((await send(app, settle)).body.code, 'R0');
    t.equal(balanceOf(sim, 'p'), '1100');
    for (let i = 0; i < 3; i++) t.equal((await send(app, bet('p', `later-${i}`, [['1', 'P', 1]]))).body.code, 'R0');
    t.equal(sim.state.transactions.size, 3, 'only the newest 3 are kept');
    t.equal(sim.state.rounds.size, 3, 'the settled round went with its settlement; open rounds stay');

    const retry = await send(app, first);
    t.equal(retry.body.code, 'R3', 'a late retry of a forgotten bet is refused');
    t.same(await findingsOf(app, first.transaction_id), ['TRANSACTION_EXPIRED']);
    const late = await send(app, settle);
    t.equal(late.body.code, 'R3');
    t.same(await findingsOf(app, settle.transaction_id), ['TRANSACTION_EXPIRED']);
    const reopen = bet('p', 'r1', [['9', 'P', 1]]);
    t.equal((await send(app, reopen)).body.code, 'R3', 'a forgotten settled round does not open again');
    t.same(await findingsOf(app, reopen.transaction_id), ['ROUND_EXPIRED']);
    t.equal(balanceOf(sim, 'p'), '1097', 'nothing applied twice');
  },
);

t.test('the file store snapshots only the retained transactions and keeps the forgotten ids across a restart', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-retain-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'data.json');
  const store = await FilePersistence.open(path);
  const { app } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'KRW' }] }, { store, retainTransactions: 2 });
  const old = bet('p', 'a', [['1', 'P', 1]]);
  await send(app, old);
  for (const g of ['b', 'c', 'd']) await send(app, bet('p', g, [['1', 'P', 1]]));
  await app.close();
  await store.close(); // a clean close compacts: the snapshot alone holds the state
  const text = await readFile(path, 'utf8');
  t.equal(text.split('"op":"txn"').length - 1, 2, 'the snapshot holds 2 transactions');
  const reopened = await FilePersistence.open(path);
  const again = await buildTestApp({ players: [] }, { store: reopened, retainTransactions: 2 });
  t.teardown(async () => {
    await again.app.close();
    await reopened.close();
  });
  t.equal((await send(again.app, old)).body.code, 'R3', 'after a restart the forgotten bet is still refused');
  t.equal(balanceOf(again.sim, 'p'), '996');
});

t.test('a restart with a smaller --retain-transactions forgets more, and still refuses every forgotten id', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-retain-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'data.json');
  const store = await FilePersistence.open(path);
  const { app } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'KRW' }] }, { store, retainTransactions: 3 });
  const bets = ['a', 'b', 'c', 'd', 'e'].map((g) => bet('p', g, [['1', 'P', 1]]));
  for (const b of bets) t.equal((await send(app, b)).body.code, 'R0');
  await app.close();
  await store.close(); // the snapshot: 3 transactions (c, d, e), a and b forgotten
  const reopened = await FilePersistence.open(path);
  const again = await buildTestApp({ players: [] }, { store: reopened, retainTransactions: 1 });
  t.teardown(async () => {
    await again.app.close();
    await reopened.close();
  });
  // c and d are forgotten while the snapshot loads, before its record of a and b is read.
  for (const [i, b] of bets.entries()) {
    const reply = await send(again.app, b);
    t.equal(reply.body.code, i < 4 ? 'R3' : 'R0', `bet ${b.data.game_no}: ${i < 4 ? 'forgotten, refused' : 'retained, replayed'}`);
    const findings = await findingsOf(again.app, b.transaction_id);
    t.same(findings, i < 4 ? ['TRANSACTION_EXPIRED'] : ['TRANSACTION_REPLAYED'], `bet ${b.data.game_no}: ${findings.join(', ')}`);
  }
  t.equal(balanceOf(again.sim, 'p'), '995', 'nothing applied twice');
});

t.test('ForgottenIds.absorb adds a record to what is already forgotten', async (t) => {
  const ids = new ForgottenIds();
  ids.add('kept-before');
  const other = new ForgottenIds();
  other.add('from-record');
  ids.absorb(other.toRecord());
  t.ok(ids.has('kept-before') && ids.has('from-record') && !ids.has('neither'));
  const empty = new ForgottenIds();
  empty.absorb(other.toRecord());
  t.ok(empty.has('from-record') && !empty.has('kept-before'), 'into an empty set');
});

t.test('ForgottenIds: every forgotten id is found, across generations and a round trip through its record', async (t) => {
  const ids = new ForgottenIds();
  const n = (1 << 20) + 1000; // past one frozen generation
  for (let i = 0; i < n; i++) ids.add(`id-${i}`);
  t.equal(ids.size, n);
  let missing = 0;
  for (let i = 0; i < n; i += 997) if (!ids.has(`id-${i}`)) missing++;
  t.equal(missing, 0, 'no forgotten id is missed');
  let false_ = 0;
  for (let i = 0; i < 100_000; i++) if (ids.has(`other-${i}`)) false_++;
  t.equal(false_, 0, 'a never-seen id is not taken for a forgotten one');
  const back = ForgottenIds.fromRecord(JSON.parse(JSON.stringify(ids.toRecord())));
  t.equal(back.size, n);
  t.ok(back.has('id-0') && back.has(`id-${n - 1}`) && !back.has('other-1'));
});
