// GET /admin/journal takes the journal's whole filter language as query parameters (the `where`
// of verify's expectations): each field filters, a bad value is a 400 that says what to send.
import t from 'tap';
import { buildTestApp } from './helpers/app.js';
import { checkFilters, FILTER_SCENARIO, playSession } from './helpers/journal-filters.js';

t.test('every field of the language filters the in-memory journal; bad values are refused', async (t) => {
  const { app } = await buildTestApp(FILTER_SCENARIO);
  t.teardown(() => app.close());
  const { betTx } = await playSession(app);
  await checkFilters(t, app, betTx);
});

t.test('filtering reads the fields kept beside each entry: no entry text is parsed', async (t) => {
  const { app, sim } = await buildTestApp(FILTER_SCENARIO);
  t.teardown(() => app.close());
  await playSession(app);
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = ((...args: Parameters<typeof parse>) => {
    parsed++;
    return parse(...args);
  }) as typeof JSON.parse;
  let counts: number[];
  try {
    counts = [
      sim.journal.count({ game_no: 'G1', table_no: 'T1' }),
      sim.journal.count({ code: 'R3', rule: 'table-nine' }),
      sim.journal.count({ replayed: true, user_id: 'p1', event_type: 'bet' }),
    ];
  } finally {
    JSON.parse = parse;
  }
  t.same(counts, [2, 1, 1]);
  t.equal(parsed, 0, 'JSON.parse was never called');
});
