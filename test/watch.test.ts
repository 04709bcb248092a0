import { mkdtempSync, rmSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { DEFAULT_SCENARIO } from '../src/kernel/paths.js';
import { HEADERS, login } from './helpers/app.js';
import { eventually, start } from './helpers/spawn-cli.js';

t.test('--watch reloads the scenario on change; an invalid edit keeps the old one and logs every error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-watch-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'scenario.json');
  const scenario = JSON.parse(readFileSync(DEFAULT_SCENARIO, 'utf8'));
  writeFileSync(file, JSON.stringify({ ...scenario, name: 'first' }));
  const sim = await start(t, ['--port', '0', '--scenario', file, '--watch']);
  const output = () => sim.stdout() + sim.stderr();
  const name = async () => ((await (await fetch(`${sim.url}/admin/scenario`)).json()) as { name: string }).name;
  const loginCode = async () =>
    (
      (await (
        await fetch(`${sim.url}/callback`, { method: 'POST', headers: HEADERS, body: JSON.stringify(login('player-usd')) })
      ).json()) as { code: string }
    ).code;
  t.equal(await name(), 'first');

  writeFileSync(file, JSON.stringify({ ...scenario, name: 'second', rules: [{ when: { event_type: 'login' }, then: { code: 'R1' } }] }));
  t.ok(await eventually(async () => (await name()) === 'second'), 'reloaded after an in-place write');
  t.equal(await loginCode(), 'R1', 'the new rules are active');

  writeFileSync(file, JSON.stringify({ ...scenario, name: 'broken', credentials: {}, rules: [{ when: {}, then: { delay_ms: -1 } }] }));
  t.ok(await eventually(async () => /scenario edit rejected/.test(output())), 'the rejection is logged');
  t.match(output(), /\/credentials\/api_id is required/);
  t.match(output(), /\/rules\/0\/then\/delay_ms must be >= 0/);
  t.equal(await name(), 'second', 'the old scenario stays');

  // editors that save by writing a temp file and renaming it over the original
  writeFileSync(join(dir, 'tmp.json'), JSON.stringify({ ...scenario, name: 'third' }));
  renameSync(join(dir, 'tmp.json'), file);
  t.ok(await eventually(async () => (await name()) === 'third'), 'reloaded after a rename-over save');
  t.equal(await loginCode(), 'R0');

  // An editor that saves UTF-8 with a byte-order mark (Notepad, some Windows tools).
  writeFileSync(file, `\uFEFF${JSON.stringify({ ...scenario, name: 'fourth' })}`);
  t.ok(await eventually(async () => (await name()) === 'fourth'), 'reloaded a file saved with a byte-order mark');
  t.notMatch(output(), /not valid JSON/);
  t.equal((await sim.stop()).code, 0, 'SIGTERM closes cleanly');
});

t.test('WALLET_SIM_WATCH=false does not watch (=1 does)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-watch-env-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const scenario = JSON.parse(readFileSync(DEFAULT_SCENARIO, 'utf8'));
  for (const [value, watches] of [
    ['false', false],
    ['1', true],
  ] as const) {
    const file = join(dir, `scenario-${value}.json`);
    writeFileSync(file, JSON.stringify({ ...scenario, name: 'first' }));
    const sim = await start(t, ['--port', '0', '--scenario', file], { WALLET_SIM_WATCH: value });
    const name = async () => ((await (await fetch(`${sim.url}/admin/scenario`)).json()) as { name: string }).name;
    writeFileSync(file, JSON.stringify({ ...scenario, name: 'second' }));
    t.equal(await eventually(async () => (await name()) === 'second', watches ? 10_000 : 1_500), watches, `WALLET_SIM_WATCH=${value}`);
    await sim.stop();
  }
});
