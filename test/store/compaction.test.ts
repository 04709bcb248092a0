import { mkdir, rmdir } from 'node:fs/promises';
import t from 'tap';
import { openFile, tempData, txn } from '../helpers/store.js';

/** The compaction warnings emitted while `fn` runs. */
async function warningsDuring(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listen = (w: Error) => {
    if (/compaction|new log/.test(w.message)) seen.push(w.message);
  };
  process.on('warning', listen);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  } finally {
    process.off('warning', listen);
  }
  return seen;
}

// Tests run as root, where a read-only folder is still writable: the path compaction must create
// is made a directory instead, so opening it fails as an unwritable folder would.
const blockers: [string, (data: string) => string][] = [
  ['the next log cannot be created', (data) => `${data}.000002.log`],
  ['the snapshot temp file cannot be written', (data) => `${data}.tmp`],
];

t.test('a compaction that keeps failing is retried with back-off and reported once, and recovers', async (t) => {
  for (const [name, blocked] of blockers) {
    const data = await tempData(t);
    const { file: store, store: local } = await openFile(data, { compactMinBytes: 200 });
    await mkdir(blocked(data));
    let n = 0;
    const warnings = await warningsDuring(async () => {
      for (; n < 300; n++) await local.commit([txn(`t${n}`)]); // ~80 bytes a group, one group each
    });
    t.equal(warnings.length, 1, `${name}: one warning for ${store.compactionFailures} failed attempts`);
    t.match(
      warnings[0],
      /wallet\.json: .*the change log keeps every change\. Retrying after each further 200 bytes of log.*Check the free space and permissions/,
      name,
    );
    t.ok(
      store.compactionFailures >= 2 && store.compactionFailures < 20,
      `${name}: ${store.compactionFailures} attempts in 300 groups, not one per group`,
    );
    t.equal(store.compactions, 0);

    await rmdir(blocked(data));
    const recovered = await warningsDuring(async () => {
      for (let i = 0; i < 2000 && !store.compactions; i++, n++) await local.commit([txn(`t${n}`)]);
      await store.compactNow();
    });
    t.ok(store.compactions >= 1, `${name}: compaction works again once the folder is writable`);
    t.match(recovered, [/compaction works again, after \d+ failed attempts/]);
    await store.abandon();
    const again = await openFile(data);
    t.equal(again.records().length, n, `${name}: every change is kept`);
    await again.store.close();
  }
});
