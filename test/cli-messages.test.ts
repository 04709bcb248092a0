// Issue 9 item 12: send, verify and probe say what went wrong and what to do, in few lines.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import t from 'tap';
import { formatCheck } from '../src/probe/report.js';
import type { CheckResult } from '../src/probe/session.js';
import { buildTestApp, listen } from './helpers/app.js';
import { buildHostedTestApp, createTenant } from './helpers/hosted.js';
import { closedPort } from './helpers/net.js';
import { CLI, cleanEnv, collect, run, runAll } from './helpers/spawn-cli.js';
import { runCli, runHere } from './helpers/run-here.js';
import { probeCommand } from '../src/commands/probe.js';
import { sendCommand } from '../src/commands/send.js';
import { startSimulator } from '../src/app/start-simulator.js';
import { verifyCommand } from '../src/commands/verify.js';

t.setTimeout(120_000); // each case starts the built CLI: seconds on a busy machine
// The cases are independent (a CLI process or an app each): two at a time.
t.jobs = 2;

// That --help marks the required options of send, verify and probe: cli.test.ts, which reads every --help.
// A few commands are spawned as a user runs them, for what only a process shows (its exit status, a
// start that goes on to listen, output as it comes); the other messages come from the command line
// parsed in this process (test/helpers/run-here.ts: a spawn costs 0.3 s of CPU or more).

t.test('send: an invalid URL is refused before anything is printed', async (t) => {
  const r = await run(['send', 'login', '--url', 'localhost:8080/callback']);
  t.equal(r.code, 1);
  t.equal(r.stdout, '', 'no request printed');
  t.match(
    r.stderr,
    /--url <url>' argument 'localhost:8080\/callback' is invalid\. .* give an http URL such as http:\/\/127\.0\.0\.1:8080\/callback/,
  );
});

t.test('send: nothing listening says how to start wallet-sim', async (t) => {
  const url = `http://127.0.0.1:${await closedPort()}/callback`;
  const r = await runCli(['send', 'login', '--url', url]);
  t.equal(r.code, 1);
  t.match(r.stderr, `is wallet-sim running at ${url}? start it with wallet-sim start`);
});

t.test('verify: the callback URL in --url is called out', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const base = await listen(app);
  const r = await runCli(['verify', '--url', `${base}/callback`, '--expect', '/dev/null']);
  t.equal(r.code, 2);
  t.match(r.stderr, '/dev/null: is not valid JSON', 'the expectations file is read first');
  const dir = (await import('node:os')).tmpdir();
  const file = `${dir}/wallet-sim-empty-expect-${process.pid}.json`;
  (await import('node:fs')).writeFileSync(file, '{}');
  t.teardown(() => import('node:fs').then((fs) => fs.rmSync(file, { force: true })));
  const wrong = await runHere(verifyCommand(), ['--url', `${base}/callback`, '--expect', file]);
  const right = await runHere(verifyCommand(), ['--url', base, '--expect', file]);
  t.equal(wrong.code, 2);
  t.match(wrong.stderr, `--url wants the simulator's base URL, not its callback URL: --url ${base}`);
  t.equal(right.code, 0, 'the base URL works');
});

t.test('probe: wrong credentials are one clear line, not every check failing, and exit 2 (not checked)', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const url = `${await listen(app)}/callback`;
  // (Spawned, exit 2 when the probe cannot go on: probe-cli.test.ts.)
  const r = await runHere(probeCommand(), ['--url', url, '--api-id', 'sandbox', '--api-key', 'wrong', '--user', 'usd']);
  t.equal(r.code, 2);
  t.match(r.stdout, /^FAIL {2}login .*\n {6}credentials refused \(R2\): check --api-id\/--api-key\n/m);
  t.ok(r.stdout.trim().split('\n').length <= 6, `a few lines, not hundreds:\n${r.stdout}`);
});

t.test('probe: a check that failed before it could finish is FAIL (stopped: …); one that could not judge is SKIP', async (t) => {
  const base: CheckResult = {
    name: 'insufficient-funds',
    description: 'a bet over the balance gets R4',
    status: 'skip',
    assertions: [],
    exchanges: [],
    skipped: 'the login gave no balance to bet over',
    durationMs: 1,
  };
  t.match(formatCheck(base), /^SKIP {2}insufficient-funds .* \(could not judge: the login gave no balance to bet over\)$/);
  const failed = formatCheck({
    ...base,
    status: 'fail',
    assertions: [{ name: 'code', passed: false, message: 'login: answered R3, expected R0' }],
  });
  t.match(failed, /^FAIL {2}insufficient-funds .* \(stopped: the login gave no balance to bet over\)\n/);
  t.notMatch(failed, /could not judge/);
});

t.test('probe: each check is printed as it finishes', async (t) => {
  // Settlements answered 100 ms late: the battery then takes 2.5 s or more after the login (some 28 of
  // them are sent one after another), the login line must not wait for it.
  const { app } = await buildTestApp({ rules: [{ name: 'slow', when: { event_type: 'bet_result' }, then: { delay_ms: 100 } }] });
  t.teardown(() => app.close());
  const url = `${await listen(app)}/callback`;
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [CLI, 'probe', '--url', url, '--api-id', 'sandbox', '--api-key', 'sandbox-key', '--user', 'usd', '--currency', 'USD'],
    { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const io = collect(child);
  let loginAt = 0;
  child.stdout!.on('data', () => {
    if (!loginAt && /^PASS {2}login /m.test(io.stdout())) loginAt = Date.now();
  });
  const done = await io.exited;
  const endedAt = Date.now();
  t.equal(done.code, 0, done.stdout);
  t.ok(loginAt > started, 'the login check was printed');
  t.ok(endedAt - loginAt > 1000, `printed ${endedAt - loginAt} ms before the battery ended`);
  t.match(done.stdout, /28 probe checks: 28 passed, 0 failed, 0 could not judge; 8 wallet checks: 0 failed .* → PASS/);
});

// Issue 37 item 5: messages that say what to do next.
t.test('start: a mistyped bundled scenario is named ("did you mean …?")', async (t) => {
  const r = await runCli(['start', '--port', '0', '--scenario', 'certifcation']);
  t.equal(r.code, 1);
  t.match(r.stderr, /no scenario file certifcation, .*\nDid you mean certification\?\n/);
});

t.test('start: a port taken via WALLET_SIM_PORT names the env var', async (t) => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const { port } = server.address() as { port: number };
  const [fromEnv, fromFlag] = await runAll([['start'], ['start', '--port', String(port)]], { WALLET_SIM_PORT: String(port) });
  t.equal(fromEnv!.code, 1);
  t.match(fromEnv!.stderr, `port ${port} on 127.0.0.1 (from WALLET_SIM_PORT) is already in use; set WALLET_SIM_PORT to another port`);
  t.match(fromFlag!.stderr, `port ${port} on 127.0.0.1 is already in use; pick another with --port`);
});

t.test('start: --data without --store file is refused, not a memory store that writes nothing', async (t) => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = String((server.address() as { port: number }).port);
  const data = '/nonexistent-wallet-sim/wallet.json';
  const refusal = `--data ${data} is for --store file, but the store is memory: nothing would be written there; add --store file`;
  const flag = await runCli(['start', '--port', port, '--data', data]);
  t.equal(flag.code, 1);
  t.match(flag.stderr, refusal);
  const fromEnv = await runCli(['start', '--port', port], { WALLET_SIM_DATA: data });
  t.equal(fromEnv.code, 1);
  // Spawned: it goes on to listen.
  const chosen = await run(['start', '--port', port, '--store', 'memory'], { WALLET_SIM_DATA: data });
  t.match(fromEnv.stderr, refusal, 'WALLET_SIM_DATA with no store chosen: refused alike');
  // A shell that sets WALLET_SIM_DATA, and a run that picks another store on purpose: it goes on
  // (here to the port, which is taken).
  t.match(chosen.stderr, `port ${port} on 127.0.0.1 is already in use`, 'WALLET_SIM_DATA with --store memory: the store chosen wins');
});

t.test('start: --upstream with --hosted is refused (a tenant is never proxied), by the CLI and startSimulator', async (t) => {
  const r = await runCli(['start', '--hosted', '--host-token', 'h'.repeat(32), '--port', '0', '--upstream', 'http://127.0.0.1:9/callback']);
  t.equal(r.code, 1);
  t.match(r.stderr, "--upstream (proxy mode) does not apply with --hosted: a tenant's wallet is wallet-sim's own; leave out one of them");
  t.notMatch(r.stderr, 'proxy mode …|not seeded', 'no warning about a scenario hosted mode does not use');
  await t.rejects(
    startSimulator({ hosted: true, hostToken: 'h'.repeat(32), upstream: 'http://127.0.0.1:9/callback' }),
    /the `upstream` option \(proxy mode\) does not apply with the `hosted` option/,
  );
});

t.test('start: --redis-url or --redis-cluster without --store redis is refused, not a memory store per process', async (t) => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = String((server.address() as { port: number }).port);
  const cluster = { WALLET_SIM_REDIS_CLUSTER: '127.0.0.1:1' };
  const url = await runCli(['start', '--port', port, '--redis-url', 'redis://127.0.0.1:1'], cluster);
  const nodes = await runCli(['start', '--port', port, '--redis-cluster', '127.0.0.1:1,127.0.0.1:2'], cluster);
  const fromEnv = await runCli(['start', '--port', port], cluster);
  const chosen = await run(['start', '--port', port, '--store', 'memory'], cluster); // spawned: it goes on to listen
  t.equal(url.code, 1);
  t.match(url.stderr, '--redis-url (or WALLET_SIM_REDIS_URL) names a Redis, but the store is memory');
  t.match(url.stderr, 'add --store redis, or leave out --redis-url; nothing started');
  t.match(nodes.stderr, '--redis-cluster (or WALLET_SIM_REDIS_CLUSTER) names a Redis, but the store is memory');
  t.match(
    fromEnv.stderr,
    '--redis-cluster (or WALLET_SIM_REDIS_CLUSTER) names a Redis',
    'from the environment, no store chosen: refused alike',
  );
  t.match(chosen.stderr, `port ${port} on 127.0.0.1 is already in use`, 'the environment with --store memory: the store chosen wins');
});

t.test('send: a --url without a path (the base URL) is told the callback path', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const base = await listen(app);
  const r = await runHere(sendCommand(), ['login', '--url', base]);
  t.equal(r.code, 1);
  t.match(r.stderr, `--url is the callback URL, e.g. --url ${base}/callback`);
  // Another path: a hosted tenant's base URL is told its callback URL; any other, both forms.
  const hosted = await buildHostedTestApp();
  t.teardown(() => hosted.app.close());
  const host = await listen(hosted.app);
  const { id } = await createTenant(hosted.app);
  const tenant = await runHere(sendCommand(), ['login', '--url', `${host}/t/${id}`]);
  t.equal(tenant.code, 1);
  t.match(
    tenant.stderr,
    `answered HTTP 404, not a callback reply: --url is the callback URL: a tenant's ends in /callback, --url ${host}/t/${id}/callback`,
  );
  const other = await runHere(sendCommand(), ['login', '--url', `${base}/wallet`]);
  t.equal(other.code, 1);
  t.match(other.stderr, `(wallet-sim's is ${base}/callback unless started with --path, a hosted tenant's ${base}/t/<id>/callback)`);
  t.notMatch(tenant.stderr, 'may book', 'the hint alone, not a second line about HTTP 404');
  const slash = await runHere(sendCommand(), ['login', '--url', `${base}/callback/`]);
  t.match(
    slash.stderr,
    `answered HTTP 404, not a callback reply: --url is the callback URL, without the trailing slash: --url ${base}/callback`,
  );
  const unknown = await runHere(sendCommand(), ['login', '--url', `${host}/t/nobody/callback`]);
  t.notMatch(unknown.stderr, 'not a callback reply', "the callback path: the server's own reason says why");
});

t.test('a --format guessed for a report names the file options there are; an amount with a comma shows one written right', async (t) => {
  const rows: [string[], string][] = [
    [
      ['report', '--url', 'http://127.0.0.1:1', '--format', 'html'],
      "unknown option '--format': write each report as a file of its own, --junit <file>, --html <file>",
    ],
    [
      ['probe', '--url', 'http://127.0.0.1:1/callback', '--api-id', 'a', '--api-key', 'b', '--output=x.html'],
      "unknown option '--output=x.html': write each report as a file of its own, --junit <file>, --html <file>",
    ],
    [
      ['reconcile', '--url', 'http://127.0.0.1:1', '--format', 'junit'],
      "unknown option '--format': write each report as a file of its own, --junit <file>",
    ],
  ];
  for (const [args, said] of rows) {
    const r = await runCli(args);
    t.equal(r.code, 2, args[0]!);
    t.match(r.stderr, said, args[0]!);
  }
  const typo = await runCli(['report', '--url', 'http://127.0.0.1:1', '--fromat', 'html']);
  t.match(typo.stderr, "unknown option '--fromat'", 'another unknown option: as before');
  const amount = await runCli(['send', 'bet', '--url', 'http://127.0.0.1:1/callback', '--amount', '10,5']);
  t.match(amount.stderr, '--amount must be a decimal number, written with a dot, e.g. 10.5');
});

t.test('tenant against a wallet-sim that is not hosted: said so, with how to start one (exit 2)', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const base = await listen(app);
  const dir = (await import('node:os')).tmpdir();
  const file = `${dir}/wallet-sim-host-token-${process.pid}`;
  (await import('node:fs')).writeFileSync(file, 'host-token-of-at-least-thirty-two-characters\n');
  t.teardown(() => import('node:fs').then((fs) => fs.rmSync(file, { force: true })));
  const r = await runCli(['tenant', 'list', '--url', base, '--host-token-file', file]);
  t.equal(r.code, 2);
  t.match(
    r.stderr,
    'HTTP 404: the wallet-sim there is not hosted (no route GET /tenants); give the base URL of one started with start --hosted',
  );
});
