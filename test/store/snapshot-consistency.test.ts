// A snapshot is copied from the wallet's state (WalletState) while callbacks keep committing: it
// must hold exactly the changes of the logs it says it covers — no later change (a 'bets' record
// replayed over a snapshot that already holds it would count the bet twice), none left out.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import type { Change } from '../../src/ledger/change.js';
import type { LogWriter } from '../../src/backends/file/change-log.js';
import type { FilePersistence } from '../../src/backends/file/file-persistence.js';
import { bets, openFile, player, tempData, txn } from '../helpers/store.js';

/** The snapshot file: its header and its records. */
const snapshotOf = async (data: string) => {
  const [header, ...records] = (await readFile(data, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { header: header!, records: records as unknown as Change[] };
};

/** Holds the active log's next write until `release`d; released with an error, the write fails with it (a full disk). */
function holdNextWrite(file: FilePersistence): { started: Promise<void>; release: (e?: Error) => void } {
  const log = (file as unknown as { log: LogWriter }).log;
  const append = log.append.bind(log);
  let entered!: () => void;
  let release!: (e?: Error) => void;
  const started = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<Error | undefined>((resolve) => (release = resolve));
  log.append = async (line) => {
    log.append = append;
    entered();
    const e = await released;
    if (e) throw e;
    return append(line);
  };
  return { started, release };
}

const stakeOf = (records: Change[], game_no: string) =>
  records.find((c): c is Change & { op: 'round' } => c.op === 'round' && c.game_no === game_no)?.stake;

t.test('a snapshot copied when a group is dequeued covers that group and nothing committed while it is written', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '100'), bets('g1', '1', '10')]);
  const held = holdNextWrite(a.file);
  const b = a.store.commit([player('p1', '95'), bets('g1', '2', '5')]);
  const compacted = a.file.compactNow(); // due when b's group is dequeued
  await held.started; // b's group is being written to log 1
  const expected = a.records();
  // In the state at once, in the next group (log 2), and so in no snapshot of log 1.
  const c = a.store.commit([player('p1', '94'), bets('g1', '3', '1')]);
  held.release();
  await Promise.all([b, c, compacted]);

  t.equal(a.file.compactions, 1);
  const snapshot = await snapshotOf(data);
  t.match(snapshot.header, { log_seq: 1, records: expected.length });
  t.same(snapshot.records, expected, 'the snapshot: the state with b, without c');
  t.equal(stakeOf(snapshot.records, 'g1'), '15');
  const log2 = (await readFile(`${data}.000002.log`, 'utf8')).trimEnd().split('\n');
  t.same(
    log2.map((l) => JSON.parse(l)),
    [[player('p1', '94'), bets('g1', '3', '1')]],
    'c went to the new log',
  );

  await a.file.abandon(); // a crash: the snapshot, then log 2 replayed over it
  const again = await openFile(data);
  t.same(again.records(), a.records(), 'after a crash: the state before it');
  t.equal(stakeOf(again.records(), 'g1'), '16', 'each bet counted once');
  await again.store.close();
});

t.test('a group whose write fails is in no snapshot: the store fails and nothing is compacted', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '100')]);
  const before = await readFile(data, 'utf8');
  const held = holdNextWrite(a.file);
  const b = a.store.commit([player('p1', '90')]);
  const compacted = a.file.compactNow(); // due when b's group is dequeued: copied, then dropped
  await held.started;
  held.release(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
  await t.rejects(b, { message: /000001\.log: write failed \(ENOSPC\); the store accepts no more changes/ });
  await compacted;
  t.equal(a.file.compactions, 0, 'no compaction');
  await t.rejects(a.file.compactNow(), { message: /write failed/ }, 'nor later: the state holds a change no log does');
  await a.store.close(); // nor at close
  t.equal(await readFile(data, 'utf8'), before, 'the snapshot is the one from before');
  const again = await openFile(data);
  t.same(again.records(), [player('p1', '100')], 'a restart has the state before the failed group');
  await again.store.close();
});

t.test('a commit refused because the store is closing is not in the snapshot the close writes', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '100')]);
  const closing = a.store.close();
  await t.rejects(a.store.commit([player('p1', '50')]), { message: /the store is closed/ });
  await closing;
  const again = await openFile(data);
  t.same(again.records(), [player('p1', '100')]);
  await again.store.close();
});

t.test('compactions under concurrent commits lose nothing and apply nothing twice', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data, { compactMinBytes: 4000 });
  const pending: Promise<void>[] = [];
  const rounds = 7;
  const n = 1000;
  for (let i = 0; i < n; i++) {
    pending.push(a.store.commit([player('p1', String(i)), bets(`g${i % rounds}`, String(i), '1'), txn(`t${i}`)]));
    if (i % 200 === 0) pending.push(a.file.compactNow());
    // Let a group go every 25 commits: later ones queue while it is written.
    if (i % 25 === 24) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(pending);
  t.ok(a.file.compactions >= 1, `${a.file.compactions} compactions while commits were queued`);
  const expected = a.records();
  for (let g = 0; g < rounds; g++) t.equal(stakeOf(expected, `g${g}`), String(Math.ceil((n - g) / rounds)));

  await a.file.abandon();
  const crashed = await openFile(data);
  t.same(crashed.records(), expected, 'after a crash: the same players, rounds (stakes) and transactions');
  await crashed.store.close();
  const closed = await openFile(data);
  t.same(closed.records(), expected, 'after a clean close: the same');
  await closed.store.close();
});
