// Paging the journal forward (`after`) never passes a callback still being answered: a page ends
// before the oldest one in flight, and what was answered after it comes on a later page, behind it.
import t from 'tap';
import { Journal } from '../src/journal/journal.js';
import { bet, buildTestApp, HEADERS, login, send } from './helpers/app.js';

const entry = (user_id: string) => ({
  received_at: new Date().toISOString(),
  user_id,
  request: { method: 'POST', url: '/callback', headers: {}, body: { user_id } },
  reply: { status: 200, headers: {}, body: {}, dropped: false, client_gone: false },
  replayed: false,
  findings: [],
});
const timing = { replied_at: new Date().toISOString(), duration_ms: 1, client_gone: false };
const users = (entries: { text: string }[]) => entries.map((e) => (JSON.parse(e.text) as { user_id: string }).user_id);

t.test('the in-memory journal: a page forward ends before the oldest entry in flight', async (t) => {
  const journal = new Journal(100, 1_000_000);
  journal.begin(entry('first')).finish(timing);
  const slow = journal.begin(entry('slow'));
  journal.begin(entry('quick')).finish(timing);
  t.same(users(journal.select({ after: 0 })), ['first'], 'after 0: the entry before the one in flight');
  t.same(users(journal.select({ after: 0, limit: 5 })), ['first'], 'with a limit too');
  t.same(users(journal.select({})), ['first', 'quick'], 'a read without after lists what is written');
  slow.finish(timing);
  t.same(users(journal.select({ after: 1 })), ['slow', 'quick'], 'answered: the next page has it, in arrival order');
  journal.reset();
  const stale = journal.begin(entry('before the reset')); // (of the cleared journal: never kept, holds no page back)
  journal.reset();
  journal.begin(entry('after')).finish(timing);
  t.same(users(journal.select({ after: 0 })), ['after'], 'a callback of a cleared journal holds no page back');
  stale.finish(timing);
});

t.test('GET /admin/journal?after= pages past no delayed callback', async (t) => {
  const { app, sim } = await buildTestApp({ rules: [{ name: 'slow', when: { event_type: 'bet' }, then: { delay_ms: 500 } }] });
  t.teardown(() => app.close());
  t.equal((await send(app, login('player-1'))).body.code, 'R0');
  const slow = app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: bet('player-1', 'G1', [['1', 'P', 10]]) });
  // Wait for the state: the bet decided and waiting out its delay.
  for (const end = Date.now() + 10_000; (sim.journal.inFlight() as unknown[]).length < 1 && Date.now() < end;)
    await new Promise((r) => setTimeout(r, 10));
  t.equal((sim.journal.inFlight() as unknown[]).length, 1, 'the bet in flight');
  t.equal((await send(app, login('usd'))).body.code, 'R0', 'a login answered meanwhile');
  const read = async (after: number) =>
    (
      (await app.inject({ method: 'GET', url: `/admin/journal?after=${after}` })).json() as {
        entries: { id: number; event_type: string }[];
      }
    ).entries;
  const first = await read(0);
  t.same(
    first.map((e) => e.event_type),
    ['login'],
    'the first page ends before the bet in flight',
  );
  t.equal((await slow).json().code, 'R0', 'the bet answered');
  t.same(
    (await read(first.at(-1)!.id)).map((e) => e.event_type),
    ['bet', 'login'],
    'the next page: the bet, then the login answered before it',
  );
});
