import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { ROOT } from '../src/paths.js';
import { startReceiver } from './helpers/broken-receivers.js';

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
    server.once('exit', (code) => reject(new Error(`wallet-sim exited with ${code}: ${out}`)));
  });
  const health = await fetch(`${base}/health`);
  t.equal(health.status, 200);

  const junit = join(dir, 'probe.xml');
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
  ]);
  t.match(probe.stdout, /13 checks: 13 passed, 0 failed, 0 skipped/);
  t.match(probe.stdout, /balance of player-usd: before 1000 USD, after 1002\.9 USD/);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
  t.equal(doc.testsuites.testsuite.tests, '13');
  t.equal(doc.testsuites.testsuite.failures, '0');

  // The probe makes mistakes on purpose; verify allows exactly those.
  const expect = join(dir, 'expect.json');
  writeFileSync(
    expect,
    JSON.stringify({
      counts: [
        { where: { event_type: 'bet', user_id: 'player-usd', code: 'R4' }, count: 1 },
        { where: { replayed: true }, count: 2 },
      ],
      codes: [{ where: { event_type: 'bet_result' }, code: ['R0', 'R3'] }],
      balances: [
        { user_id: 'player-usd', balance: '1002.90', currency: 'USD' },
        { user_id: 'player-1', balance: 1000000 },
      ],
      findings: { allow: ['CREDENTIALS_WRONG', 'TOTAL_MISMATCH', 'TRANSACTION_REUSED', 'BODY_NOT_JSON'] },
    }),
  );
  const verified = await run(process.execPath, [CLI, 'verify', '--url', base, '--expect', expect]);
  t.match(verified.stdout, /6 expectations: 6 held, 0 failed/);

  server.kill('SIGTERM');
  await once(server, 'exit');
});

t.test('probe exits 1 against a broken wallet, and names the check', async (t) => {
  const wallet = await startReceiver({ flaw: 'no-idempotency' });
  t.teardown(() => wallet.close());
  const failed = await run(process.execPath, [
    CLI,
    'probe',
    '--url',
    wallet.url,
    '--api-id',
    'op-id',
    '--api-key',
    'op-key',
    '--user',
    'alice',
  ]).catch((e: Failed) => e);
  t.equal((failed as Failed).code, 1);
  t.match(failed.stdout, /^FAIL {2}duplicate-replay /m);
  t.match(failed.stdout, /^PASS {2}bad-credentials /m);
});

t.test('probe never guesses a player', async (t) => {
  const failed = await run(process.execPath, [CLI, 'probe', '--url', 'http://127.0.0.1:9/cb', '--api-id', 'a', '--api-key', 'b']).catch(
    (e: Failed) => e,
  );
  t.equal((failed as Failed).code, 1);
  t.match(failed.stderr, /required option '--user <user_id>' not specified/);
});
