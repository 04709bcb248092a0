// `wallet-sim report` as a user runs it: the built CLI against a real simulator, which runs in this
// process on a real socket (a `start` spawned cost two seconds of CPU). The command is spawned where
// an outcome shows first; its other runs go through its action in this process (a spawn: 0.3 s of CPU).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import t, { type Test } from 'tap';
import { SCENARIOS_DIR } from '../src/kernel/paths.js';
import { reportCommand } from '../src/commands/report.js';
import { bet, buildTestApp, HEADERS, listen, login, post, result } from './helpers/app.js';
import { run } from './helpers/spawn-cli.js';
import { runHere } from './helpers/run-here.js';
import { closedPort } from './helpers/net.js';
import { tempDir } from './helpers/temp.js';

// The cases are independent (a simulator each): side by side.
t.jobs = 3;

const usd = { currency: 'USD' };
const dir = tempDir('wallet-sim-report-');

/** A simulator listening on a loopback port, closed after the test. */
async function simulator(tt: Test, scenario = {}, adminToken?: string): Promise<{ url: string }> {
  const { app } = await buildTestApp(scenario, { adminToken });
  tt.teardown(() => app.close());
  return { url: await listen(app) };
}

/** `wallet-sim report ...args`, through the command's action in this process. */
const reportHere = (args: string[]) => runHere(reportCommand(), args);

t.test('exit 0 with no failing check, 1 when one fails, JUnit and a self-contained HTML page', async (t) => {
  const sim = await simulator(t, JSON.parse(readFileSync(join(SCENARIOS_DIR, 'certification.json'), 'utf8')));
  const cb = `${sim.url}/callback`;
  await post(cb, login('cert-r4'), HEADERS);
  await post(cb, bet('cert-r4', 'G1', [['1', 'P', 10]], usd), HEADERS); // R4, balance 5 reported
  const r = await run(['report', '--url', sim.url]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /✓ PASS\s+NO_RETRY_AFTER_REFUSAL/);
  t.match(r.stdout, /\n✓ PASS\s+LOGIN_BEFORE_BET/, 'a warning that passes: no "(warning)" read as passed with a warning');
  t.match(r.stdout, /- NOT EXERCISED\s+LOST_REPLY_RETRIED .*\n\s+why: not exercised: /);
  t.notMatch(r.stdout, /\u001b\[/, 'no colours when stdout is not a terminal');

  await post(cb, bet('cert-r4', 'G2', [['1', 'P', 10]], usd), HEADERS); // above the reported 5: a warning
  const byDefault = await reportHere(['--url', sim.url]);
  const warning = await reportHere(['--url', sim.url, '--fail-on', 'warning']);
  t.equal(byDefault.code, 0, 'a failing warning does not fail at --fail-on error');
  t.match(byDefault.stdout, /✗ FAIL \(warning\)\s+BET_WITHIN_REPORTED_BALANCE/);
  t.match(
    byDefault.stdout,
    /\n1 warning fails: a warning is a practice a client should follow; .* only with --fail-on warning.*\nOK: no check fails/,
  );
  t.notMatch(warning.stdout, /warning fails:/, 'not said when the warning does fail the run');
  t.equal(warning.code, 1, 'it does at --fail-on warning');

  await post(cb, result('cert-r4', 'G1', [['1', 'P', 10, 10]], usd), HEADERS); // settles the refused bet
  const junit = join(dir, 'report.xml');
  const html = join(dir, 'report.html');
  const settled = await run(['report', '--url', sim.url, '--junit', junit, '--html', html]);
  const mine = await reportHere(['--url', sim.url, '--user', 'nobody']);
  t.equal(settled.code, 1);
  t.match(settled.stdout, /✗ FAIL\s+NO_SETTLEMENT_OF_REFUSED_BET .*\n\s+why: .*\n\s+fix: .*\n\s+evidence: #\d+ #\d+ bet_result/);
  t.match(settled.stdout, /FAIL: NO_SETTLEMENT_OF_REFUSED_BET \(--fail-on error\)/);

  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
  const cases = xml.testsuites.testsuite.testcase as any[];
  t.equal(cases.length, 14, 'one test case per check');
  t.equal(xml.testsuites.failures, '1');
  t.ok(cases.find((c) => c.name.startsWith('NO_SETTLEMENT_OF_REFUSED_BET'))?.failure, 'the failing check is a failure');
  const skipped = cases.find((c) => c.name.startsWith('LOST_REPLY_RETRIED'))?.skipped;
  t.match(skipped?.message, /^not exercised: no bet or bet_result reply was lost/, 'a check not exercised is skipped, said once');
  t.notMatch(skipped?.message, /not exercised: not exercised/);
  const exercised = cases.find((c) => c.name.startsWith('NO_SETTLEMENT_OF_REFUSED_BET'))?.failure;
  t.match(exercised?.['#text'], /^1 round with a refused or lost bet: 0 passed, 1 failed/, 'one chance in the singular');

  const page = readFileSync(html, 'utf8');
  t.match(page, /^<!DOCTYPE html>/);
  t.match(page, /NO_SETTLEMENT_OF_REFUSED_BET/);
  t.notMatch(page, /(src|href)\s*=\s*["']?https?:/i, 'no external asset');
  t.notMatch(page, /<script|<link/i, 'no script, no stylesheet link');

  t.equal(mine.code, 2, '--user naming a player the session never saw: nothing was checked');
  t.equal(mine.stdout, '', 'no checklist of 14 checks not exercised');
  t.match(
    mine.stderr,
    'wallet-sim report: --user nobody: the session has no callback of that player, so there is nothing to grade; ' +
      'it has callbacks of cert-r4: give one of them, or leave --user out to grade every player',
  );
});

t.test('--user: a player seen with nothing exercised yet is graded (exit 0); an unseen one is said, with the players seen', async (t) => {
  const sim = await simulator(t);
  const cb = `${sim.url}/callback`;
  for (const user of ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p1']) await post(cb, login(user), HEADERS);
  const [seen, typo] = [await reportHere(['--url', sim.url, '--user', 'p2']), await reportHere(['--url', sim.url, '--user', 'p7'])];
  t.equal(seen.code, 0, seen.stderr);
  t.match(seen.stdout, /player p2/);
  t.equal(typo.code, 2);
  t.match(typo.stderr, 'it has callbacks of p1, p6, p5, p4, p3 and 1 more: give one of them', 'the latest first, a few');
  const empty = await simulator(t);
  const none = await reportHere(['--url', empty.url, '--user', 'p1']);
  t.equal(none.code, 2);
  t.match(none.stderr, 'the session has no callback of any player yet: play a session first, or leave --user out');
});

t.test('exit 2 when the simulator cannot be read', async (t) => {
  const url = `http://127.0.0.1:${await closedPort()}`; // not 9: a port fetch refuses (blocked-port.test.ts)
  const r = await run(['report', '--url', url]);
  t.equal(r.code, 2);
  t.match(r.stderr, `is wallet-sim running at ${url}?`);
});

t.test('honours --admin-token', async (t) => {
  const sim = await simulator(t, {}, 'secret');
  const [locked, unlocked] = await Promise.all([
    run(['report', '--url', sim.url]),
    run(['report', '--url', sim.url], { WALLET_SIM_ADMIN_TOKEN: 'secret' }),
  ]);
  t.equal(locked.code, 2);
  t.match(locked.stderr, /401/);
  t.equal(unlocked.code, 0);
});

t.test('a session that proved nothing, or whose callbacks were refused, is not quietly OK', async (t) => {
  const sim = await simulator(t);
  const cb = `${sim.url}/callback`;
  // A client with the wrong key: every callback R2, no check exercised.
  for (let i = 0; i < 3; i++) await post(cb, login('p1'), { ...HEADERS, 'api-key': 'wrong' });
  const quiet = await reportHere(['--url', sim.url]);
  t.equal(quiet.code, 0, 'exit 0 by default, as documented');
  t.match(quiet.stdout, /note: no check was exercised, so none could fail \(--fail-on not_exercised fails such a run\)/);
  t.match(
    quiet.stdout,
    /note: callbacks were refused for the caller's errors: CREDENTIALS_WRONG ×3 \(--fail-on findings fails such a run\)/,
  );
  t.match(quiet.stdout, /note: no callback carried the scenario's credentials, so no provider check graded any/);
  const strict = await reportHere(['--url', sim.url, '--fail-on', 'not_exercised']);
  t.equal(strict.code, 1);
  t.match(strict.stdout, /FAIL: LOST_REPLY_RETRIED, .* \(--fail-on not_exercised\)/);
  // Float sums: refused R3 for the caller's amounts; the checks pass.
  const amounts = bet('p2', 'G1', [['1', 'P', 10]], usd);
  await post(cb, login('p2'), HEADERS);
  await post(cb, JSON.stringify(amounts).replace('"total_bet_amount":10', '"total_bet_amount":10.000000000000002'), HEADERS);
  const findings = await reportHere(['--url', sim.url, '--fail-on', 'findings']);
  t.equal(findings.code, 1);
  t.match(findings.stdout, /FAIL: findings .*AMOUNT_INEXACT ×1.* \(--fail-on findings\)/);
});

t.test('--junit and --html into directories not made yet (a fresh checkout): made', async (t) => {
  const sim = await simulator(t);
  const junit = join(dir, 'fresh', 'reports', 'wallet.xml');
  const html = join(dir, 'fresh', 'html', 'wallet.html');
  const r = await reportHere(['--url', sim.url, '--junit', junit, '--html', html]);
  t.equal(r.code, 0, r.stderr);
  t.match(readFileSync(junit, 'utf8'), /<testsuites/);
  t.match(readFileSync(html, 'utf8'), /<html/i);
});

t.test('--user: a player who played, its callbacks gone from a bounded journal, is graded (was refused as a typo)', async (t) => {
  const { app } = await buildTestApp({}, { journalSize: 2 });
  t.teardown(() => app.close());
  const url = await listen(app);
  for (const user of ['zoe', 'zoe', 'a', 'b', 'c']) await post(`${url}/callback`, login(user), HEADERS);
  const [played, typo] = [await reportHere(['--url', url, '--user', 'zoe']), await reportHere(['--url', url, '--user', 'zo'])];
  t.equal(played.code, 0, played.stderr);
  t.match(played.stdout, /player zoe/);
  t.equal(typo.code, 2, 'a typo still refused');
});
