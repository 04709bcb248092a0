// A reset clears the journal: a callback still being answered (a rule's delay_ms) when it came is
// answered all the same, but not kept in the journal begun since (it listed a bet of a player the
// reset removed, R0 990, before any callback of the new session).
import t from 'tap';
import { bet, buildTestApp, journal, listen, post } from './helpers/app.js';
import { eventually } from './helpers/spawn-cli.js';

for (const [how, clear] of [
  ['POST /admin/reset', { method: 'POST', url: '/admin/reset' }],
  ['DELETE /admin/journal', { method: 'DELETE', url: '/admin/journal' }],
] as const) {
  t.test(`${how} while a delayed reply is pending: the reply goes, the new journal does not list it`, async (t) => {
    const { app, sim } = await buildTestApp({
      players: [{ user_id: 's', balance: 1000, currency: 'USD' }],
      rules: [{ name: 'slow', when: { event_type: 'bet' }, then: { delay_ms: 2000 } }],
    });
    t.teardown(() => app.close());
    const base = await listen(app);
    const reply = post(`${base}/callback`, bet('s', 'g1', [['1', 'P', 10]], { currency: 'USD' }));
    t.ok(await eventually(async () => sim.journal.inFlight().length === 1, 5_000), 'decided, its reply held');
    t.equal((await app.inject(clear)).statusCode < 300, true, how);
    t.same(sim.journal.inFlight(), [], 'not listed in flight in the journal cleared');
    t.equal((await reply).body.code, 'R0', 'the caller still gets its reply');
    t.same(await journal(app), [], 'not kept in the journal cleared while it waited');
    const next = await post(`${base}/callback`, bet('s', 'g2', [['1', 'P', 10]], { currency: 'USD' }));
    t.ok(next.body.code, 'the next callback is journalled as usual');
    await eventually(async () => (await journal(app)).length === 1, 5_000);
    t.equal((await journal(app)).length, 1);
  });
}
