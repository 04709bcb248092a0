// Beside a snapshot of log n, log n+1 always is: a data file copied or restored without its newest
// log is refused at start-up (it would come back with older balances and forgotten transaction ids,
// and a resend would be debited twice), never loaded as if nothing were missing.
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import t from 'tap';
import { FilePersistence } from '../../src/backends/file/file-persistence.js';
import { StoreError } from '../../src/ledger/store-error.js';
import { openFile, player, tempData, txn } from '../helpers/store.js';

const opened = (data: string) =>
  FilePersistence.open(data).then(
    async (s) => {
      const loaded = await s.load();
      await s.close();
      return loaded;
    },
    (e: unknown) => e as Error,
  );

/** A copy of the data file alone, in a folder of its own. */
async function copyAlone(data: string, name: string): Promise<string> {
  const dir = join(dirname(data), name);
  await mkdir(dir);
  const copy = join(dir, 'wallet.json');
  await copyFile(data, copy);
  return copy;
}

t.test('a running store copied without its logs: refused, naming the missing log and what to do', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data, { compactMinBytes: 1 });
  await a.store.commit([player('p1', '100')]);
  await a.file.compactNow(); // a snapshot of log 1; log 2 is the active one
  await a.store.commit([txn('t-after'), player('p1', '95')]); // only in log 2
  const copy = await copyAlone(data, 'copied');
  await a.file.abandon(); // as kill -9 leaves it
  const err = await opened(copy);
  t.type(err, StoreError);
  t.match(
    (err as Error).message,
    /wallet\.json\.000002\.log: is missing beside .*wallet\.json, the snapshot of everything up to log 1: the changes written since are lost unless it is restored \(copy or mount the data file together with its \.log files\)/,
  );
  const whole = await opened(data);
  t.ok(Array.isArray(whole), 'the original, with its logs, opens');
});

t.test('a store just created, copied without log 1: refused too (it held the seeded players)', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '100')]);
  const copy = await copyAlone(data, 'fresh');
  await a.store.close();
  t.type(await opened(copy), StoreError);
});

t.test('after a clean shutdown the empty next log is kept: the whole folder opens; a snapshot alone opens once told so', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '100'), txn('t1')]);
  await a.store.close();
  const again = await opened(data);
  t.ok(Array.isArray(again) && again.some((c) => c.op === 'player'), 'reopened with its state');
  const copy = await copyAlone(data, 'clean');
  const refused = await opened(copy);
  t.type(refused, StoreError, 'a snapshot alone is refused: nothing says nothing was written after it');
  const named = /create (\S+\.log) as an empty file/.exec((refused as Error).message)![1]!;
  await writeFile(named, '');
  const told = await opened(copy);
  t.ok(Array.isArray(told) && told.some((c) => c.op === 'player' && c.balance === '100'), 'with the empty log it names, it opens');
});
