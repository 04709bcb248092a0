import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { ROOT } from '../src/kernel/paths.js';
import { spawnZoo } from './wallets/spawn-zoo.js';
import { startZooWallet } from './wallets/zoo-wallet.js';
import { runHere } from './helpers/run-here.js';
import { probeCommand } from '../src/commands/probe.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'dist/src/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-probe-cli-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
type Failed = { code?: number; stdout: string; stderr: string };

/** The CI flow of docs/ci.md, end to end: `start` in the background, `probe` against it, then `verify`. */
t.test('start, probe, verify: the built CLI end to end', async (t) => {
  const server = spawn(process.execPath, [CLI, 'start', '--port', '0', '--log-level', 'silent'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => {
    server.kill('SIGTERM');
  });
  let out = '';
  server.stdout.setEncoding('utf8');
  const base = await new Promise<string>((resolve, reject) => {
    server.stdout.on('data', (chunk: string) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+) /.exec(out);
      if (m) resolve(m[1]!);
    });
    // (the signal too: a process killed from outside has no code, and says nothing)
    server.once('exit', (code, signal) => reject(new Error(`wallet-sim exited with ${code ?? signal}: ${out}`)));
  });
  const health = await fetch(`${base}/health`);
  t.equal(health.status, 200);

  const junit = join(dir, 'probe.xml');
  const html = join(dir, 'probe.html');
  const probe = await run(process.execPath, [
    CLI,
    'probe',
    '--url',
    `${base}/callback`,
    '--api-id',
    'sandbox',
    '--api-key',
    'sandbox-key',
    '--user',
    'player-usd',
    '--junit',
    junit,
    '--html',
    html,
  ]);
  t.match(probe.stdout, /28 probe checks: 28 passed, 0 failed, 0 could not judge; 8 wallet checks: 0 failed .* → PASS/);
  t.match(probe.stdout, /balance of player-usd: before 1000 USD, after 1001\.3 USD/);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
  const [cases, wallet] = doc.testsuites.testsuite;
  t.equal(cases.tests, '28');
  t.equal(cases.failures, '0');
  t.equal(wallet.tests, '8');
  t.equal(wallet.failures, '0');
  t.match(readFileSync(html, 'utf8'), /The wallet passes every check/);

  // The probe makes mistakes on purpose (the refusals it checks); verify allows exactly those.
  const expect = join(dir, 'expect.json');
  writeFileSync(
    expect,
    JSON.stringify({
      counts: [
        { where: { event_type: 'bet', user_id: 'player-usd', code: 'R4' }, count: 3 },
        { where: { replayed: true }, count: 2 },
      ],
      codes: [{ where: { event_type: 'bet_result' }, code: ['R0', 'R3', 'R2'] }],
      balances: [
        { user_id: 'player-usd', balance: '1001.30', currency: 'USD' },
        { user_id: 'player-1', balance: 1000000 },
      ],
      findings: {
        allow: [
          'CREDENTIALS_WRONG',
          'TOTAL_MISMATCH',
          'TRANSACTION_REUSED',
          'BODY_NOT_JSON',
          'SCHEMA',
          'AMOUNT_SCALE',
          'BET_INDEX_UNKNOWN',
          'BET_MISMATCH',
          'CURRENCY_MISMATCH',
          'RESULT_DETAIL_NOT_JSON',
          'ROUND_SETTLED',
          'ROUND_UNKNOWN',
          'STAKE_MISMATCH',
          'WINLOSS_BELOW_STAKE',
        ],
      },
    }),
  );
  const verified = await run(process.execPath, [CLI, 'verify', '--url', base, '--expect', expect]);
  t.match(verified.stdout, /6 expectations: 6 held, 0 failed/);

  server.kill('SIGTERM');
  await once(server, 'exit');
});

t.test('probe exits 1 against a broken wallet (a zoo wallet as a child process), and names the check', async (t) => {
  const wallet = await spawnZoo(['--defect', 'double-debit-resend']);
  t.teardown(() => wallet.stop());
  const failed = await run(process.execPath, [
    CLI,
    'probe',
    '--url',
    wallet.url,
    '--api-id',
    'zoo',
    '--api-key',
    'zoo-key',
    '--user',
    'player-1',
  ]).catch((e: Failed) => e);
  t.equal((failed as Failed).code, 1);
  t.match(failed.stdout, /^FAIL {2}WALLET_IDEMPOTENT /m);
  t.match(failed.stdout, /the resend was answered with latest_balance/);
  t.match(failed.stdout, /fix: Key every bet and bet_result on its transaction_id/);
  t.match(failed.stdout, /^PASS {2}bad-credentials /m);
});

t.test('probe exits 2 when it cannot reach the wallet, in one line', async (t) => {
  // A loopback port nothing listens on (bound, then released).
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/callback`;
  await new Promise((resolve) => gone.close(resolve));
  const failed = await run(process.execPath, [
    CLI,
    'probe',
    '--url',
    url,
    '--api-id',
    'zoo',
    '--api-key',
    'zoo-key',
    '--user',
    'player-1',
    '--timeout',
    '500',
    '--client-timeout',
    '3000',
  ]).catch((e: Failed) => e);
  t.equal((failed as Failed).code, 2);
  t.match(failed.stderr, /--timeout 500 is shorter than --client-timeout 3000: .*WALLET_ANSWERS_IN_TIME does not judge it/, 'warned');
  t.match(
    failed.stdout,
    /stopped, nothing else checked \(exit 2\): cannot reach http:\/\/127\.0\.0\.1:\d+\/callback .*is the wallet running/,
  );
});

t.test('probe exits 2 at once against what is not a wallet, and against a player in another currency, in one line', async (t) => {
  const page = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><head><title>It works!</title></head></html>');
    });
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  t.teardown(() => page.close());
  // The wallet in this process (the zoo wallet as a child process: the case above).
  const wallet = await startZooWallet();
  t.teardown(() => wallet.close());
  const probe = (url: string, ...more: string[]) =>
    run(process.execPath, [CLI, 'probe', '--url', url, '--api-id', 'zoo', '--api-key', 'zoo-key', '--user', 'player-1', ...more]).catch(
      (e: Failed) => e,
    );
  const html = await probe(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
  t.equal((html as Failed).code, 2, 'not a wallet: exit 2');
  t.match(
    html.stdout,
    /stopped, nothing else checked \(exit 2\): http:\/\/127\.0\.0\.1:\d+\/ does not answer like a wallet: .*"It works!".*check --url/,
  );
  // The same exit spawned just above: this one through the command's action in this process.
  const eur = await runHere(probeCommand(), [
    '--url',
    wallet.url,
    '--api-id',
    'zoo',
    '--api-key',
    'zoo-key',
    '--user',
    'player-1',
    '--currency',
    'EUR',
  ]);
  t.equal(eur.code, 2, 'another currency: exit 2');
  t.match(eur.stdout, /stopped, nothing else checked \(exit 2\): .*--currency EUR is not player-1's currency, the wallet's is USD/);
  t.notMatch(eur.stdout, /✗/, 'no list of failures');
});

t.test('probe never guesses a player', async (t) => {
  const failed = await run(process.execPath, [CLI, 'probe', '--url', 'http://127.0.0.1:9/cb', '--api-id', 'a', '--api-key', 'b']).catch(
    (e: Failed) => e,
  );
  t.equal((failed as Failed).code, 2, 'a usage error: could not check (docs/cli.md), not a failed check');
  t.match(failed.stderr, /required option '--user <user_id>' not specified/);
});

t.test('probe refuses credentials it cannot send: empty (a variable not set) or not ASCII (a pasted "…")', async (t) => {
  const probe = (...args: string[]) =>
    run(process.execPath, [CLI, 'probe', '--url', 'http://127.0.0.1:9/cb', '--user', 'u', ...args]).catch((e: Failed) => e);
  const empty = (await probe('--api-id', 'a', '--api-key', '')) as Failed;
  t.equal(empty.code, 2);
  t.match(empty.stderr, /^wallet-sim probe: --api-key is empty \(a shell variable not set\?\): .*nothing was sent\n$/);
  const pasted = (await probe('--api-id', 'a', '--api-key', '…')) as Failed;
  t.equal(pasted.code, 2);
  t.match(
    pasted.stderr,
    /option '--api-key <key>' argument '…' is invalid\. has "…" \(U\+2026\) at character 1: an HTTP header value is printable ASCII only/,
  );
});
