// The journal writes an entry's JSON text field by field (src/journal/journal.ts entryText): it must
// be exactly the text JSON.stringify gave for the entry objects it used to build, whatever a caller sends.
import t from 'tap';
import { handleCallback } from '../src/core/handle.js';
import { entryText, Journal, textBound } from '../src/journal/journal.js';
import { finishedText } from '../src/journal/entry-text.js';
import { compileScenario } from '../src/core/scenario/scenario.js';
import {} from '../src/core/simulator.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { HEADERS, TEST_SCENARIO } from './helpers/app.js';
import { before, type Begun, tricky } from './helpers/journal-text.js';
import { openSimulator } from '../src/app/compose.js';

t.test('entryText equals JSON.stringify of the entry objects, for bodies a caller may send', async (t) => {
  const sim = await openSimulator(compileScenario(TEST_SCENARIO), new MemoryBackend());
  let id = 0;
  for (const [name, body] of tricky) {
    for (const headers of [HEADERS, { ...HEADERS, 'api-key': 'wrong-key', 'x-odd': ['a', 'b\u00e9'] as never }, {}]) {
      const out = await handleCallback(sim, { method: 'POST', url: '/callback?q=\u00e9', headers, body });
      const entry: Begun = Object.assign(out.entry, { received_at: new Date(0).toISOString() });
      id++;
      t.equal(entryText(id, entry), before(id, entry), `${name}: recorded`);
      for (const done of [
        { replied_at: 'later', duration_ms: 12, client_gone: false },
        { replied_at: '', duration_ms: 0, client_gone: true },
      ]) {
        t.equal(entryText(id, entry, done), before(id, entry, done), `${name}: finished`);
        t.equal(finishedText(entry, done), before(0, entry, done), `${name}: finished, from one literal (a sealed entry on Redis)`);
      }
    }
  }
});

t.test('odd entries: missing and undefined fields, an empty reply, a reply that says client_gone', async (t) => {
  const base: Begun = {
    received_at: 'then',
    transaction_id: undefined,
    event_type: 'login',
    reason: undefined,
    rule: { index: 0, name: 'r\u0000' },
    request: { method: 'POST', url: '/', headers: { 'api-key': 'ab**' }, body: { n: Number.NaN, i: Infinity, u: undefined } },
    reply: { status: 200, headers: {}, body: null, dropped: false },
    replayed: false,
    findings: [],
  };
  const done = { replied_at: 'now', duration_ms: 3, client_gone: true };
  const variants: [string, Begun][] = [
    ['undefined fields', base],
    ['no received_at', (({ received_at: _, ...rest }) => rest as Begun)(base)],
    ['an empty reply', { ...base, reply: {} as never }],
    ['a reply already saying client_gone', { ...base, reply: { ...base.reply, client_gone: false } }],
  ];
  for (const [name, entry] of variants) {
    t.equal(entryText(7, entry), before(7, entry), `${name}: recorded`);
    t.equal(entryText(7, entry, done), before(7, entry, done), `${name}: finished`);
  }
});

t.test('the journal keeps that text: begin → finish, record, inFlight', async (t) => {
  const j = new Journal();
  const entry: Begun = {
    received_at: 'r',
    event_type: 'bet',
    user_id: 'u',
    transaction_id: 'x',
    request: { method: 'POST', url: '/callback', headers: {}, body: { a: '\ud800' } },
    reply: { status: 200, headers: {}, body: null, dropped: false },
    replayed: false,
    findings: [],
  };
  const pending = j.begin(entry);
  t.same(j.inFlight(), [{ id: 1, ...entry, duration_ms: 0 }], 'in flight: the entry, with no reply time yet');
  const kept = pending.finish({ replied_at: 'd', duration_ms: 4, client_gone: false });
  t.equal(kept.text, before(1, entry, { replied_at: 'd', duration_ms: 4, client_gone: false }));
  t.same(j.list(), [JSON.parse(kept.text)]);
  t.equal(j.record({ ...entry, duration_ms: 1 }).text, JSON.stringify({ id: 2, ...entry, duration_ms: 1 }));
});

t.test('an entry kept as objects reads as the same text, and counts at least its length', async (t) => {
  const sim = await openSimulator(compileScenario(TEST_SCENARIO), new MemoryBackend());
  const short = '{"transaction_id":"s","event_type":"login","timestamp":1e9,"feedback_data":"f","user_id":"p","n":[1e20,1e20,1e20]}';
  const done = { replied_at: 'later', duration_ms: 12, client_gone: false };
  let lazy = 0;
  for (const [name, body] of [...tricky, ['numbers written short', short] as [string, string]]) {
    for (const headers of [HEADERS, { ...HEADERS, 'x-odd': ['a"\\', 'b\u00e9'] as never }]) {
      const out = await handleCallback(sim, { method: 'POST', url: '/callback?q=\u00e9', headers, body });
      const entry: Begun = Object.assign(out.entry, { received_at: new Date(0).toISOString() });
      const bound = textBound(entry, body.length);
      const kept = sim.journal.begin(entry, body.length).finish(done);
      t.equal(kept.text, before(kept.id, entry, done), `${name}: the same text`);
      if (bound === undefined) continue;
      lazy++;
      t.ok(bound >= kept.text.length, `${name}: counted ${bound} ≥ ${kept.text.length} characters`);
    }
  }
  t.ok(lazy >= 4, `${lazy} entries kept as objects`);
  t.equal(textBound({ ...bigEntry(), findings: [] }, 20_000), undefined, 'a large body is kept as text');
});

t.test("a reply body's bound is at least its text, for any body a scenario rule may reply", async (t) => {
  const bodies: unknown[] = [
    { code: 'R0', tiny: -2.2250738585072014e-308, big: 1e21, nan: Number.NaN, s: '\u0000"\\é😀\ud800', t: true, f: false, z: null },
    'a "text" reply\n',
    12.5,
    null,
    [1, 2, { a: 'b' }],
    { nested: { deeper: { deepest: [1e300, 'x'.repeat(100)] } } },
    {},
    { when: new Date(0) },
  ];
  const done = { replied_at: 'later', duration_ms: 12, client_gone: false };
  for (const body of bodies) {
    const entry: Begun = { ...bigEntry(), request: { ...bigEntry().request, body: { a: 1 } }, reply: { ...bigEntry().reply, body } };
    const bound = textBound(entry, 10)!;
    t.ok(bound >= entryText(1, entry, done).length, `${JSON.stringify(body)}: counted ${bound}`);
  }
});

const bigEntry = (): Begun => ({
  received_at: 'r',
  request: { method: 'POST', url: '/callback', headers: {}, body: { a: 'x'.repeat(20_000) } },
  reply: { status: 200, headers: {}, body: null, dropped: false },
  replayed: false,
  findings: [],
});
