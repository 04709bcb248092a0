// The BUILT CLI (npm test builds first), spawned and spoken to over a real socket.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { DEFAULT_SCENARIO } from '../src/kernel/paths.js';
import { example, HEADERS, login, post } from './helpers/app.js';
import { BOOT_MS, eventually, LISTENING, type Ran, run, runAll, start } from './helpers/spawn-cli.js';
import { runHere } from './helpers/run-here.js';
import { checkStart } from './helpers/start-options.js';
import type { Command } from 'commander';
import { cliProgram } from '../src/app/cli-program.js';
import { validateCommand } from '../src/commands/validate.js';

// Every case spawns node; the whole file needs more than tap's default 30 s on a busy machine.
t.setTimeout(300_000);
// The cases are independent (processes of their own): two at a time.
t.jobs = 2;

const DEFAULT_PLAYERS = (JSON.parse(readFileSync(DEFAULT_SCENARIO, 'utf8')).players as { user_id: string }[]).map((p) => p.user_id).sort();

t.test('start --port 0: one line with the URL, a full round over a real socket, /health, SIGTERM exits 0', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-level', 'silent']);
  t.ok(sim.port > 0, `a real port (${sim.port})`);
  const lines = sim.stdout().split('\n').filter(Boolean);
  t.equal(lines.length, 1, 'exactly one line on stdout');
  t.match(
    lines[0],
    /\(callback http:\/\/127\.0\.0\.1:\d+\/callback, scenario "default", store memory; dashboard http:\/\/127\.0\.0\.1:\d+\/, Swagger UI http:\/\/127\.0\.0\.1:\d+\/docs\)$/,
  );

  const health = await fetch(`${sim.url}/health`);
  t.equal(health.status, 200);
  t.match(await health.json(), { status: 'ok', scenario: 'default', store: 'memory' });

  const steps: [string, number][] = [
    ['login.request.json', 1000000],
    ['bet.request.json', 985000],
    ['bet_result.request.json', 1005000],
  ];
  for (const [file, balance] of steps) {
    const res = await post(`${sim.url}/callback`, example(file));
    t.equal(res.status, 200);
    t.match(
      res.body,
      { code: 'R0', event_type: example(file).event_type, user_id: 'player-1', latest_balance: balance },
      `${file}: ${balance}`,
    );
  }
  const player = await (await fetch(`${sim.url}/admin/players/player-1`)).json();
  t.same(player, { user_id: 'player-1', balance: 1005000, currency: 'KRW' }, 'the admin API agrees');
  const players = await (await fetch(`${sim.url}/admin/players`)).json();
  t.same(
    players.map((p: { user_id: string }) => p.user_id).sort(),
    DEFAULT_PLAYERS,
    'the bundled default scenario is what start uses by default',
  );

  const ran = await sim.stop();
  t.equal(ran.code, 0, 'SIGTERM: exit code 0');
  t.match(ran.stderr, /SIGTERM received, closing/);
  await t.rejects(fetch(`${sim.url}/health`), 'no longer listening');
});

t.test('WALLET_SIM_PORT=0, WALLET_SIM_API_KEY and WALLET_SIM_LOG_FORMAT are read from the environment', async (t) => {
  const sim = await start(t, [], {
    WALLET_SIM_PORT: '0',
    WALLET_SIM_API_KEY: 'from-env',
    WALLET_SIM_API_ID: 'env-id',
    WALLET_SIM_LOG_FORMAT: 'pretty',
  });
  t.not(sim.port, 8080, 'not the default port');
  const old = await post(`${sim.url}/callback`, login('player-1'));
  t.equal(old.body.code, 'R2', "the scenario's credentials no longer work");
  const res = await post(`${sim.url}/callback`, login('player-1'), { ...HEADERS, 'api-id': 'env-id', 'api-key': 'from-env' });
  t.equal(res.body.code, 'R0', 'the env credentials do');
  t.equal(res.body.latest_balance, 1000000);
  const logged = () =>
    sim
      .stdout()
      .split('\n')
      .filter((l) => l && !LISTENING.test(l));
  t.ok(await eventually(async () => logged().some((l) => l.includes('INFO: R0')), BOOT_MS), 'the callbacks are logged');
  t.equal((await sim.stop()).code, 0);
  // (JSON lines when piped by default: the default log level's case below; --log-format pretty: front-door.test.ts.)
  const what = 'WALLET_SIM_LOG_FORMAT=pretty';
  const lines = logged();
  for (const line of lines) t.throws(() => JSON.parse(line), `${what}: not JSON: ${line}`);
  t.match(
    lines.find((l) => l.includes('INFO: R0')),
    /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: R0 \{.*"code":"R0".*\}$/,
    `${what}: time, level and message, its fields on the same line`,
  );
  t.notMatch(lines.join('\n'), /\x1b\[/, `${what}: no colour codes when not a terminal`);
});

t.test('start --path and --api-key flags', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-level', 'silent', '--path', '/wallet/cb', '--api-key', 'flag-key']);
  const res = await post(`${sim.url}/wallet/cb`, login('player-1'), { ...HEADERS, 'api-key': 'flag-key' });
  t.equal(res.body.code, 'R0');
  t.equal((await post(`${sim.url}/wallet/cb`, login('player-1'))).body.code, 'R2');
  t.equal(
    (await fetch(`${sim.url}/callback`, { method: 'POST', headers: HEADERS, body: '{}' })).status,
    404,
    'the default path is not served',
  );
});

t.test('validate', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-validate-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const good = join(dir, 'good.json');
  writeFileSync(
    good,
    JSON.stringify({
      name: 'good',
      credentials: { api_id: 'a', api_key: 'b' },
      currencies: { KRW: 0 },
      players: [{ user_id: 'p', balance: 5, currency: 'KRW' }],
    }),
  );
  const bad = join(dir, 'bad.json');
  writeFileSync(
    bad,
    JSON.stringify({
      name: 'bad',
      credentials: { api_id: 'a' },
      currencies: { KRW: 0 },
      players: [{ user_id: 'p', balance: 1.5, currency: 'KRW' }],
      rules: [{ when: {}, then: { delay_ms: -1 } }],
    }),
  );
  const notJson = join(dir, 'not-json.json');
  writeFileSync(notJson, '{ "name": ');
  const missing = join(dir, 'missing.json');

  const scale = join(dir, 'scale.json');
  writeFileSync(
    scale,
    JSON.stringify({
      name: 's',
      credentials: { api_id: 'a', api_key: 'b' },
      currencies: { KRW: 0 },
      players: [{ user_id: 'p', balance: 1.5, currency: 'KRW' }],
    }),
  );
  // The command end to end where a file is ok and others not (exit 1, both streams), and a start
  // refusing a bad file; the other outcomes through validate's own action, in this process (a spawn
  // each cost 0.3 s of CPU).
  const [mixedRun, startRun] = (await runAll([
    ['validate', good, notJson, missing],
    ['start', '--port', '0', '--scenario', bad],
  ])) as [Ran, Ran];
  const goodRun = await runHere(validateCommand(), [DEFAULT_SCENARIO, good]);
  const badRun = await runHere(validateCommand(), [bad]);
  const scaleRun = await runHere(validateCommand(), [scale]);

  t.test('good files exit 0', async (t) => {
    t.equal(goodRun.code, 0);
    t.match(goodRun.stdout, `${good}: ok (scenario "good")`);
    t.match(goodRun.stdout, `${DEFAULT_SCENARIO}: ok (scenario "default")`);
    t.equal(goodRun.stderr, '');
  });

  t.test('a bad file exits 1 naming file, JSON pointer and reason of every error', async (t) => {
    t.equal(badRun.code, 1);
    t.match(badRun.stderr, `${bad}: /credentials/api_key is required`);
    t.match(badRun.stderr, `${bad}: /rules/0/then/delay_ms must be >= 0`);
    t.equal(badRun.stdout, '', 'nothing claimed ok');
  });

  t.test('a scale error is named with its pointer too', async (t) => {
    t.equal(scaleRun.code, 1);
    t.match(scaleRun.stderr, `${scale}: /players/0/balance has 1 fraction digit; KRW allows 0`);
  });

  t.test('good and bad together: exit 1, each file reported', async (t) => {
    t.equal(mixedRun.code, 1);
    t.match(mixedRun.stdout, `${good}: ok`);
    t.match(mixedRun.stderr, `${notJson}: is not valid JSON`);
    t.match(mixedRun.stderr, `no scenario file ${missing}, and no bundled scenario of that name.\nGive a path`);
  });

  t.test('start with an invalid scenario exits 1 without listening', async (t) => {
    t.equal(startRun.code, 1);
    t.match(startRun.stderr, 'invalid scenario, nothing started');
    t.match(startRun.stderr, `${bad}: /credentials/api_key is required`);
    t.notMatch(startRun.stdout, /listening/);
  });
});

t.test('--help on every command exits 0 and lists the options', async (t) => {
  const top = await run(['--help']);
  t.equal(top.code, 0);
  const commands = [...top.stdout.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]!).filter((c) => c !== 'help');
  for (const c of ['start', 'validate', 'openapi']) t.ok(commands.includes(c), `${c} is listed`);
  const expected: Record<string, string[]> = {
    start: [
      '--port',
      '--host',
      '--scenario',
      '--store',
      '--data',
      '--path',
      '--api-id',
      '--api-key',
      '--admin-token',
      '--log-level',
      'WALLET_SIM_PORT',
      'WALLET_SIM_API_KEY',
    ],
    validate: ['<files...>', '--help'],
    openapi: ['--out', '--yaml', '--help'],
  };
  // The required options are marked as such (issue 9 item 12), and only they.
  const required: Record<string, string[]> = {
    send: ['--url'],
    verify: ['--url', '--expect'],
    probe: ['--url', '--api-id', '--api-key', '--user'],
  };
  const program = await cliProgram([]); // the program src/cli.ts runs, with every command
  const byName = new Map(program.commands.map((c) => [c.name(), c]));
  t.same([...commands].sort(), [...byName.keys()].sort(), 'each command listed is read below');
  // Each command's help from the command itself, in this process, as a pipe shows it (a spawn each
  // cost 0.3 to 1 s of CPU); spawned end to end for two whose help must exit 0 although a required
  // option is missing: the very text, on stdout.
  const helps = Object.fromEntries(commands.filter((c) => byName.has(c)).map((command) => [command, helpOf(byName.get(command)!)]));
  const spawned = ['probe', 'verify-report'];
  const ran = await runAll(spawned.map((command) => [command, '--help']));
  for (const [i, command] of spawned.entries()) {
    t.equal(ran[i]!.code, 0, `${command} --help exits 0 (spawned)`);
    t.equal(ran[i]!.stdout, helps[command], `${command} --help prints its help (spawned)`);
  }
  for (const command of commands) {
    const help = helps[command]!;
    t.match(help, `Usage: wallet-sim ${command}`);
    for (const option of expected[command] ?? ['--help']) t.match(help, option, `${command} --help lists ${option}`);
    for (const o of required[command] ?? [])
      t.match(help, new RegExp(`^  ${o} <[^>]+>\\s+\\(required\\) `, 'm'), `${command} --help: ${o} (required)`);
    if (required[command]) t.notMatch(help, /--timeout <ms>\s+\(required\)/, `${command}: optional options are not marked`);
  }
  for (const c of Object.keys(required)) t.ok(commands.includes(c), `${c} is listed`);
  t.match(
    helps.start!.replace(/\s+/g, ' '),
    'the name of a bundled scenario: certification, chaos, default, flaky, insufficient-funds',
    'start --help lists the bundled scenarios',
  );
});

/** What `wallet-sim <command> --help` prints to a pipe: no colour, 80 columns (commander's width when stdout is no terminal). */
function helpOf(command: Command): string {
  return command.configureOutput({ getOutHelpWidth: () => 80, getOutHasColors: () => false }).helpInformation();
}

t.test('at the default log level, start prints exactly one line before any callback, then only log lines', async (t) => {
  const sim = await start(t, ['--port', '0']);
  await fetch(`${sim.url}/health`);
  // No waiting for a line that should not come: stdout is one ordered stream, so a stray line from
  // /health would come before the callback's log line, and the checks below would see it.
  t.ok(LISTENING.test(sim.stdout().split('\n')[0]!), 'the listening line first');
  t.match(sim.stdout().split('\n')[0], `; dashboard ${sim.url}/, Swagger UI ${sim.url}/docs)`, 'naming the dashboard and Swagger UI');
  const res = await fetch(`${sim.url}/callback`, { method: 'POST', headers: HEADERS, body: JSON.stringify(login('player-usd')) });
  t.equal(((await res.json()) as { code: string }).code, 'R0');
  // The child's stdout reaches us on its own schedule: wait for the line rather than race it.
  const lines = () => sim.stdout().split('\n').filter(Boolean);
  t.ok(await eventually(async () => lines().length >= 2, BOOT_MS), 'the callback is logged');
  const after = lines();
  t.equal(after.length, 2, 'then one JSON line per callback, nothing for /health');
  t.match(JSON.parse(after[1]!), { level: 30, code: 'R0', msg: 'R0' }, 'piped: one JSON object per line, without --log-format');
  await sim.stop();
  const plain = sim
    .stdout()
    .split('\n')
    .filter((l) => l && !l.startsWith('{'));
  t.equal(plain.length, 1, 'with logging on, the URL line is still the only non-log line, up to the stop');
  t.match(plain[0], LISTENING);
});

t.test('--scenario takes the name of a bundled scenario; an unknown name lists them', async (t) => {
  // (start --help lists them: the --help case above.) What start makes of each name, from its
  // options' checks in this process (a start spawned costs a second of CPU or more); an unknown name
  // refused by the command itself: cli-messages.test.ts; a name given in the environment, spawned here.
  const unknown = checkStart(['--port', '0', '--scenario', 'flakey']);
  t.match(unknown, 'no scenario file flakey, and no bundled scenario of that name; nothing started');
  t.match(unknown, /one of the bundled scenarios: certification, chaos, default, flaky, /);
  t.notMatch(unknown, 'ENOENT');
  for (const given of ['flaky', 'flaky.json']) {
    const checked = checkStart(['--port', '0', '--scenario', given]);
    t.equal(typeof checked === 'string' ? checked : checked.scenario.source.name, 'flaky', `--scenario ${given}`);
  }

  const env = await start(t, ['--port', '0', '--log-level', 'silent'], { WALLET_SIM_SCENARIO: 'slow-wallet' });
  t.equal(((await (await fetch(`${env.url}/admin/scenario`)).json()) as { name: string }).name, 'slow-wallet');
  t.match(env.stdout(), 'scenario "slow-wallet"', 'WALLET_SIM_SCENARIO=slow-wallet');
});
