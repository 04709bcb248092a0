// A newcomer's rough edges (issue 22, item 5), each as the user meets it: the built CLI in a real
// process, the app over inject or a real socket.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { pickPlayer } from '../src/commands/send-defaults.js';
import { DEFAULT_SCENARIO } from '../src/kernel/paths.js';
import type { Scenario } from '../src/protocol/types.generated.js';
import { loadScenarioFile } from '../src/core/scenario/scenario.js';
import { buildTestApp, HEADERS, login, listen, post } from './helpers/app.js';
import { CLI, cleanEnv, collect, run, start } from './helpers/spawn-cli.js';

// The cases are independent (an app or a CLI process each): two at a time.
t.jobs = 2;

const scenarioOf = (name: string) => loadScenarioFile(join(DEFAULT_SCENARIO, '..', `${name}.json`)).source;

t.test('GET /ui/ and /ui/index.html lead to /ui, the one address of the page and its headers', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  for (const url of ['/ui/', '/ui/index.html']) {
    const res = await app.inject(url);
    t.equal(res.statusCode, 302, url);
    t.equal(res.headers.location, '/ui');
  }
  const page = await app.inject('/ui');
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-security-policy'], /default-src 'self'/);
});

t.test('validate takes the names of bundled scenarios, as start --scenario does', async (t) => {
  const ran = await run(['validate', 'certification', 'flaky.json']);
  t.equal(ran.code, 0, ran.stderr);
  t.match(ran.stdout, /certification: ok \(scenario "certification"\)/);
  t.match(ran.stdout, /flaky\.json: ok/);
});

t.test('a JSON syntax error names line and column', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-json-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cases: [string, string, RegExp][] = [
    ['comma.json', '{\n  "name": "x",\n  "rules": [ }\n', /is not valid JSON: .* at line 3, column 14/],
    ['cut.json', '{\n  "name": "x",\n', /is not valid JSON: .* at line 3, column 1$/m],
  ];
  for (const [name, text] of cases) writeFileSync(join(dir, name), text);
  // One validate reads both: each file's error is its own line.
  const ran = await run(['validate', ...cases.map(([name]) => join(dir, name))]);
  t.equal(ran.code, 1);
  for (const [name, , message] of cases) {
    const line = ran.stderr.split('\n').find((l) => l.startsWith(join(dir, name)));
    t.match(line, message, name);
  }
  t.notMatch(ran.stderr, /position/);
});

t.test('a reader that closes the pipe early (openapi | head -1): a quiet end, no EPIPE trace', async (t) => {
  const child = spawn(process.execPath, [CLI, 'openapi'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // before anything is read: every write of the child meets a closed pipe
  const io = collect(child);
  child.stderr.setEncoding('utf8');
  const ran = await io.exited;
  t.equal(ran.code, 0);
  t.equal(io.stderr(), '', 'nothing on stderr');
});

t.test("Swagger's callback examples, sent as they are, are answered R0 with no finding", async (t) => {
  const scenario = scenarioOf('default');
  const { app, sim } = await buildTestApp(scenario);
  t.teardown(() => app.close());
  const doc = (await app.inject('/openapi.json')).json();
  const examples = doc.paths['/callback'].post.requestBody.content['application/json'].examples;
  for (const event of ['login', 'bet']) {
    const value = examples[event].value;
    t.ok(Math.abs(value.timestamp - Date.now() / 1000) < 60, `${event}: a timestamp of now`);
    const res = await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: value });
    t.equal(res.json().code, 'R0', event);
  }
  const found = sim.journal.list().flatMap((e) => e.findings.map((f) => f.code));
  t.same(found, [], 'no TIMESTAMP_SKEWED, nor any other finding');
});

t.test('send picks a player and currency from the active scenario', async (t) => {
  const cases: [string, { user: string; currency: string }][] = [
    ['default', { user: 'player-1', currency: 'KRW' }],
    ['certification', { user: 'player-1', currency: 'USD' }], // every listed player is some rule's: a fresh one
    ['insufficient-funds', { user: 'player-broke', currency: 'USD' }],
  ];
  for (const [name, expected] of cases) t.same(pickPlayer(scenarioOf(name)), expected, name);
  t.same(pickPlayer(scenarioOf('default'), 'player-usd'), { user: 'player-usd', currency: 'USD' }, '--user alone: its currency');
  t.same(pickPlayer({ ...scenarioOf('default'), players: [] } as Scenario), { user: 'player-1', currency: 'USD' });

  const { app } = await buildTestApp(scenarioOf('certification'));
  t.teardown(() => app.close());
  const url = await listen(app);
  const ran = await run(['send', 'bet', '--url', `${url}/callback`]);
  t.equal(ran.code, 0, ran.stdout + ran.stderr);
  t.match(ran.stdout, /"user_id": "player-1"[\s\S]*"currency": "USD"/);
  t.match(ran.stderr, /player player-1 \(USD\) from the simulator's scenario "certification"; --user and --currency choose/);
});

t.test('report --url <callback URL>: says to give the base URL', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const url = await listen(app);
  const ran = await run(['report', '--url', `${url}/callback`]);
  t.equal(ran.code, 2);
  t.match(ran.stderr, `--url wants the simulator's base URL, not its callback URL: --url ${url}`);
  // A server with no admin API at all (a wallet of its own, the upstream behind a proxy):
  const wallet = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found'));
  await new Promise<void>((resolve) => wallet.listen(0, '127.0.0.1', resolve));
  t.teardown(() => wallet.close());
  const origin = `http://127.0.0.1:${(wallet.address() as AddressInfo).port}`;
  const other = await run(['report', '--url', origin]);
  t.equal(other.code, 2);
  t.match(other.stderr, `HTTP 404; no wallet-sim admin API at ${origin} (another wallet, or the upstream of a proxy?)`);
});

t.test('the pretty log: one line per callback', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-format', 'pretty']);
  for (const user of ['player-1', 'player-2']) t.equal((await post(`${sim.url}/callback`, login(user))).status, 200);
  const ran = await sim.stop();
  const lines = ran.stdout.split('\n').filter((l) => l.trim() !== '');
  const callbacks = lines.filter((l) => /INFO.*R0/.test(l));
  t.equal(callbacks.length, 2, ran.stdout);
  t.match(callbacks[0], /"user_id":"player-1".*"event_type":"login"/, 'its fields on the same line');
  // (The same from WALLET_SIM_LOG_FORMAT: cli.test.ts.)
  t.match(callbacks[0], /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: R0 \{.*"code":"R0".*\}$/, 'time, level and message, then its fields');
  t.notMatch(ran.stdout, /\x1b\[/, 'no colour codes when not a terminal');
  t.equal(lines.length, 3, 'and nothing else but the start line');
});
