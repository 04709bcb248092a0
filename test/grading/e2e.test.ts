// The certification scenario played over real sockets: a well-behaved provider gets no failing
// check; each misbehaving one gets the check it breaks failed. Windows are small (the scenario's
// `grading`) and margins several hundred ms wide.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { buildApp } from '../../src/app/app.js';
import { SCENARIOS_DIR } from '../../src/kernel/paths.js';
import type { CheckId, Report, Scenario } from '../../src/protocol/types.generated.js';
import { compileScenario } from '../../src/core/scenario/scenario.js';
import {} from '../../src/core/simulator.js';
import { MemoryBackend } from '../../src/backends/memory/memory.js';
import { bet, listen, login, result } from '../helpers/app.js';
import { eventually } from '../helpers/spawn-cli.js';
import { attempt, reliably } from './provider.js';
import { openSimulator } from '../../src/app/compose.js';
import { REPLY_READ_MARGIN_MS } from '../../src/grading/model.js';

const CERT = JSON.parse(readFileSync(join(SCENARIOS_DIR, 'certification.json'), 'utf8')) as Scenario;
const usd = { currency: 'USD' };
/**
 * The provider's time-out: 1 s, declared in grading.client_timeout_s; the slow bet takes 2.5 s, so
 * its resend (after the time-out and a 600 ms back-off) comes while it is still unanswered.
 */
const TIMEOUT_MS = 1000;
const well = { timeoutMs: TIMEOUT_MS, backoffMs: 600 };

async function certification(t: Test, grading: Scenario['grading'] = {}, options: { adminToken?: string } = {}) {
  const doc: Scenario = {
    ...CERT,
    rules: CERT.rules!.map((r) => (r.then.delay_ms ? { ...r, then: { delay_ms: 2500 } } : r)),
    grading: { ...CERT.grading, client_timeout_s: 1, retry_window_s: 10, round_max_age_s: 60, ...grading },
  };
  const sim = await openSimulator(compileScenario(doc, 'certification (test)'), new MemoryBackend());
  const app = await buildApp({ sim, ...options });
  t.teardown(() => app.close());
  const base = await listen(app);
  const report = async (query = '', headers: Record<string, string> = {}): Promise<Report> => {
    const res = await fetch(`${base}/admin/report${query}`, { headers });
    if (res.status !== 200) throw new Error(`GET /admin/report: ${res.status} ${await res.text()}`);
    return (await res.json()) as Report;
  };
  return { url: `${base}/callback`, base, sim, report };
}

const status = (r: Report, id: CheckId) => r.checks.find((c) => c.id === id)!;

/** Polls (bounded) until `done` holds; its last value. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 10_000): Promise<T> {
  for (const deadline = Date.now() + ms; ; await sleep(50)) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`still waiting after ${ms} ms for ${what}`);
  }
}
const failing = (r: Report) => r.checks.filter((c) => c.status === 'fail').map((c) => c.id);

t.test('a well-behaved provider plays certification.json: every check exercised, none fails', async (t) => {
  const { url, base, report } = await certification(t);
  const round = async (user: string, game: string, amount = 10) => {
    const b = await reliably(url, bet(user, game, [['1', 'P', amount]], usd), well);
    if (b?.code === 'R0')
      t.equal((await reliably(url, result(user, game, [['1', 'P', amount, -amount]], usd), well))?.code, 'R0', `${user} settles ${game}`);
    return b;
  };
  const play = async (user: string) => {
    let l = await reliably(url, login(user), well);
    if (l?.code !== 'R0') l = await reliably(url, login(user), well); // refused: log in again before any bet
    t.equal(l?.code, 'R0', `${user} logged in`);
    const b = await round(user, `${user}-G1`);
    if (b?.code === 'R4') {
      // A player picks a new stake within the reported balance: a moment later, so that the bet is
      // judged against that balance (one within REPLY_READ_MARGIN_MS of a reply may not have read it).
      await sleep(2 * REPLY_READ_MARGIN_MS);
      await round(user, `${user}-G2`, Math.min(5, b.latest_balance ?? 0));
    }
  };
  await Promise.all(['cert-lost-bet', 'cert-lost-settlement', 'cert-r1-settlement', 'cert-slow-bet', 'cert-r4', 'cert-locked'].map(play));
  // The slow bet's late reply (2.5 s) is written before grading.
  await until(
    async () => ((await (await fetch(`${base}/admin/journal?user_id=cert-slow-bet&event_type=bet`)).json()) as { entries: any[] }).entries,
    (entries) => entries.some((e) => e.reply?.client_gone),
    "the slow bet's late reply",
  );
  const r = await report();
  t.same(failing(r), [], 'no failing check');
  t.same(
    r.checks.flatMap((c) => c.violations.map((v) => v.message)),
    [],
    'no violation',
  );
  t.same(
    r.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id}: ${c.status} ${c.detail}`),
    [],
    'every check exercised and passed',
  );
  t.same(r.open_rounds, []);
  t.same(r.summary, { pass: 14, fail: 0, pending: 0, not_exercised: 0 });
});

t.test('no retry: the lost bet is pending while its window is open, then fails', async (t) => {
  const { url, report } = await certification(t, { retry_window_s: 0.5 });
  await attempt(url, login('cert-lost-bet'), TIMEOUT_MS);
  t.equal(await attempt(url, bet('cert-lost-bet', 'G1', [['1', 'P', 10]], usd), TIMEOUT_MS), undefined, 'reply lost');
  t.equal(status(await report(), 'LOST_REPLY_RETRIED').status, 'pending');
  const check = status(
    await until(report, (r) => status(r, 'LOST_REPLY_RETRIED').status !== 'pending', 'the window to close'),
    'LOST_REPLY_RETRIED',
  );
  t.equal(check.status, 'fail');
  t.match(check.violations[0], { user_id: 'cert-lost-bet', journal_ids: [2] });
});

t.test('retry under a new transaction_id', async (t) => {
  const { url, report } = await certification(t);
  await attempt(url, login('cert-lost-bet'), TIMEOUT_MS);
  await attempt(url, bet('cert-lost-bet', 'G1', [['1', 'P', 10]], usd), TIMEOUT_MS);
  await sleep(600);
  t.ok(
    await attempt(url, bet('cert-lost-bet', 'G1', [['1', 'P', 10]], usd), TIMEOUT_MS),
    'answered (R3 here only because bet_index 1 repeats in the round)',
  );
  const r = await report();
  t.equal(status(r, 'RETRY_SAME_TRANSACTION').status, 'fail');
  t.same(status(r, 'RETRY_SAME_TRANSACTION').violations[0]!.journal_ids, [2, 3]);
});

t.test('retry storm on an R1 settlement', async (t) => {
  const { url, report } = await certification(t);
  await attempt(url, login('cert-r1-settlement'), TIMEOUT_MS);
  await attempt(url, bet('cert-r1-settlement', 'G1', [['1', 'P', 10]], usd), TIMEOUT_MS);
  const s = result('cert-r1-settlement', 'G1', [['1', 'P', 10, 10]], usd);
  t.equal((await attempt(url, s, TIMEOUT_MS))?.code, 'R1');
  for (let i = 0; i < 4; i++) await attempt(url, s, TIMEOUT_MS); // no pause at all
  const r = await report();
  t.equal(status(r, 'RETRY_BACKOFF').status, 'fail');
  t.equal(status(r, 'FAILED_SETTLEMENT_RETRIED').status, 'pass', 'it did resend until R0');
});

t.test('settles while the bet is in flight (report asked mid-delay)', async (t) => {
  const { url, report } = await certification(t);
  await attempt(url, login('cert-slow-bet'), TIMEOUT_MS);
  const slow = attempt(url, bet('cert-slow-bet', 'G1', [['1', 'P', 10]], usd), 5000); // waits, but settles meanwhile
  // Settle once the bet has arrived (its first bet counts for LOGIN_BEFORE_BET): it is then held 2.5 s.
  t.ok(await eventually(async () => status(await report(), 'LOGIN_BEFORE_BET').exercised > 0, 5000), 'the bet arrived');
  await attempt(url, result('cert-slow-bet', 'G1', [['1', 'P', 10, 0]], usd), TIMEOUT_MS);
  const during = await report();
  t.equal(status(during, 'NO_SETTLEMENT_BEFORE_BET_REPLY').status, 'fail', 'seen while the bet is still being answered');
  t.equal((await slow)?.code, 'R0');
  t.equal(status(await report(), 'NO_SETTLEMENT_BEFORE_BET_REPLY').status, 'fail', 'and after');
});

t.test('settles a refused bet', async (t) => {
  const { url, report } = await certification(t);
  await attempt(url, login('cert-r4'), TIMEOUT_MS);
  t.equal((await attempt(url, bet('cert-r4', 'G1', [['1', 'P', 10]], usd), TIMEOUT_MS))?.code, 'R4');
  await attempt(url, result('cert-r4', 'G1', [['1', 'P', 10, 10]], usd), TIMEOUT_MS);
  t.equal(status(await report(), 'NO_SETTLEMENT_OF_REFUSED_BET').status, 'fail');
});

t.test('abandons a round: pending while young, fails past round_max_age_s', async (t) => {
  const { url, report } = await certification(t, { round_max_age_s: 0.5 });
  await attempt(url, login('cert-lost-settlement'), TIMEOUT_MS);
  t.equal((await attempt(url, bet('cert-lost-settlement', 'G1', [['1', 'P', 10]], usd), TIMEOUT_MS))?.code, 'R0');
  t.equal(status(await report(), 'ROUNDS_SETTLED').status, 'pending');
  const r = await until(report, (r) => status(r, 'ROUNDS_SETTLED').status !== 'pending', 'the round to age');
  t.equal(status(r, 'ROUNDS_SETTLED').status, 'fail');
  t.match(r.open_rounds, [{ user_id: 'cert-lost-settlement', game_no: 'G1', stake: 10 }]);
});

t.test('bets after a refused login', async (t) => {
  const { url, report } = await certification(t);
  t.equal((await attempt(url, login('cert-locked'), TIMEOUT_MS))?.code, 'R2');
  await attempt(url, bet('cert-locked', 'G1', [['1', 'P', 10]], usd), TIMEOUT_MS);
  const r = await report();
  t.equal(status(r, 'NO_BET_AFTER_LOGIN_REFUSED').status, 'fail');
  t.equal(status(r, 'LOGIN_BEFORE_BET').status, 'fail', 'and the warning: no successful login before the bet');
});

t.test('?user_id= limits the report; --admin-token locks it', async (t) => {
  const { url, report } = await certification(t, {}, { adminToken: 'secret' });
  const auth = { authorization: 'Bearer secret' };
  await attempt(url, login('cert-locked'), TIMEOUT_MS);
  await attempt(url, bet('cert-locked', 'G1', [['1', 'P', 10]], usd), TIMEOUT_MS);
  await attempt(url, login('cert-r4'), TIMEOUT_MS);
  await t.rejects(report(), /401/, 'no token: 401');
  t.equal(status(await report('', auth), 'NO_BET_AFTER_LOGIN_REFUSED').status, 'fail');
  const mine = await report('?user_id=cert-r4', auth);
  t.equal(mine.user_id, 'cert-r4');
  t.equal(status(mine, 'NO_BET_AFTER_LOGIN_REFUSED').status, 'not_exercised', "another player's callbacks are left out");
  t.equal(mine.scenario, 'certification');
});
