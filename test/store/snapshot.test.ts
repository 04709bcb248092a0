import { open, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import t from 'tap';
import { FilePersistence } from '../../src/backends/file/file-persistence.js';
import { readLines } from '../../src/backends/file/lines.js';
import { StoreError } from '../../src/ledger/store-error.js';
import { openFile, player, tempData, txn } from '../helpers/store.js';

const header = (log_seq: number, records: number, more: object = {}) =>
  JSON.stringify({ format: 'wallet-sim-store', version: 2, log_seq, written_at: '', records, ...more });
const lines = async (path: string) => (await readFile(path, 'utf8')).trimEnd().split('\n');
const openError = (data: string) =>
  FilePersistence.open(data).then(
    async (s) => {
      await s.close();
      return undefined;
    },
    (e: unknown) => e as Error,
  );

t.test('a snapshot is a header line and one line per record, and many records read back', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  const n = 20_000;
  for (let i = 0; i < n; i += 1000) await a.store.commit(Array.from({ length: 1000 }, (_, j) => txn(`t${i + j}`, `p${(i + j) % 7}`)));
  await a.store.commit(Array.from({ length: 7 }, (_, i) => player(`p${i}`, `${i}.5`)));
  await a.store.close();
  const text = await lines(data);
  t.equal(text.length, 1 + 7 + n, 'header + one line per record');
  t.match(JSON.parse(text[0]!), {
    format: 'wallet-sim-store',
    version: 2,
    log_seq: 1,
    records: 7 + n,
    log_bytes: Number,
    log_sha256: /^[0-9a-f]{64}$/,
  });
  t.same(JSON.parse(text[1]!), player('p0', '0.5'), 'players first, as WalletState.changes() lists them');
  const b = await FilePersistence.open(data);
  const loaded = await b.load();
  t.equal(loaded.length, 7 + n);
  t.same(loaded.at(-1), txn(`t${n - 1}`, `p${(n - 1) % 7}`));
  await b.close();
});

t.test('reading goes line by line: no line is held longer than it is', async (t) => {
  const data = await tempData(t);
  const body = Array.from({ length: 30_000 }, (_, i) => JSON.stringify(player(`p${i}`, String(i)))).join('\n');
  await writeFile(data, `${body}\n`);
  const fh = await open(data, 'r');
  t.teardown(() => fh.close());
  let count = 0;
  let longest = 0;
  for await (const line of readLines(fh, 200)) {
    count++;
    longest = Math.max(longest, line.text.length);
  }
  t.ok((await stat(data)).size > 1_000_000, 'a file of over 1 MB');
  t.equal(count, 30_000, 'read with at most 200 bytes per line held');
  t.ok(longest < 100);
});

t.test('a snapshot bigger than V8 can hold as one string is read as lines, never as one string', async (t) => {
  // 600 MB (sparse: nothing is written) is beyond V8's ~512 MB string limit, where the
  // one-JSON.parse reader failed with "Invalid string length". The line reader gets through the
  // header and the records and stops at the first line that is no record, by its number.
  const data = await tempData(t);
  await writeFile(data, `${header(0, 3)}\n${JSON.stringify(player('p1', '1'))}\n${JSON.stringify(player('p2', '2'))}\n`);
  await truncate(data, 600 * 1024 * 1024);
  const err = await openError(data);
  t.type(err, StoreError);
  t.match(
    err?.message,
    /wallet\.json: line 4 is longer than 67108864 bytes: not a line wallet-sim writes; the file was left untouched: restore it from a backup/,
  );
  t.notMatch(err?.message, /Invalid string length|too large/);
});

t.test('version 1 data files (one JSON document) still open, and the next compaction rewrites them as version 2', async (t) => {
  const v1 = {
    format: 'wallet-sim-store',
    version: 1,
    log_seq: 0,
    written_at: '2025-01-01T00:00:00.000Z',
    changes: [player('p1', '10'), player('p2', '20'), txn('t1')],
  };
  const layouts: [string, string][] = [
    // exactly as the version 1 writer laid it out: read line by line as well
    [
      'as written by wallet-sim',
      `${JSON.stringify({ ...v1, changes: undefined }).slice(0, -1)},"changes":[${v1.changes.map((c, i) => `${i ? ',' : ''}\n${JSON.stringify(c)}`).join('')}\n]}\n`,
    ],
    ['on one line', JSON.stringify(v1)],
    ['pretty-printed', JSON.stringify(v1, null, 2)],
  ];
  for (const [name, text] of layouts) {
    const data = await tempData(t);
    await writeFile(data, text);
    const a = await openFile(data);
    t.same(a.records(), v1.changes, name);
    await a.store.commit([player('p1', '11')]);
    await a.store.close();
    t.match(JSON.parse((await lines(data))[0]!), { version: 2, records: 3 }, `${name}: rewritten as version 2`);
    const b = await openFile(data);
    t.same(b.records(), [player('p1', '11'), player('p2', '20'), txn('t1')]);
    await b.store.close();
  }
  const data = await tempData(t);
  await writeFile(
    data,
    `${JSON.stringify({ ...v1, changes: undefined }).slice(0, -1)},"changes":[\n${JSON.stringify(player('p1', '1'))},\n`,
  );
  t.match(
    (await openError(data))?.message,
    /wallet\.json: has no closing "]}" \(cut short\?\); the file was left untouched/,
    'a version 1 file cut short',
  );
});

t.test('a version 2 snapshot cut short or padded is refused, not read as a smaller state', async (t) => {
  for (const [name, text, message] of [
    ['cut short', `${header(0, 3)}\n${JSON.stringify(player('p1', '1'))}\n`, /ends after 1 of the 3 records its first line announces/],
    [
      'padded',
      `${header(0, 1)}\n${JSON.stringify(player('p1', '1'))}\n${JSON.stringify(player('p2', '1'))}\n`,
      /line 3: more records than the 1 its first line announces/,
    ],
    ['header without the digest of its log', `${header(4, 0)}\n`, /line 1 \(the header\): \/log_bytes must be an integer >= 0/],
    ['a future version', `${header(0, 0, { version: 3 })}\n`, /has version 3; this wallet-sim reads versions 1 and 2/],
  ] as const) {
    const data = await tempData(t);
    await writeFile(data, text);
    const err = await openError(data);
    t.type(err, StoreError, name);
    t.match(err?.message, message, name);
    t.equal(await readFile(data, 'utf8'), text, `${name}: left as it was`);
  }
});

/** A store whose snapshot covers log 1, with log 2 holding later changes: the state a compaction leaves. */
async function compactedStore(data: string): Promise<void> {
  const a = await openFile(data);
  await a.store.commit([player('p1', '100'), txn('t1')]);
  await a.file.compactNow();
  await a.store.commit([player('p1', '90'), txn('t2')]);
  await a.file.abandon();
}

async function editHeader(data: string, edit: (h: Record<string, unknown>) => void): Promise<void> {
  const [first, ...rest] = await lines(data);
  const h = JSON.parse(first!);
  edit(h);
  await writeFile(data, `${[JSON.stringify(h), ...rest].join('\n')}\n`);
}

t.test('a snapshot header whose log_seq is one ahead never makes start-up delete a log it did not include', async (t) => {
  const cases: [string, (data: string) => Promise<void>, RegExp][] = [
    [
      'log_seq + 1, no log after it',
      async (data) => {
        await editHeader(data, (h) => {
          h.log_seq = 2;
        });
      },
      /wallet\.json: says it includes the logs up to \S+wallet\.json\.000002\.log, but \S+wallet\.json\.000003\.log, which is created before such a snapshot is written, is missing\. Nothing was deleted: put back the snapshot/,
    ],
    [
      'log_seq + 1 while a compaction had started log 3',
      async (data) => {
        await writeFile(`${data}.000003.log`, `${JSON.stringify([player('p1', '80')])}\n`);
        await editHeader(data, (h) => {
          h.log_seq = 2;
        });
      },
      /says it includes the logs up to \S+000002\.log, but \S+000002\.log is not the log it includes \(\d+ bytes, SHA-256 [0-9a-f]{12}…; the snapshot recorded \d+ bytes, [0-9a-f]{12}…\)\. Nothing was deleted/,
    ],
    [
      'a version 1 snapshot one ahead',
      async (data) => {
        const [first, ...records] = (await lines(data)).map((l) => JSON.parse(l));
        await writeFile(
          data,
          JSON.stringify({ format: 'wallet-sim-store', version: 1, log_seq: first.log_seq + 1, written_at: '', changes: records }),
        );
      },
      /says it includes the logs up to \S+000002\.log, but \S+000003\.log, which is created before such a snapshot is written, is missing/,
    ],
  ];
  for (const [name, corrupt, message] of cases) {
    const data = await tempData(t);
    await compactedStore(data);
    await corrupt(data);
    const log2 = await readFile(`${data}.000002.log`, 'utf8');
    const err = await openError(data);
    t.type(err, StoreError, name);
    t.match(err?.message, message, name);
    t.equal(await readFile(`${data}.000002.log`, 'utf8'), log2, `${name}: the log is still there, untouched`);
  }
});

t.test('a log that a true snapshot covers is still deleted at start-up (the crash after the rename)', async (t) => {
  const data = await tempData(t);
  const a = await openFile(data);
  await a.store.commit([player('p1', '100')]);
  const log1 = await readFile(`${data}.000001.log`);
  await a.file.compactNow();
  await a.store.commit([player('p1', '90')]);
  await a.file.abandon();
  await writeFile(`${data}.000001.log`, log1); // the compaction died before deleting it
  const b = await openFile(data);
  t.same(b.records(), [player('p1', '90')]);
  await b.store.close();
  t.notOk(await stat(`${data}.000001.log`).catch(() => undefined), 'log 1 is gone');
  // The same log with one byte changed is not the log the snapshot folded in.
  const c = await tempData(t);
  await compactedStore(c);
  await writeFile(`${c}.000001.log`, `${JSON.stringify([player('p1', '101'), txn('t1')])}\n`);
  t.match((await openError(c))?.message, /000001\.log is not the log it includes/);
});

t.test('records are validated, not only type-checked: a bad amount stops start-up naming the file, the line and the field', async (t) => {
  const bad: [string, unknown][] = [
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['negative', '-5'],
    ['hex', '0x10'],
    ['9x0', '9x0'],
    ['exponent', '1e3'],
    ['empty', ''],
    ['a JSON number', 7],
    ['too many digits', '1'.repeat(61)],
  ];
  for (const [name, balance] of bad) {
    const data = await tempData(t);
    await writeFile(data, `${header(0, 2)}\n${JSON.stringify(player('p0', '1'))}\n${JSON.stringify({ ...player('p1', '0'), balance })}\n`);
    const err = await openError(data);
    t.type(err, StoreError, `snapshot: ${name}`);
    t.match(
      err?.message,
      /wallet\.json: line 3 is not a valid player record: balance .* the file was left untouched: correct that line or restore the file from a backup/,
      `snapshot: ${name}`,
    );
    t.notMatch(err?.message, /DecimalError/);

    const logged = await tempData(t);
    await writeFile(
      `${logged}.000001.log`,
      `${JSON.stringify([{ ...player('p1', '0'), balance }])}\n${JSON.stringify([player('p2', '1')])}\n`,
    );
    t.match(
      (await openError(logged))?.message,
      /wallet\.json\.000001\.log: line 1 \/0 is not a valid player record: balance .*correct that record or restore the file from a backup/,
      `log: ${name}`,
    );
  }
  const rounds: [string, object, RegExp][] = [
    ['stake', { stake: '-1' }, /round record: stake "-1" is not a decimal amount >= 0/],
    ['bet amount', { bets: [['1', 'P', 'NaN']] }, /round record: bets \/0 "NaN" is not a decimal amount/],
    ['settled', { settled: 'yes' }, /round record: settled must be true or false/],
    ['currency', { currency: '' }, /round record: currency must be a non-empty string/],
  ];
  for (const [name, patch, message] of rounds) {
    const data = await tempData(t);
    const round = {
      op: 'round',
      user_id: 'p1',
      game_no: 'g1',
      currency: 'USD',
      stake: '1',
      bets: [['1', 'P', '1']],
      settled: false,
      ...patch,
    };
    await writeFile(data, `${header(0, 1)}\n${JSON.stringify(round)}\n`);
    t.match((await openError(data))?.message, message, name);
  }
  // A settled round is kept by its key (WalletState.changes()): only there may the currency be empty.
  const settled = { op: 'round', user_id: 'p1', game_no: 'g1', currency: '', stake: '0', bets: [], settled: true } as const;
  const byKey = await tempData(t);
  await writeFile(byKey, `${header(0, 1)}\n${JSON.stringify(settled)}\n`);
  await writeFile(`${byKey}.000001.log`, ''); // (beside a snapshot of log 0, log 1 always is)
  const k = await FilePersistence.open(byKey);
  t.same(await k.load(), [settled], 'a settled round by its key loads');
  await k.close();
  const good = await tempData(t);
  await writeFile(good, `${header(0, 2)}\n${JSON.stringify(player('p1', '0'))}\n${JSON.stringify(player('p2', '000123.4500'))}\n`);
  await writeFile(`${good}.000001.log`, '');
  const s = await FilePersistence.open(good);
  t.same(await s.load(), [player('p1', '0'), player('p2', '000123.4500')], 'plain decimals load');
  await s.close();
});
