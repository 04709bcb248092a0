// CI must not go green while a window is open: `report --fail-on pending`, `report --wait`, and
// verify's `no_pending_checks`, run as a user runs them (the built CLI against a real simulator, in
// this process on a real socket: a `start` spawned cost two seconds of CPU); and the HTML page as
// evidence (the session, the timing profile, each violation's excerpts). A command is spawned once
// per exit code; its other runs go through its action in this process (a spawn: 0.3 s of CPU).
// The three cases are independent (a simulator each): they run side by side.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bet, buildTestApp, HEADERS, listen, login, result } from '../helpers/app.js';
import { post } from '../helpers/net.js';
import { BOOT_MS, CLI, cleanEnv, collect, eventually, type Ran, run, runAll } from '../helpers/spawn-cli.js';
import { runHere } from '../helpers/run-here.js';
import { reportCommand } from '../../src/commands/report.js';
import { verifyCommand } from '../../src/commands/verify.js';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { tempDir } from '../helpers/temp.js';

t.jobs = 2;

const dir = tempDir('wallet-sim-report-ci-');
const USD = { currency: 'USD' };
/** A scenario losing the reply to usd's first `event` callback, with these grading thresholds. */
const lostScenario = (event: 'bet' | 'bet_result', grading: Scenario['grading']): Partial<Scenario> => ({
  rules: [{ name: 'lost', when: { event_type: event, user_id: 'usd' }, then: { drop_connection: true }, times: 1 }],
  grading,
});
// A lost bet reply, pending while its retry window is open: a window no CLI start outlasts (a
// resend 150 ms later is past min_retry_gap_ms).
const scenario = lostScenario('bet', {
  retry_window_s: 600,
  client_timeout_s: 1,
  round_max_age_s: 600,
  min_retry_gap_ms: 100,
});
// A lost settlement reply whose window closes 1 s after the loss; rounds may stay open for long.
const closing = lostScenario('bet_result', { retry_window_s: 1, client_timeout_s: 1, round_max_age_s: 600 });

/** A simulator with this scenario listening on a loopback port (a dropped reply needs a real connection), closed after the test. */
async function simulator(tt: Test, s: Partial<Scenario>): Promise<{ url: string }> {
  const { app } = await buildTestApp(s);
  tt.teardown(() => app.close());
  return { url: await listen(app) };
}

t.test('a lost reply never resent: pending, then failed; --fail-on pending and --wait', async (t) => {
  const sim = await simulator(t, scenario);
  const cb = `${sim.url}/callback`;
  await post(cb, login('usd'), HEADERS);
  t.ok((await post(cb, bet('usd', 'G1', [['1', 'P', 10]], USD), HEADERS, 5000)).error, 'the reply is dropped');

  // Three reads of one state: the two that fail spawned side by side, the one that passes in this process.
  const [pending, nonsense] = (await runAll([
    ['report', '--url', sim.url, '--fail-on', 'pending'],
    ['report', '--url', sim.url, '--fail-on', 'nonsense'],
  ])) as [Ran, Ran];
  const r = await runHere(reportCommand(), ['--url', sim.url]);
  t.equal(r.code, 0, 'pending alone does not fail by default');
  t.match(r.stdout, /… PENDING\s+LOST_REPLY_RETRIED/);
  t.match(r.stdout, /^session \w+ since /m, 'the session is named');
  t.match(r.stdout, /^timing: /m, 'the timing profile is shown');
  t.equal(pending.code, 1, '--fail-on pending fails while a window is open');
  t.match(pending.stdout, /FAIL: .*LOST_REPLY_RETRIED/);
  t.equal(nonsense.code, 2, 'a bad --fail-on is refused: a usage error, could not check');

  const waited = await runHere(reportCommand(), ['--url', sim.url, '--wait', '0']);
  t.equal(waited.code, 0, 'still pending after the wait: passes by default…');
  t.match(
    waited.stderr,
    /still pending: LOST_REPLY_RETRIED[A-Z_, ]*; pending fails no run: --fail-on pending fails it, a longer --wait/,
    '…and says so',
  );
  const strict = await runHere(reportCommand(), ['--url', sim.url, '--wait', '0', '--fail-on', 'error,pending']);
  t.equal(strict.code, 1);
  t.match(strict.stderr, /still pending: LOST_REPLY_RETRIED[A-Z_, ]*; the run fails on them \(--fail-on pending\)\n/);
});

t.test('report --wait: waits while a check is pending, then fails on the window that closed; the HTML evidence', async (t) => {
  const sim = await simulator(t, closing);
  const cb = `${sim.url}/callback`;
  await post(cb, login('usd'), HEADERS);
  // Two open rounds keep ROUNDS_SETTLED pending (round_max_age_s 600) until the test settles them.
  for (const game of ['G1', 'G2']) t.equal((await post(cb, bet('usd', game, [['1', 'P', 10]], USD), HEADERS)).body.code, 'R0');
  const html = join(dir, 'report.html');
  const child = spawn(process.execPath, [CLI, 'report', '--url', sim.url, '--wait', '120', '--html', html], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const io = collect(child);
  t.teardown(() => {
    child.kill('SIGKILL');
  });
  t.ok(
    await eventually(async () => /waiting for 1 pending check.*ROUNDS_SETTLED/.test(io.stderr()), BOOT_MS),
    'it waits: the rounds are open',
  );
  // G1's settlement is applied and its reply lost: LOST_REPLY_RETRIED opens a 1 s window, never resent.
  t.ok((await post(cb, result('usd', 'G1', [['1', 'P', 10, 0]], USD), HEADERS, 5000)).error, 'the reply is dropped');
  const status = async (id: string) =>
    ((await (await fetch(`${sim.url}/admin/report`)).json()) as { checks: { id: string; status: string }[] }).checks.find(
      (c) => c.id === id,
    )?.status;
  t.ok(await eventually(async () => (await status('LOST_REPLY_RETRIED')) === 'fail', 30_000), 'the window closed: failed');
  t.equal(child.exitCode, null, 'still waiting: G2 is open');
  // The last pending check passes: nothing is left to wait for.
  t.equal((await post(cb, result('usd', 'G2', [['1', 'P', 10, 0]], USD), HEADERS, 5000)).body.code, 'R0');
  const r = await io.exited;
  t.equal(r.code, 1, 'once nothing is pending: the verdict, failed');
  t.match(r.stderr, /waiting for \d+ pending check.*ROUNDS_SETTLED/, 'what it waits for, on stderr');
  t.match(r.stdout, /✗ FAIL\s+LOST_REPLY_RETRIED/);
  t.match(r.stdout, /✓ PASS\s+ROUNDS_SETTLED/);
  const page = readFileSync(html, 'utf8');
  t.match(page, /session \w+ since/, 'the HTML names the session');
  t.match(page, /Timing profile: /);
  t.match(
    page,
    /<details><summary>evidence: the callbacks it cites<\/summary>.*<pre>request \{&quot;headers&quot;:.*&quot;api-key&quot;:&quot;sa\*+&quot;/s,
    'masked request excerpt',
  );
  // The settlement's reply was dropped: the excerpt says so, with what was never sent.
  t.match(page, /<pre>reply \{&quot;dropped&quot;:true,&quot;never_sent&quot;:\{&quot;status&quot;:200/, 'the reply excerpt');
  t.match(page, /<svg class="timeline"[^>]*>.*class="mark dropped"/s, 'drawn as a timeline: the dropped reply');
});

t.test('verify: "no_pending_checks" fails while a window is open and passes once none is', async (t) => {
  const sim = await simulator(t, scenario);
  const cb = `${sim.url}/callback`;
  const expect = join(dir, 'expect.json');
  writeFileSync(expect, JSON.stringify({ no_pending_checks: true }));
  await post(cb, login('usd'), HEADERS);
  const lost = bet('usd', 'G1', [['1', 'P', 10]], USD);
  await post(cb, lost, HEADERS, 5000);
  const r = await run(['verify', '--url', sim.url, '--expect', expect]);
  t.equal(r.code, 1, r.stdout);
  t.match(r.stdout, /no check is pending/);
  t.match(r.stdout, /LOST_REPLY_RETRIED/);
  await new Promise((resolve) => setTimeout(resolve, 150)); // a back-off above min_retry_gap_ms (100)
  await post(cb, lost, HEADERS, 5000); // resent: the window closes
  await post(cb, result('usd', 'G1', [['1', 'P', 10, 0]], USD), HEADERS, 5000); // the round settled
  const passed = await runHere(verifyCommand(), ['--url', sim.url, '--expect', expect]);
  t.equal(passed.code, 0, passed.stdout);
});
