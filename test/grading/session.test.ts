// Sessions through the routes: a reset begins a new session that never grades what arrived before
// it (even a reply written after it), only authenticated callbacks are graded, and the verdict
// does not depend on what the journal still retains.
import t from 'tap';
import type { Report } from '../../src/protocol/types.generated.js';
import { bet, buildTestApp, HEADERS, login, result } from '../helpers/app.js';

// (Held 2 s: long enough to be seen in flight however late a loaded machine runs the test's loop.)
const SLOW = { name: 'slow bet', when: { event_type: 'bet' as const, user_id: 'slow' }, then: { delay_ms: 2000 } };

async function report(app: Awaited<ReturnType<typeof buildTestApp>>['app']): Promise<Report> {
  return (await app.inject({ method: 'GET', url: '/admin/report' })).json();
}
const failing = (r: Report) => r.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.violations[0]?.message}`);
const post = (app: Awaited<ReturnType<typeof buildTestApp>>['app'], body: object, headers: Record<string, string> = HEADERS) =>
  app.inject({ method: 'POST', url: '/callback', headers, payload: body });

const RESETS: [string, (app: Awaited<ReturnType<typeof buildTestApp>>['app']) => Promise<{ statusCode: number }>][] = [
  ['POST /admin/reset', (app) => app.inject({ method: 'POST', url: '/admin/reset' })],
  ['DELETE /admin/journal', (app) => app.inject({ method: 'DELETE', url: '/admin/journal' })],
  [
    'PUT /admin/scenario?reset=true',
    async (app) => {
      const scenario = (await app.inject({ method: 'GET', url: '/admin/scenario' })).json();
      return app.inject({
        method: 'PUT',
        url: '/admin/scenario?reset=true',
        headers: { 'content-type': 'application/json' },
        payload: scenario,
      });
    },
  ],
];

for (const [name, reset] of RESETS) {
  t.test(`${name} with a callback in flight: the new session grades nothing of it`, async (t) => {
    const { app, sim } = await buildTestApp({ rules: [SLOW] });
    t.teardown(() => app.close());
    const before = (await report(app)).session;
    const inFlight = post(app, bet('slow', 'G1', [['1', 'P', 10]], { currency: 'USD' }));
    while ((await sim.journal.inFlight()).length === 0) await new Promise((r) => setImmediate(r));
    t.equal((await reset(app)).statusCode < 300, true, 'reset');
    const after = (await report(app)).session;
    t.not(after.id, before.id, 'a new session');
    // A well-behaved player in the new session, while the old bet is still being answered.
    t.equal((await post(app, login('p1'))).json().code, 'R0');
    t.equal((await post(app, bet('p1', 'G2', [['1', 'P', 10]], { currency: 'USD' }))).json().code, 'R0');
    t.equal((await post(app, result('p1', 'G2', [['1', 'P', 10, 10]], { currency: 'USD' }))).json().code, 'R0');
    t.equal((await inFlight).json().code, 'R0', 'the old bet is answered after the reset');
    const r = await report(app);
    t.same(failing(r), [], 'no failing check in the new session');
    t.equal(r.checks.find((c) => c.id === 'LOGIN_BEFORE_BET')!.exercised, 1, 'only the new player bet in it');
    t.same(r.open_rounds, [], 'the old round is not in the new session');
  });
}

t.test('only authenticated callbacks are graded: a flood without the key leaves grading as it was', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const wrong = { ...HEADERS, 'api-key': 'wrong' };
  await report(app); // the reply's serializer is compiled on the first call
  const replayed = bet('usd', 'G1', [['1', 'P', 10]], { currency: 'USD' });
  for (let i = 0; i < 10_000; i++) {
    const res = await post(app, i % 2 ? replayed : result('usd', 'G1', [['1', 'P', 10, 10]], { currency: 'USD' }), wrong);
    if (i === 0) t.equal(res.json().code, 'R2');
  }
  t.equal(sim.grading.grader.txs.size, 0, 'no transaction entered grading');
  const started = performance.now();
  const r = await report(app);
  const ms = performance.now() - started;
  t.comment(`report after 10,000 wrong-key callbacks: ${ms.toFixed(1)} ms`);
  t.ok(ms < 1000, 'the report stays cheap (the figure is measured by the bench)');
  t.equal(r.summary.not_exercised, 14, 'no check was exercised');
  t.equal(r.findings.API_KEY_WRONG ?? Object.values(r.findings)[0], 10_000, 'refused credentials are a counted finding');
});

t.test('the verdict does not depend on the journal retention', async (t) => {
  const first = bet('usd', 'G1', [['1', 'P', 10]], { currency: 'USD' });
  const changed = { ...first, data: { ...first.data, total_bet_amount: 20, bets: [{ bet_index: '1', bet_type: 'P', bet_amount: 20 }] } };
  const logins = Array.from({ length: 30 }, (_, i) => login(`other-${i}`));
  const play = async (journalSize: number) => {
    const { app } = await buildTestApp({}, { journalSize });
    t.teardown(() => app.close());
    await post(app, first); // no login before it
    await post(app, changed);
    for (const l of logins) await post(app, l);
    const r = await report(app);
    return r.checks.map((c) => [c.id, c.status, c.exercised, c.violations.map((v) => v.message.replace(/\d+ ms after/, 'N ms after'))]);
  };
  const small = await play(3);
  t.same(small, await play(10_000), 'the same report with 3 or 10,000 journal entries retained');
  t.match(JSON.stringify(small), /LOGIN_BEFORE_BET","fail/);
  t.match(JSON.stringify(small), /RETRY_UNCHANGED","fail/);
});
