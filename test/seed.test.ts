// The seed: on the start line (--seed, WALLET_SIM_SEED, random when absent), in GET /admin/scenario,
// kept across resets; the same callbacks per player after a reset meet the same faults.
import t from 'tap';
import { bet, buildTestApp, HEADERS, journal, login, send } from './helpers/app.js';
import { start } from './helpers/spawn-cli.js';

const seedOf = async (url: string) => ((await (await fetch(`${url}/admin/scenario`)).json()) as { seed: number }).seed;

t.test('the seed on the start line and in GET /admin/scenario; kept across a reset', async (t) => {
  const flag = await start(t, ['--port', '0', '--scenario', 'chaos', '--seed', '77', '--log-level', 'warn']);
  t.match(flag.stdout(), /scenario "chaos", store memory, seed 77;/);
  t.equal(await seedOf(flag.url), 77);
  await fetch(`${flag.url}/admin/reset`, { method: 'POST' });
  t.equal(await seedOf(flag.url), 77, 'the seed stays the same across resets');

  const env = await start(t, ['--port', '0', '--scenario', 'chaos', '--log-level', 'warn'], { WALLET_SIM_SEED: '5' });
  t.match(env.stdout(), /seed 5;/, 'WALLET_SIM_SEED');

  const random = await start(t, ['--port', '0', '--scenario', 'chaos', '--log-level', 'warn']);
  const printed = Number(/seed (\d+);/.exec(random.stdout())?.[1]);
  t.ok(Number.isSafeInteger(printed), 'a random seed is chosen and printed');
  t.equal(await seedOf(random.url), printed);

  const plain = await start(t, ['--port', '0', '--log-level', 'warn']);
  t.notMatch(plain.stdout(), /seed/, 'no probability: no seed on the start line');
  t.ok(Number.isSafeInteger(await seedOf(plain.url)), 'GET /admin/scenario still names it');
});

t.test('after a reset, the same callbacks per player meet the same faults', async (t) => {
  const { app } = await buildTestApp({
    seed: 11,
    rules: [
      { name: 'flaky-login', when: { event_type: 'login' }, then: { code: 'R1' }, probability: 0.5 },
      { name: 'flaky-bet', when: { event_type: 'bet' }, then: { code: 'R1' }, probability: 0.5 },
    ],
  });
  t.teardown(() => app.close());
  const play = async () => {
    for (const p of ['a', 'b']) for (let i = 0; i < 10; i++) await send(app, i % 3 ? bet(p, `G${i}`, [['1', 'P', 1]]) : login(p), HEADERS);
    return (await journal(app)).map((e) => `${e.user_id} ${e.rule?.name ?? '-'}`);
  };
  const first = await play();
  t.ok(first.some((l) => l.endsWith('-')) && first.some((l) => !l.endsWith('-')), 'some faults, some clean callbacks');
  await app.inject({ method: 'POST', url: '/admin/reset' });
  t.same(await play(), first, 'POST /admin/reset: counts from 1 again, fault for fault');
  await app.inject({ method: 'DELETE', url: '/admin/journal' });
  t.same(await play(), first, 'DELETE /admin/journal: a new session too');
});
