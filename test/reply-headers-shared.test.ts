// A plain reply's headers (no reason) are the same for every callback of a caller: one frozen object
// is shared (src/protocol/seed/reply.ts plainHeaders), not one kept per journal entry and grading
// attempt. Shared, they must still be exactly each reply's headers, and never changed by a writer.
import t from 'tap';
import { handleCallback } from '../src/core/handle.js';
import { compileScenario } from '../src/core/scenario/scenario.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { openSimulator } from '../src/app/compose.js';
import { MaskedHeaders } from '../src/kernel/secrets.js';
import { bet, HEADERS, login, TEST_SCENARIO } from './helpers/app.js';

t.test('plain replies of one caller share one frozen headers object; a reason or another caller gets its own', async (t) => {
  const sim = await openSimulator(compileScenario(TEST_SCENARIO), new MemoryBackend());
  const send = (body: object, headers: Record<string, string> = HEADERS) =>
    handleCallback(sim, { method: 'POST', url: '/callback', headers: { ...headers }, body: JSON.stringify(body) });
  const [a, b] = [await send(login('p1')), await send(login('p2'))];
  t.equal(a.code, 'R0');
  t.equal(a.headers, b.headers, 'two logins: one headers object');
  t.ok(Object.isFrozen(a.headers), 'frozen: a writer that changed it would throw, not change every reply');
  t.equal(a.entry.reply.headers, b.entry.reply.headers, 'and one masked wrapper for the journal');
  t.strictSame(MaskedHeaders.rawOf(a.entry.reply.headers as MaskedHeaders), a.headers);
  const placed = await send(bet('p1', 'g1', [['1', 'P', 1]], { currency: 'USD' }));
  t.equal(placed.code, 'R0');
  t.equal(placed.headers['callback-url'], undefined, "a bet's reply echoes no Callback-URL");
  t.notOk('callback-url' in placed.headers);
  t.equal((await send(login('p3'))).headers, a.headers, 'the login shape is still shared after a bet');
  const otherUrl = await send(login('p4'), { ...HEADERS, 'callback-url': 'http://127.0.0.1:1/other' });
  t.not(otherUrl.headers, a.headers, 'another Callback-URL: its own headers');
  t.equal(otherUrl.headers['callback-url'], 'http://127.0.0.1:1/other');
  const refused = await send(bet('p1', 'g2', [['1', 'P', 1]], { currency: 'USD', total: 5 }));
  t.not(refused.code, 'R0');
  t.not(refused.headers, placed.headers, 'a reply with a reason has its own headers');
  t.match(refused.headers['x-wallet-sim-reason'], /total/);
  t.match(JSON.stringify(a.entry.reply.headers), /"api-key":"[^"]*\*/, 'the journal still masks the key');
});
