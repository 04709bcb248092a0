// Blame on the side that caused it: a correct provider in front of a wallet whose replies break the
// protocol ("r0", a 500, a body that is not JSON, a balance as a string…) fails no provider check;
// the wallet's side fails WALLET_REPLY_VALID. A reply a scenario rule forces is the scenario's own
// and is graded on the provider's side as usual.
import t, { type Test } from 'tap';
import { bet, HEADERS, login, post, result } from '../helpers/app.js';
import { spawnZoo } from '../wallets/spawn-zoo.js';
import { getJson, startProxy } from './upstream.js';

t.jobs = 2;

const usd = { currency: 'USD' };
interface Report {
  checks: { id: string; side: string; status: string; violations: { message: string }[] }[];
}

/** What a provider read of a reply: R0–R4, or nothing it can trust. */
async function read(url: string, body: object): Promise<string | undefined> {
  try {
    const r = await post(url, body, HEADERS);
    const code = (r.body as { code?: unknown } | null)?.code;
    const balance = (r.body as { latest_balance?: unknown } | null)?.latest_balance;
    if (r.status !== 200 || typeof code !== 'string' || !/^R[0-4]$/.test(code)) return undefined;
    return code === 'R0' && typeof balance !== 'number' ? undefined : code;
  } catch {
    return undefined;
  }
}

/**
 * A correct provider: logs each player in, bets, and settles only a bet it read as R0, resending a
 * settlement answered R1 or unreadable twice, spaced. `lenient`: it also settles a bet whose reply it
 * could not read (a client that took "r0" for R0): the wallet may have applied it.
 */
async function provider(url: string, lenient: boolean): Promise<void> {
  for (const user of ['player-1', 'player-2']) {
    await read(url, login(user));
    const game = `g-${user}-${lenient}`;
    const code = await read(url, bet(user, game, [['1', 'P', 10]], usd));
    if (code !== 'R0' && !(lenient && code === undefined)) continue;
    const settlement = result(user, game, [['1', 'P', 10, 5]], usd);
    for (const gap of [0, 600, 1300]) {
      // Resends spaced beyond min_retry_gap_ms (500) and growing, each within retry_window_s (3).
      // Growing by far more than RETRY_BACKOFF's tolerance: on a loaded machine a reply read late
      // lengthens one wait by hundreds of ms, and 600 then 900 could then look like a shrink (600 then 1300 cannot).
      if (gap) await new Promise((resolve) => setTimeout(resolve, gap));
      const answer = await read(url, settlement);
      if (answer !== undefined && answer !== 'R1') break;
    }
  }
}

/**
 * The report once every window the provider left open has closed (the retry window, the rounds'
 * age): no check pending, as `report --wait` waits. A check still within a window is pending, never
 * passed; a sleep past the longest window took 4.5 s a case, where most leave none open.
 */
async function final(base: string): Promise<Report> {
  for (const until = Date.now() + 30_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const report = (await getJson(base, '/admin/report')) as Report;
    if (!report.checks.some((c) => c.status === 'pending') || Date.now() > until) return report;
  }
}

async function failing(
  t: Test,
  zooArgs: string[],
  lenient: boolean,
  rules: object[] = [],
): Promise<{ provider: string[]; wallet: string[] }> {
  const zoo = await spawnZoo(['--api-id', 'sandbox', '--api-key', 'sandbox-key', ...zooArgs]);
  t.teardown(() => zoo.stop());
  const proxy = await startProxy(
    t,
    { grading: { client_timeout_s: 3, retry_window_s: 3, round_max_age_s: 4 }, rules } as object,
    zoo.url,
    10_000,
  );
  await provider(proxy.url, lenient);
  const report = await final(proxy.base);
  const ids = (side: string) => report.checks.filter((c) => c.side === side && c.status === 'fail').map((c) => c.id);
  return { provider: ids('provider'), wallet: ids('wallet') };
}

const ALL = ['lowercase-code', 'http-500', 'non-json', 'balance-as-string', 'no-balance-on-r0', 'missing-headers', 'no-echo'];
// npm test plays the first the issue reported ("r0": each case waits out the grading windows, and
// the suite must fit CI's 15 minutes); npm run test:full (WALLET_SIM_FULL_MATRIX=1) the whole table.
const DEFECTS = process.env.WALLET_SIM_FULL_MATRIX === '1' ? ALL : ['lowercase-code'];

for (const defect of DEFECTS)
  for (const lenient of [false, true])
    t.test(
      `${defect}, a provider that ${lenient ? 'settles what it could not read' : 'gives up on what it could not read'}: no provider check fails`,
      async (t) => {
        const { provider: p, wallet } = await failing(t, ['--defect', defect], lenient);
        t.same(p, [], 'the provider side');
        t.ok(wallet.includes('WALLET_REPLY_VALID'), `the wallet side: WALLET_REPLY_VALID (${wallet.join(', ')})`);
      },
    );

t.test('a correct wallet: nothing fails on either side', async (t) => {
  t.same(await failing(t, [], false), { provider: [], wallet: [] });
});

t.test("a reply a rule forces is the scenario's: graded on the provider's side", async (t) => {
  // Every settlement answered HTTP 500 by the scenario: the provider that gives up after three fails FAILED_SETTLEMENT_RETRIED.
  const rules = [{ name: 'broken', when: { event_type: 'bet_result' }, then: { http_status: 500, body: 'oops' } }];
  const { provider: p, wallet } = await failing(t, [], false, rules);
  t.same(p, ['FAILED_SETTLEMENT_RETRIED']);
  t.same(wallet, []);
});

t.test('a correct wallet and a correct provider: a lost reply and its resend, simultaneous bets, a delay: nothing fails', async (t) => {
  const zoo = await spawnZoo(['--api-id', 'sandbox', '--api-key', 'sandbox-key']);
  t.teardown(() => zoo.stop());
  const rules = [
    { name: 'lost', when: { event_type: 'bet', user_id: 'player-1' }, then: { drop_connection: true }, times: 1 },
    { name: 'late', when: { event_type: 'bet_result', user_id: 'player-2' }, then: { delay_ms: 300 } },
  ];
  const proxy = await startProxy(t, { grading: { client_timeout_s: 3 }, rules } as object, zoo.url, 10_000);
  const url = proxy.url;
  await read(url, login('player-1'));
  const lostBet = bet('player-1', 'lost-1', [['1', 'P', 10]], usd);
  t.equal(await read(url, lostBet), undefined, 'the first reply is lost');
  await new Promise((resolve) => setTimeout(resolve, 700)); // the provider knew at once (a closed connection); a gap above 500 ms
  t.equal(await read(url, lostBet), 'R0', 'the resend is replayed');
  t.equal(await read(url, result('player-1', 'lost-1', [['1', 'P', 10, 5]], usd)), 'R0');
  await read(url, login('player-2'));
  const games = [1, 2, 3, 4, 5].map((i) => `sim-${i}`);
  const codes = await Promise.all(games.map((g) => read(url, bet('player-2', g, [['1', 'P', 10]], usd))));
  t.same(codes, ['R0', 'R0', 'R0', 'R0', 'R0']);
  await Promise.all(games.map((g) => read(url, result('player-2', g, [['1', 'P', 10, -10]], usd))));
  await read(url, login('player-2'));
  const report = (await getJson(proxy.base, '/admin/report')) as Report;
  const failed = report.checks.filter((c) => c.status === 'fail').map((c) => `${c.side}:${c.id} ${c.violations[0]?.message ?? ''}`);
  t.same(failed, [], 'no failing check on either side');
  const wallet = new Map(report.checks.filter((c) => c.side === 'wallet').map((c) => [c.id, c.status]));
  t.equal(wallet.get('WALLET_IDEMPOTENT'), 'pass', 'the resend exercised idempotency');
  t.equal(wallet.get('WALLET_CONCURRENCY_SAFE'), 'pass', 'the simultaneous bets were judged as a history');
});
