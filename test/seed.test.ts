// The seed: on the start line (--seed, WALLET_SIM_SEED, random when absent), in GET /admin/scenario,
// kept across resets; the same callbacks per player after a reset meet the same faults.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { StartFailure } from '../src/app/serve.js';
import { startSimulator } from '../src/app/start-simulator.js';
import { bet, buildTestApp, HEADERS, journal, login, send, TEST_SCENARIO } from './helpers/app.js';
import { runAll, start } from './helpers/spawn-cli.js';

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

// Issue 35, item 6: an empty or non-integer seed used to start silently with 0.
t.test('a seed that is not an integer is refused, naming the option (and the env var it came from)', async (t) => {
  const bad = ['', ' ', '1.5', 'abc', '0x10', '-1', '9007199254740992', '1e300'];
  const base = ['start', '--port', '0', '--scenario', 'chaos', '--log-level', 'warn'];
  const flags = await runAll(bad.map((seed) => [...base, '--seed', seed]));
  const envs = [...(await runAll([base], { WALLET_SIM_SEED: '' })), ...(await runAll([base], { WALLET_SIM_SEED: ' ' }))];
  flags.forEach((ran, i) => {
    t.equal(ran.code, 1, `--seed ${JSON.stringify(bad[i])}: exit 1`);
    t.match(ran.stderr, /option '--seed <n>' argument .* is invalid\. must be an integer from 0 to 9007199254740991/);
    t.notMatch(ran.stdout, /listening/, 'nothing started');
  });
  for (const ran of envs) {
    t.equal(ran.code, 1, 'WALLET_SIM_SEED blank: exit 1');
    t.match(ran.stderr, /option '--seed <n>' value .* from env 'WALLET_SIM_SEED' is invalid\. must be an integer/);
  }
  for (const seed of ['', ' ', '1.5', 'abc', 1.5, Number.NaN, 2 ** 53]) {
    const failed = await startSimulator({ scenario: 'chaos', seed: seed as number }).then(
      async (sim) => (await sim.close(), undefined),
      (e: Error) => e,
    );
    t.ok(failed instanceof StartFailure, `startSimulator({ seed: ${JSON.stringify(seed)} }) is refused`);
    t.match(failed?.message, /startSimulator: option '--seed <n>' argument .* is invalid\. must be an integer from 0/);
  }
});

t.test("the scenario file's seed goes through the schema", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-seed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const seed of ['', ' ', '5', 1.5, -1, 2 ** 53, null]) {
    const file = join(dir, 'scenario.json');
    writeFileSync(file, JSON.stringify({ ...TEST_SCENARIO, seed }));
    const failed = await startSimulator({ scenario: file }).then(
      async (sim) => (await sim.close(), undefined),
      (e: Error) => e,
    );
    t.ok(failed instanceof StartFailure, `"seed": ${JSON.stringify(seed)} in the file is refused`);
    t.match(failed?.message, /\/seed/, 'naming the field');
  }
});
