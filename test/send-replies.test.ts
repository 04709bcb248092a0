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
  t.match(r.stderr, /player carol from the simulator's scenario "closed" \(a rule names every player of it, 2 rules name carol/);
  t.notMatch(r.stderr, /currency|USD/, 'a login carries no currency: none is said');
  const named = await send(['login', '--url', url, '--user', 'nobody']);
  t.notMatch(named.stderr, /currency|player nobody/, 'a login for a given player: nothing to say about the scenario');

  const nobody = await send(['bet', '--url', url, '--user', 'nobody']);
  t.match(nobody.stderr, /currency USD from the simulator's scenario "closed" \(--user nobody given\); --currency chooses/);
  t.notMatch(nobody.stderr, /player nobody/, 'nobody is not said to come from the scenario');
});

t.test('send never sends a token from the environment (it goes to whatever host --url names); a typed one, yes', async (t) => {
  const seen: (string | undefined)[] = [];
  const { createServer } = await import('node:http');
  const stub = createServer((req, res) => {
    if (req.url === '/admin/scenario') seen.push(req.headers.authorization);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"NOT_FOUND","message":"no route"}');
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  t.teardown(() => stub.close());
  const url = `http://127.0.0.1:${(stub.address() as import('node:net').AddressInfo).port}/callback`;
  const before = process.env.WALLET_SIM_ADMIN_TOKEN;
  process.env.WALLET_SIM_ADMIN_TOKEN = 'local-secret';
  t.teardown(() => {
    if (before === undefined) delete process.env.WALLET_SIM_ADMIN_TOKEN;
    else process.env.WALLET_SIM_ADMIN_TOKEN = before;
  });
  await send(['login', '--url', url]);
  await send(['login', '--url', url, '--admin-token', 'typed']);
  t.same(seen, [undefined, 'Bearer typed']);
});

t.test('a 403 blames the token only when the server says the token is refused', async (t) => {
  const { refusalOf } = await import('../src/client/refusals.js');
  const body = (error: string, message: string) => JSON.stringify({ error, message });
  const table: [number, string, boolean, string | undefined][] = [
    [401, '', false, "401, the admin API is locked: pass --admin-token (or WALLET_SIM_ADMIN_TOKEN), or a hosted tenant's --token-file"],
    [401, '', true, '401, the token given (--token-file or --admin-token) was refused: it is wrong, or it was rotated since'],
    [403, body('FORBIDDEN', 'not this tenant'), true, '403, the token given (--token-file or --admin-token) was refused: not this tenant'],
    [403, body('HOST_NOT_ALLOWED', 'use --allowed-hosts'), true, 'HTTP 403: use --allowed-hosts'],
    [403, 'not json', true, 'HTTP 403: refused'],
    [404, body('NOT_FOUND', 'x'), true, undefined],
  ];
  for (const [status, text, token, line] of table)
    if (line === undefined) t.equal(refusalOf(status, text, token), undefined, `${status}`);
    else t.match(refusalOf(status, text, token), line, `${status} ${text}`);
});
