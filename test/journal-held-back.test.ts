// A delayed callback's body past --journal-bytes is kept as a 1 KiB excerpt (issue 35, item 9): the
// excerpt must be a string of its own. Cut as a slice of the body's JSON text, it kept the whole
// text alive for the delay: 400 delayed bodies of 1 MiB peaked at 686–794 MiB RSS (427–491 after).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { admitInFlight, Journal, type JournalEntry } from '../src/journal/journal.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

t.test('100 held-back excerpts of 1 MiB bodies hold well under 100 MiB of heap', async (t) => {
  const feedback = 'f'.repeat(1024 * 1024 - 600);
  const chars = feedback.length + 600;
  const entries = Array.from({ length: 100 }, (_, i) => ({
    request: { body: { transaction_id: `big-${i}`, event_type: 'bet', feedback_data: feedback, user_id: `p${i}` } as unknown },
  }));
  gc();
  const before = process.memoryUsage().heapUsed;
  for (const entry of entries) t.equal(admitInFlight(entry, chars, 64 * 1024 * 1024, 64 * 1024 * 1024), 1024, 'an excerpt is held');
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  t.comment(`the heap grew ${(grown / 1024 / 1024).toFixed(1)} MiB for 100 excerpts`);
  t.ok(grown < 10 * 1024 * 1024, `the excerpts hold ${(grown / 1024 / 1024).toFixed(1)} MiB (a whole body each would be 100 MiB)`);
  for (const entry of entries) {
    t.match(entry.request.body, /^\{"transaction_id":"big-\d+","event_type":"bet","feedback_data":"fff/);
    t.match(entry.request.body, /…\(1048576 characters; the rest is not kept: --journal-bytes was held by other delayed callbacks\)$/);
  }
});

t.test('an entry the count bound drops is held by nothing of the journal', async (t) => {
  const j = new Journal(3);
  const entry = (n: number): Omit<JournalEntry, 'id'> => ({
    received_at: new Date(0).toISOString(),
    duration_ms: 0,
    transaction_id: `tx${n}`,
    event_type: 'bet',
    user_id: 'u1',
    request: { method: 'POST', url: '/callback', headers: {}, body: { feedback_data: 'x'.repeat(1000 + n) } },
    reply: { status: 200, headers: {}, body: null, dropped: false },
    replayed: false,
    findings: [],
  });
  const first = new WeakRef(j.record(entry(1)));
  for (let n = 2; n <= 5; n++) j.record(entry(n));
  t.same(
    j.list().map((e) => e.transaction_id),
    ['tx3', 'tx4', 'tx5'],
    'the two oldest were dropped',
  );
  await new Promise((resolve) => setImmediate(resolve)); // (a WeakRef read in this turn keeps its target until the turn ends)
  gc();
  t.equal(first.deref(), undefined, 'the first entry was collected (the journal kept no slot of it until a compaction)');
});
