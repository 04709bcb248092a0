// Bodies held by delayed callbacks count against --journal-bytes (issue 21, item 6): 400 bets of
// 1 MiB delayed 5 s took 1.3-1.45 GB; past the bound an in-flight entry keeps an excerpt only.
import t from 'tap';
import { Journal } from '../src/journal/journal.js';
import { bet, buildTestApp, HEADERS } from './helpers/app.js';

const entry = (body: unknown) => ({
  received_at: new Date().toISOString(),
  request: { method: 'POST', url: '/callback', headers: {}, body },
  reply: { status: 200, headers: {}, body: {}, dropped: false, client_gone: false },
  replayed: false,
  findings: [],
});
const timing = { replied_at: new Date().toISOString(), duration_ms: 1, client_gone: false };

t.test('heldBytes counts the bodies in flight; past maxBytes an in-flight body is kept as an excerpt', async (t) => {
  const journal = new Journal(100, 10_000);
  const big = 'x'.repeat(4000);
  const a = journal.begin(entry(big), big.length);
  const b = journal.begin(entry(big), big.length);
  t.equal(journal.heldBytes, 8000, 'two bodies in flight are held');
  const c = journal.begin(entry(big), big.length);
  t.ok(journal.heldBytes <= 10_000, `the third does not fit: ${journal.heldBytes} ≤ 10000`);
  t.same(
    journal.inFlight().map((e) => (e.request.body as string).length === 4000),
    [true, true, false],
    'the first two whole',
  );
  const excerpt = journal.inFlight()[2]!.request.body as string;
  t.match(excerpt, /^x{1024}…\(4000 characters; the rest is not kept: --journal-bytes was held by other delayed callbacks\)$/);
  for (const p of [a, b, c]) p.finish(timing);
  t.equal(journal.inFlight().length, 0);
  t.ok(journal.heldBytes <= 10_000, `finished, the journal stays within its bound (${journal.heldBytes})`);
  t.equal(journal.list().at(-1)!.request.body, excerpt, 'the excerpt is what the journal keeps');
});

t.test('delayed callbacks through the route: their bodies stay within --journal-bytes while they wait', async (t) => {
  const maxBytes = 256 * 1024;
  const { app, sim } = await buildTestApp(
    { rules: [{ name: 'slow', when: { event_type: 'bet' }, then: { delay_ms: 2000 } }] },
    { journalBytes: maxBytes },
  );
  t.teardown(() => app.close());
  const feedback = 'f'.repeat(64 * 1024);
  const sent = Array.from({ length: 12 }, (_, i) =>
    app.inject({
      method: 'POST',
      url: '/callback',
      headers: HEADERS,
      payload: JSON.stringify({ ...bet('player-1', `G${i}`, [['1', 'P', 10]]), feedback_data: feedback }),
    }),
  );
  // Wait for the state: all twelve decided and waiting out their delay.
  for (const end = Date.now() + 10_000; (sim.journal.inFlight() as unknown[]).length < 12 && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 10));
  t.equal((sim.journal.inFlight() as unknown[]).length, 12, 'twelve callbacks in flight');
  t.ok(sim.journal.heldBytes <= maxBytes, `held ${sim.journal.heldBytes} ≤ ${maxBytes} although 12 × 64 KiB were sent`);
  const replies = await Promise.all(sent);
  t.same(
    replies.map((r) => r.json().code),
    Array(12).fill('R0'),
    'every bet is answered and applied as usual',
  );
  const kept = sim.journal.list({ event_type: 'bet' });
  t.equal(kept.length, 12, 'every callback is journalled');
  t.ok(
    kept.some((e) => typeof e.request.body === 'string' && e.request.body.includes('the rest is not kept')),
    'the ones past the bound with an excerpt of their body',
  );
  t.ok(sim.journal.heldBytes <= maxBytes);
});
