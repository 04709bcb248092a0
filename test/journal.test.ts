// The bounded serve-event journal: a ring buffer, oldest first, with filters.
import t from 'tap';
import { Journal, type JournalEntry } from '../src/journal/journal.js';
import { buildTestApp, journal, login, send } from './helpers/app.js';

const entry = (n: number, user = `u${n % 2}`, event = n % 3 === 0 ? 'bet' : 'login'): Omit<JournalEntry, 'id'> => ({
  received_at: new Date(0).toISOString(),
  duration_ms: 0,
  transaction_id: `tx${n}`,
  event_type: event,
  user_id: user,
  request: { method: 'POST', url: '/callback', headers: {}, body: null },
  reply: { status: 200, headers: {}, body: null, dropped: false },
  replayed: false,
  findings: [],
});

t.test('keeps the newest `capacity` entries, oldest first, ids always increasing', async (t) => {
  const j = new Journal(3);
  const ids = [1, 2, 3, 4, 5].map((n) => j.record(entry(n)).id);
  t.same(ids, [1, 2, 3, 4, 5]);
  t.same(
    j.list().map((e) => e.transaction_id),
    ['tx3', 'tx4', 'tx5'],
    'the oldest two were dropped',
  );
  t.equal(j.count(), 3);
  j.record(entry(6));
  j.record(entry(7));
  t.same(
    j.list().map((e) => e.id),
    [5, 6, 7],
    'order survives wrapping twice',
  );
});

t.test('filters and limit', async (t) => {
  const j = new Journal(100);
  for (let n = 1; n <= 9; n++) j.record(entry(n));
  const cases: [Parameters<Journal['list']>[0], string[]][] = [
    [{ user_id: 'u1' }, ['tx1', 'tx3', 'tx5', 'tx7', 'tx9']],
    [{ event_type: 'bet' }, ['tx3', 'tx6', 'tx9']],
    [{ transaction_id: 'tx4' }, ['tx4']],
    [{ user_id: 'u1', event_type: 'bet' }, ['tx3', 'tx9']],
    [{ limit: 2 }, ['tx8', 'tx9']],
    [{ user_id: 'u0', limit: 1 }, ['tx8']],
    [{ limit: 0 }, []],
    [{ user_id: 'nobody' }, []],
  ];
  for (const [filter, expected] of cases)
    t.same(
      j.list(filter).map((e) => e.transaction_id),
      expected,
      JSON.stringify(filter),
    );
});

t.test('reset clears; ids stay unique; capacity 0 keeps nothing', async (t) => {
  const j = new Journal(5);
  j.record(entry(1));
  j.reset();
  t.same(j.list(), []);
  t.equal(j.record(entry(2)).id, 2, 'an id is never reused');
  const none = new Journal(0);
  none.record(entry(1));
  t.equal(none.count(), 0);
});

t.test('through the app: --journal-size bounds it, every callback journalled with code and findings', async (t) => {
  const { app } = await buildTestApp({}, { journalSize: 3 });
  t.teardown(() => app.close());
  const sent = [1, 2, 3, 4, 5].map(() => login('player-1'));
  for (const s of sent) await send(app, s);
  const entries = await journal(app);
  t.same(
    entries.map((e) => e.transaction_id),
    sent.slice(2).map((s) => s.transaction_id),
    'the newest 3',
  );
  t.ok(entries.every((e) => e.code === 'R0' && e.balance_after === 1000000 && Array.isArray(e.findings)));
  t.equal(entries[0].request.headers['api-key'], 'sa*********', 'the Api-Key is masked in the journal');
  t.same(
    (await journal(app, { limit: '1' })).map((e) => e.transaction_id),
    [sent[4]!.transaction_id],
  );
  t.equal((await app.inject({ method: 'DELETE', url: '/admin/journal' })).statusCode, 204);
  t.same(await journal(app), []);
});
