// End to end: the scripted well-behaved provider (bench/provider.ts) plays chaos.json against a
// real simulator, with a fixed seed and the delays and windows scaled down: no failing check, no
// mismatch. A provider that books a lost settlement as failed: LOST_REPLY_RETRIED fails and
// reconcile reports UNKNOWN_TO_PROVIDER.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ScriptedProvider } from '../bench/provider.js';
import { SCENARIOS_DIR } from '../src/kernel/paths.js';
import { eventually, run, start } from './helpers/spawn-cli.js';
import { tempDir } from './helpers/temp.js';

const dir = tempDir('wallet-sim-chaos-');
const PLAYERS = ['chaos-1', 'chaos-2', 'chaos-3', 'chaos-4'];

/** chaos.json with its rates raised (faults within a few hundred rounds) and its times scaled down (ms, not s). */
function testScenario(): string {
  const chaos = JSON.parse(readFileSync(join(SCENARIOS_DIR, 'chaos.json'), 'utf8'));
  chaos.name = 'chaos-test';
  for (const rule of chaos.rules) {
    rule.probability = Math.min(1, rule.probability * 5);
    if (rule.then.delay_ms) rule.then.delay_ms = 500; // past the 0.25 s time-out below
  }
  chaos.grading = { retry_window_s: 3, client_timeout_s: 0.25, min_retry_gap_ms: 50, max_attempts: 10, round_max_age_s: 120 };
  const path = join(dir, `chaos-test-${process.pid}.json`);
  writeFileSync(path, JSON.stringify(chaos));
  return path;
}

async function report(url: string): Promise<{ checks: { id: string; status: string; violations: unknown[] }[] }> {
  return (await fetch(`${url}/admin/report`)).json() as never;
}

/** The report once no check is pending any more (the retry windows have closed). */
async function settledReport(url: string) {
  let last = await report(url);
  await eventually(async () => {
    last = await report(url);
    return !last.checks.some((c) => c.status === 'pending');
  }, 30_000);
  return last;
}

t.test('a well-behaved provider plays chaos.json: zero failing checks, zero mismatches', async (t) => {
  const sim = await start(t, ['--port', '0', '--scenario', testScenario(), '--seed', '20261125', '--log-level', 'warn']);
  t.match(sim.stdout(), /seed 20261125/, 'the seed on the start line');
  const provider = new ScriptedProvider({
    callbackUrl: `${sim.url}/callback`,
    players: PLAYERS,
    timeoutMs: 250,
    backoffMs: 100,
    seed: 7,
    rounds: 300,
  });
  await provider.run();
  const hits = (await (await fetch(`${sim.url}/admin/scenario/rules`)).json()) as { name: string; fired: number }[];
  t.ok(
    hits.every((h) => h.fired > 0),
    `every fault was injected: ${hits.map((h) => `${h.name} ${h.fired}`).join(', ')}`,
  );
  const graded = await settledReport(sim.url);
  const failing = graded.checks.filter((c) => c.status === 'fail');
  t.same(
    failing.map((c) => c.id),
    [],
    `no failing check: ${JSON.stringify(failing.map((c) => ({ id: c.id, v: c.violations.slice(0, 2) })))}`,
  );
  for (const id of [
    'LOST_REPLY_RETRIED',
    'RETRY_SAME_TRANSACTION',
    'FAILED_SETTLEMENT_RETRIED',
    'NO_RETRY_AFTER_REFUSAL',
    'NO_BET_AFTER_LOGIN_REFUSED',
  ])
    t.equal(graded.checks.find((c) => c.id === id)?.status, 'pass', `${id} exercised and passed`);

  const books = join(dir, 'books.csv');
  writeFileSync(books, provider.booksCsv());
  const r = await run(['reconcile', '--url', sim.url, '--provider', books]);
  t.equal(r.code, 0, r.stdout + r.stderr);
  t.match(r.stdout, /0 mismatch\(es\)/);
});

t.test('a provider that books a lost settlement as failed: LOST_REPLY_RETRIED fails, reconcile finds UNKNOWN_TO_PROVIDER', async (t) => {
  const sim = await start(t, ['--port', '0', '--scenario', testScenario(), '--seed', '42', '--log-level', 'warn']);
  const provider = new ScriptedProvider({
    callbackUrl: `${sim.url}/callback`,
    players: PLAYERS,
    timeoutMs: 250,
    backoffMs: 100,
    seed: 3,
    rounds: 150,
    retryLostSettlement: false,
  });
  await provider.run();
  const graded = await settledReport(sim.url);
  t.equal(graded.checks.find((c) => c.id === 'LOST_REPLY_RETRIED')?.status, 'fail');
  const books = join(dir, 'books-naive.csv');
  writeFileSync(books, provider.booksCsv());
  const r = await run(['reconcile', '--url', sim.url, '--provider', books]);
  t.equal(r.code, 1);
  t.match(r.stdout, /UNKNOWN_TO_PROVIDER\s+res-/, 'the settlement the wallet applied and the provider counts failed');
});
