import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { appendFile, readdir, readFile, readlink, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'safe-stable-stringify';
import t from 'tap';
import { LocalBackend } from '../../src/backends/local/local-backend.js';
import { compileScenario } from '../../src/core/scenario/scenario.js';
import {} from '../../src/core/simulator.js';
import type { Change } from '../../src/ledger/change.js';
import { FilePersistence } from '../../src/backends/file/file-persistence.js';
import { StoreError } from '../../src/ledger/store-error.js';
import { openFile, player, tempData, txn } from '../helpers/store.js';
import type { CallbackRequest } from '../../src/protocol/types.generated.js';
import { legacyFingerprintOf } from '../../src/wallet/decide.js';
import { balanceOf, bet, buildTestApp, journal, login, now, result, send } from '../helpers/app.js';
import { openSimulator } from '../../src/app/compose.js';

const logs = async (data: string) => (await readdir(join(data, '..'))).filter((n) => n.endsWith('.log')).sort();
/** The snapshot (version 2): its header line and its records, one per line. */
const snapshotOf = async (data: string) => {
  const [header, ...records] = (await readFile(data, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { ...header, changes: records };
};

t.test('a new store writes an empty JSON document at once and loads nothing', async (t) => {
  const data = await tempData(t);
  const store = await FilePersistence.open(data);
  t.same(await store.load(), []);
  t.match(await snapshotOf(data), { format: 'wallet-sim-store', version: 2, log_seq: 0, records: 0, changes: [] });
  await store.close();
});

t.test('committed changes are back after a crash (no close), folded to the latest record per key', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '100'), player('p2', '50')]);
  await a.store.commit([player('p1', '90'), txn('t1')]);
  await a.store.commit([{ op: 'clear' }, player('p3', '7')]);
  await a.store.commit([player('p4', '8'), txn('t2', 'p4')]);
  await a.file.abandon(); // the process "died" here
  const b = await openFile(data);
  t.same(b.records(), [player('p3', '7'), player('p4', '8'), txn('t2', 'p4')]);
  await b.store.close();
});

t.test('concurrent commits share one write (group commit)', async (t) => {
  const data = await tempData(t);
  const store = await FilePersistence.open(data);
  await Promise.all(Array.from({ length: 100 }, (_, i) => store.commit([player(`p${i}`, String(i))])));
  const [log] = await logs(data);
  const lines = (await readFile(join(data, '..', log!), 'utf8')).trimEnd().split('\n');
  t.equal(lines.length, 1, 'one line, one fsync, for 100 callbacks');
  t.equal(JSON.parse(lines[0]!).length, 100);
  await store.close();
});

t.test(
  'the log is opened so that a write returns only once it is on disk (O_DSYNC, Linux)',
  { skip: process.platform !== 'linux' },
  async (t) => {
    const data = await tempData(t);
    const store = await FilePersistence.open(data);
    await store.commit([player('p1', '1')]);
    const [log] = await logs(data);
    // The open file's flags, as the kernel holds them: /proc/self/fdinfo/<fd> for the fd on the log.
    const path = await realpath(join(data, '..', log!)); // /proc names the file by its real path
    const fds = await readdir('/proc/self/fd');
    const targets = await Promise.all(fds.map(async (fd) => ({ fd, to: await readlink(`/proc/self/fd/${fd}`).catch(() => '') })));
    const fd = targets.find((f) => f.to === path)?.fd;
    if (!fd) return t.fail(`no open file descriptor on ${path}`);
    const flags = Number.parseInt(/^flags:\s*(\d+)/m.exec(await readFile(`/proc/self/fdinfo/${fd}`, 'utf8'))![1]!, 8);
    t.ok(flags & constants.O_DSYNC, 'O_DSYNC: every group is durable before its callbacks are answered');
    t.ok(flags & constants.O_APPEND, 'O_APPEND');
    await store.close();
  },
);

t.test('a clean close compacts everything into the JSON document and removes the log', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '100')]);
  await a.store.commit([player('p1', '80'), txn('t1')]);
  await a.store.close();
  t.match(await snapshotOf(data), { log_seq: 1, changes: [player('p1', '80'), txn('t1')] });
  t.same(await logs(data), ['wallet.json.000002.log']);
  const b = await openFile(data);
  t.same(b.records(), [player('p1', '80'), txn('t1')]);
  await b.store.close();
});

t.test('compaction starts when the log outgrows the snapshot, and loses nothing', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data, { compactMinBytes: 2000 });
  for (let i = 0; i < 300; i++) await a.store.commit([player(`p${i % 20}`, String(i)), txn(`t${i}`, `p${i % 20}`)]);
  await a.file.compactNow(); // waits for a running one, then makes one more
  t.ok(a.file.compactions >= 2, `compacted ${a.file.compactions} times`);
  t.ok((await logs(data)).length <= 2, 'compacted logs are removed');
  await a.file.abandon(); // crash after compaction: snapshot + the active log
  const b = await openFile(data);
  const loaded = b.records();
  t.equal(loaded.filter((c) => c.op === 'txn').length, 300);
  t.same(
    loaded.filter((c) => c.op === 'player').map((c) => c.op === 'player' && c.balance),
    Array.from({ length: 20 }, (_, i) => String(280 + i)),
  );
  await b.store.close();
});

t.test('logs an interrupted compaction left behind are replayed or dropped by sequence', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '1')]);
  const compacted = await readFile(`${data}.000001.log`);
  await a.file.compactNow();
  await a.store.commit([player('p1', '2')]);
  // a compaction that renamed its snapshot but died before removing the old log: put it back
  await writeFile(`${data}.000001.log`, compacted);
  await a.file.abandon();
  const b = await openFile(data);
  t.same(b.records(), [player('p1', '2')]);
  t.same(await logs(data), ['wallet.json.000002.log'], 'the compacted log is removed on start');
  await b.store.close();
});

t.test('a torn last line (a crash mid-write) is dropped and cut off; later appends are clean', async (t) => {
  for (const torn of ['[{"op":"player","user_id":"p1","bal', '[{"op":"player"}\u0000\u0000\n', '\u0000\u0000\u0000']) {
    const data = await tempData(t);
    const a = await FilePersistence.open(data);
    await a.commit([player('p1', '10')]);
    await a.abandon();
    const [log] = await logs(data);
    await appendFile(join(data, '..', log!), torn);
    const b = await FilePersistence.open(data);
    t.same(await b.load(), [player('p1', '10')], JSON.stringify(torn));
    await b.commit([player('p2', '20')]);
    await b.abandon();
    const c = await FilePersistence.open(data);
    t.same(await c.load(), [player('p1', '10'), player('p2', '20')]);
    await c.close();
  }
});

t.test('corrupt files stop the store with the file and the problem named, and stay untouched', async (t) => {
  const cases: [string, (data: string) => Promise<string>, RegExp][] = [
    [
      'snapshot not JSON',
      async (data) => {
        await writeFile(data, '{"format": "wallet-sim-store", ');
        return data;
      },
      /wallet\.json: is not valid JSON/,
    ],
    [
      'snapshot of another program',
      async (data) => {
        await writeFile(data, '{"name": "x"}');
        return data;
      },
      /wallet\.json: is not a wallet-sim data file/,
    ],
    [
      'snapshot with a bad record',
      async (data) => {
        await writeFile(
          data,
          JSON.stringify({ format: 'wallet-sim-store', version: 1, log_seq: 0, written_at: '', changes: [{ op: 'player', user_id: 'p' }] }),
        );
        return data;
      },
      /wallet\.json: \/changes\/0 is not a valid player record/,
    ],
    [
      'corrupt line before the end of the log',
      async (data) => {
        const log = `${data}.000001.log`;
        await writeFile(log, `${JSON.stringify([player('a', '1')])}\nnot json\n${JSON.stringify([player('b', '2')])}\n`);
        return log;
      },
      /wallet\.json\.000001\.log: line 2 is not valid JSON.*not a crash tear/,
    ],
    [
      'torn line in an older log',
      async (data) => {
        await writeFile(`${data}.000001.log`, `${JSON.stringify([player('a', '1')])}\n[{"op"`);
        await writeFile(`${data}.000002.log`, `${JSON.stringify([player('b', '2')])}\n`);
        return `${data}.000001.log`;
      },
      /000001\.log: line 2 has no line end: only the newest log/,
    ],
    [
      'a whole last line that parses but holds a bad record',
      async (data) => {
        await writeFile(
          `${data}.000001.log`,
          `${JSON.stringify([player('a', '1')])}\n[{"op":"player","user_id":"a","balance":7,"currency":"USD"}]\n`,
        );
        return `${data}.000001.log`;
      },
      /000001\.log: line 2 \/0 .*a whole line that parses was written so/,
    ],
    [
      'a missing log',
      async (data) => {
        await writeFile(data, JSON.stringify({ format: 'wallet-sim-store', version: 1, log_seq: 3, written_at: '', changes: [] }));
        await writeFile(`${data}.000005.log`, `${JSON.stringify([player('b', '2')])}\n`);
        return `${data}.000005.log`;
      },
      /000005\.log: follows a gap: .*000004\.log is missing/,
    ],
    [
      'logs missing after an empty snapshot (log_seq 0)',
      async (data) => {
        await writeFile(data, `${JSON.stringify({ format: 'wallet-sim-store', version: 2, log_seq: 0, written_at: '', records: 0 })}\n`);
        await writeFile(`${data}.000003.log`, `${JSON.stringify([player('b', '2')])}\n`);
        return `${data}.000003.log`;
      },
      /000003\.log: follows a gap: \S+wallet\.json\.000001\.log to \S+wallet\.json\.000002\.log are missing, so changes are lost/,
    ],
    [
      'logs without their snapshot',
      async (data) => {
        await writeFile(`${data}.000003.log`, `${JSON.stringify([player('b', '2')])}\n`);
        return `${data}.000003.log`;
      },
      /000003\.log: follows a gap: \S+wallet\.json \(the snapshot\) is missing/,
    ],
  ];
  for (const [name, make, message] of cases) {
    const data = await tempData(t);
    const bad = await make(data);
    const before = await readFile(bad, 'utf8');
    const err = await FilePersistence.open(data).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.type(err, StoreError, name);
    t.match((err as Error).message, message, name);
    t.equal(await readFile(bad, 'utf8'), before, `${name}: left as it was`);
  }
});

t.test('a --data path in a folder that does not exist is refused, naming the folder', async (t) => {
  const data = await tempData(t);
  await t.rejects(FilePersistence.open(join(data, '..', 'nope', 'wallet.json')), {
    message: /nope: does not exist \(the folder of --data\)/,
  });
});

t.test('a data file in use by another live process is refused', async (t) => {
  const data = await tempData(t);
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  t.teardown(() => {
    other.kill('SIGKILL');
  });
  await writeFile(`${data}.lock`, `${other.pid}\n`);
  await t.rejects(FilePersistence.open(data), { message: new RegExp(`in use by process ${other.pid}`) });
  // a lock of a dead process (kill -9) is taken over
  other.kill('SIGKILL');
  await new Promise((resolve) => other.once('exit', resolve));
  const store = await FilePersistence.open(data);
  await store.close();
});

t.test('the wallet through the file store: balances, rounds, settlements and idempotency survive a restart', async (t) => {
  // After kill -9 the logs are replayed; after a clean close the snapshot alone holds the state
  // (a settled round kept by its key, as WalletState.changes() lists it).
  for (const stop of ['kill -9', 'clean close'] as const) {
    const data = await tempData(t);
    const firstStore = await FilePersistence.open(data);
    const first = await buildTestApp({}, { store: firstStore });
    const placed = bet('usd', 'g1', [['1', 'P', 10.25]], { currency: 'USD' });
    const open = bet('usd', 'g2', [['1', 'B', 5]], { currency: 'USD' });
    t.match((await send(first.app, login('usd'))).body, { code: 'R0', latest_balance: 100 });
    t.match((await send(first.app, placed)).body, { code: 'R0', latest_balance: 89.75 });
    t.match((await send(first.app, result('usd', 'g1', [['1', 'P', 10.25, 10.25]], { currency: 'USD' }))).body, {
      code: 'R0',
      latest_balance: 110.25,
    });
    t.match((await send(first.app, open)).body, { code: 'R0', latest_balance: 105.25 });
    await first.app.close();
    if (stop === 'kill -9') await firstStore.abandon();
    else await firstStore.close();
    t.equal((await logs(data)).length, 1, `${stop}: one log left`);
    if (stop === 'clean close') {
      t.same(
        (await snapshotOf(data)).changes.filter((c: Change) => c.op === 'round'),
        [
          { op: 'round', user_id: 'usd', game_no: 'g2', currency: 'USD', stake: '5', bets: [['1', 'B', '5']], settled: false },
          { op: 'round', user_id: 'usd', game_no: 'g1', currency: '', stake: '0', bets: [], settled: true },
        ],
        'the snapshot: the open round, then the settled one by its key',
      );
    }

    const second = await buildTestApp({}, { store: await FilePersistence.open(data) });
    t.teardown(async () => {
      await second.app.close();
      await second.sim.store.close();
    });
    t.equal(balanceOf(second.sim, 'usd'), '105.25', stop);
    t.match((await send(second.app, placed)).body, { code: 'R0', latest_balance: 105.25 }, `${stop}: a retried bet replays`);
    t.match(
      (await send(second.app, result('usd', 'g1', [['1', 'P', 10.25, 0]], { currency: 'USD' }))).body,
      { code: 'R3' },
      `${stop}: a settled round stays settled`,
    );
    t.match(
      (await send(second.app, result('usd', 'g2', [['1', 'B', 5, -5]], { currency: 'USD' }))).body,
      { code: 'R0', latest_balance: 105.25 },
      `${stop}: the open round is still open`,
    );
    t.equal(balanceOf(second.sim, 'usd'), '105.25');
  }
});

t.test('a data file an older wallet-sim wrote (sha256 fingerprints) still replays its transactions after an upgrade', async (t) => {
  // The records as an older build wrote them: the first kept the whole sha256 (43 characters),
  // later ones its first 16. Same layout as today's records, only the fingerprint's format differs.
  const sha256 = (req: object) =>
    createHash('sha256')
      .update(stringify({ ...req, timestamp: undefined })!)
      .digest('base64url');
  for (const stop of ['kill -9', 'clean close'] as const) {
    const data = await tempData(t);
    const placed = bet('usd', 'g1', [['1', 'P', 10.25]], { currency: 'USD' });
    const entered = login('usd');
    t.equal(legacyFingerprintOf(placed as CallbackRequest), sha256(placed).slice(0, 16), 'the older formats agree');
    const older = await FilePersistence.open(data);
    await older.commit([
      { op: 'player', user_id: 'usd', balance: '89.75', currency: 'USD' },
      { op: 'txn', transaction_id: entered.transaction_id, user_id: 'usd', event_type: 'login', fingerprint: sha256(entered) },
    ]);
    await older.commit([
      { op: 'player', user_id: 'usd', balance: '89.75', currency: 'USD' },
      { op: 'bets', user_id: 'usd', game_no: 'g1', currency: 'USD', bets: [['1', 'P', '10.25']] },
      { op: 'txn', transaction_id: placed.transaction_id, user_id: 'usd', event_type: 'bet', fingerprint: sha256(placed).slice(0, 16) },
    ]);
    if (stop === 'kill -9') await older.abandon();
    else await older.close();

    const upgraded = await buildTestApp({}, { store: await FilePersistence.open(data) });
    t.teardown(async () => {
      await upgraded.app.close();
      await upgraded.sim.store.close();
    });
    const retry = (req: object) => send(upgraded.app, { ...req, timestamp: now() + 1 });
    t.match((await retry(placed)).body, { code: 'R0', latest_balance: 89.75 }, `${stop}: a retried bet (16-character record) replays`);
    t.match((await retry(entered)).body, { code: 'R0', latest_balance: 89.75 }, `${stop}: a retried login (43-character record) replays`);
    t.match(
      (await retry({ ...placed, data: { ...placed.data, total_bet_amount: 10.5 } })).body,
      { code: 'R3' },
      `${stop}: the bet's transaction_id with another body is refused`,
    );
    t.match((await retry({ ...entered, feedback_data: 'other' })).body, { code: 'R3' }, `${stop}: so is the login's`);
    const replies = await journal(upgraded.app, { user_id: 'usd' });
    t.same(
      replies.map((e) => e.findings.map((f: { code: string }) => f.code)),
      [['TRANSACTION_REPLAYED'], ['TRANSACTION_REPLAYED'], ['TRANSACTION_REUSED'], ['TRANSACTION_REUSED']],
      `${stop}: replayed twice, reused twice`,
    );
    t.equal(balanceOf(upgraded.sim, 'usd'), '89.75', `${stop}: nothing applied twice`);
  }
});

t.test('a store emptied by a reset stays empty after a restart (only a new store is seeded)', async (t) => {
  const data = await tempData(t);
  const scenario = compileScenario({ name: 's', credentials: { api_id: 'a', api_key: 'k' }, players: [{ user_id: 'p1', balance: 5 }] });
  const firstStore = await FilePersistence.open(data);
  const first = await openSimulator(scenario, new LocalBackend('file', firstStore));
  t.same(
    first.players().map((p) => p.user_id),
    ['p1'],
    'a new store gets the scenario players',
  );
  await first.setScenario(compileScenario({ name: 'empty', credentials: { api_id: 'a', api_key: 'k' } }), true);
  t.same(first.players(), []);
  await firstStore.abandon();
  const second = await openSimulator(scenario, new LocalBackend('file', await FilePersistence.open(data)));
  t.same(second.players(), [], 'not seeded again');
  await second.store.close();
});
