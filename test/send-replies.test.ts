// send's exit and its line on stderr: a non-200 reply is exit 1 whatever its body says; the player
// it picks when --user is not given; with --user given, the line says only what the scenario gave.
import t from 'tap';
import { sendCommand } from '../src/commands/send.js';
import { pickPlayer } from '../src/commands/send-defaults.js';
import type { Scenario } from '../src/protocol/types.generated.js';
import { buildTestApp, TEST_SCENARIO } from './helpers/app.js';
import { runHere } from './helpers/run-here.js';

const send = (args: string[]) => runHere(sendCommand(), args);

async function listening(scenario: Partial<Scenario>) {
  const { app } = await buildTestApp(scenario);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}/callback` };
}

t.test('a non-200 reply is exit 1, even with R0 in its body, and says why in one line', async (t) => {
  const { app, url } = await listening({
    name: 's503',
    rules: [{ name: 'busy', when: { event_type: 'login' }, then: { http_status: 503 } }],
  });
  t.teardown(() => app.close());
  const r = await send(['login', '--url', url, '--user', 'usd']);
  t.match(r.stdout, /← HTTP 503/);
  t.match(r.stdout, /R0: Success processing/, 'the body says R0');
  t.equal(r.code, 1, 'yet exit 1');
  t.match(r.stderr, /HTTP 503 is not a reply a provider may book, whatever its body says: its client treats it as no answer/);
  const ok = await send(['bet', '--url', url, '--user', 'usd', '--amount', '1']);
  t.equal(ok.code, 0, 'HTTP 200 with R0: exit 0');
  t.notMatch(ok.stderr, /may book/);
});

t.test('the player picked: one no rule names; every one named: said, and the one fewest rules name', async (t) => {
  const base: Scenario = { ...TEST_SCENARIO, players: [...TEST_SCENARIO.players!, { user_id: 'carol', balance: 5, currency: 'USD' }] };
  const on = (user_id: string, n = 1) => Array.from({ length: n }, () => ({ when: { user_id }, then: { code: 'R4' as const } }));
  t.same(pickPlayer({ ...base, rules: [...on('player-1'), ...on('usd')] }), { user: 'carol', currency: 'USD' }, 'the one no rule names');
  const all = [...on('player-1', 2), ...on('usd', 3), ...on('carol', 2)];
  t.same(pickPlayer({ ...base, rules: all.slice(2) }), { user: 'player-1', currency: 'KRW' }, 'player-1: no rule names it');
  const closed = { ...base, defaults: { ...base.defaults, auto_create_players: false }, rules: all };
  t.match(pickPlayer(closed), { user: 'player-1', note: /a rule names every player of it, 2 rules name player-1: pass --user/ });
  t.match(pickPlayer({ ...closed, rules: [...all, ...on('player-1')] }), { user: 'carol', currency: 'USD', note: /2 rules name carol/ });

  const { app, url } = await listening({ ...closed, name: 'closed', rules: [...all, ...on('player-1')] });
  t.teardown(() => app.close());
  const r = await send(['login', '--url', url]);
  t.match(r.stderr, /player carol \(USD\) from the simulator's scenario "closed" \(a rule names every player of it, 2 rules name carol/);

  const nobody = await send(['login', '--url', url, '--user', 'nobody']);
  t.match(nobody.stderr, /currency USD from the simulator's scenario "closed" \(--user nobody given\); --currency chooses/);
  t.notMatch(nobody.stderr, /player nobody/, 'nobody is not said to come from the scenario');
});
