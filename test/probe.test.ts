import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { CHECKS, type ProbeReport, runProbe } from '../src/probe/battery.js';
import { formatProbeHtml } from '../src/probe/format-html.js';
import { formatProbeReport, probeExitCode, probeJUnit, walletFails } from '../src/probe/report.js';
import type { ProbeTarget } from '../src/probe/types.js';
import { junitXml } from '../src/report/junit.js';
import type { Report } from '../src/protocol/types.generated.js';
import { buildTestApp } from './helpers/app.js';
import { startZooWallet, type ZooOptions } from './wallets/zoo-wallet.js';

const failing = (r: ProbeReport) => [
  ...r.checks.filter((c) => c.status === 'fail').map((c) => c.name),
  ...r.walletChecks.filter(walletFails).map((c) => c.id),
];

async function listening(scenario = {}) {
  const { app, sim } = await buildTestApp(scenario);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, sim, url: `http://127.0.0.1:${port}/callback` };
}

const SANDBOX = { apiId: 'sandbox', apiKey: 'sandbox-key', currency: 'USD', scale: 2 };

/** The provider checks of wallet-sim's report that the probe fails on purpose, each by one provocation (its transaction_id prefix). */
const PROVOKED: Record<string, string> = {
  BET_WITHIN_REPORTED_BALANCE: 'provoke-', // a bet over the balance (insufficient-funds, unknown-player)
  ONE_SETTLEMENT_PER_ROUND: 'provoke-resettle',
  RETRY_UNCHANGED: 'provoke-reuse',
};

t.test('wallet-sim passes every check, and the probe touches only its player', async (t) => {
  const { app, sim, url } = await listening();
  t.teardown(() => app.close());
  const others = sim.players().map((p) => [p.user_id, p.balance.toFixed()]);
  const report = await runProbe({ ...SANDBOX, url, user: 'usd' });
  t.same(failing(report), [], formatProbeReport(report));
  t.equal(probeExitCode(report), 0);
  t.same(
    report.checks.map((c) => c.name),
    [...CHECKS],
    'every check ran',
  );
  t.same(
    report.checks.filter((c) => c.status !== 'pass').map((c) => c.name),
    [],
    'every check judged',
  );
  t.same(
    report.walletChecks.filter((c) => c.status !== 'pass').map((c) => c.id),
    [],
    'every wallet check exercised and passed',
  );
  t.equal(report.balance.before?.toFixed(), '100');
  t.equal(sim.player('usd')?.balance.toFixed(), report.balance.after?.toFixed(), 'the report states the real final balance');
  t.same(report.unsettled, []);
  t.notOk(
    [...sim.state.rounds.values()].some((r) => !r.settled),
    'every round the probe opened is settled',
  );
  const after = new Map(sim.players().map((p) => [p.user_id, p.balance.toFixed()]));
  for (const [user, balance] of others) if (user !== 'usd') t.equal(after.get(user!), balance, `${user} untouched`);
  const created = sim.players().filter((p) => !others.some(([u]) => u === p.user_id));
  t.match(
    created.map((p) => p.user_id),
    [/^usd-unknown-/],
    'one player created: the unknown player, which wallet-sim creates (auto_create_players)',
  );
  t.match(formatProbeReport(report), /28 probe checks: 28 passed, 0 failed, 0 could not judge; 8 wallet checks: 0 failed .* → PASS/);
});

t.test('wallet-sim passes with a zero-decimal currency too', async (t) => {
  const { app, sim, url } = await listening();
  t.teardown(() => app.close());
  const report = await runProbe({ ...SANDBOX, url, user: 'player-1', currency: 'KRW', scale: 0 });
  t.same(failing(report), [], formatProbeReport(report));
  t.equal(sim.player('player-1')?.balance.toFixed(), report.balance.after?.toFixed());
});

t.test('the probe is a certified provider: wallet-sim grades it, lost replies and a late one included', async (t) => {
  // The first bet answered after the probe's time-out, the first settlement's reply dropped: the probe must
  // resend both unchanged (same transaction_id), after waiting, and still settle every round.
  const { app, sim, url } = await listening({
    grading: { client_timeout_s: 1 },
    rules: [
      // Past the probe's 1 s time-out and its 500 ms back-off: its resend comes while the first is unanswered.
      { name: 'late-bet', when: { event_type: 'bet', user_id: 'usd' }, then: { delay_ms: 2500 }, times: 1 },
      { name: 'lost-settlement', when: { event_type: 'bet_result', user_id: 'usd' }, then: { drop_connection: true }, times: 1 },
    ],
  });
  t.teardown(() => app.close());
  const report = await runProbe({ ...SANDBOX, url, user: 'usd', timeoutMs: 1000, clientTimeoutMs: 2000 });
  t.same(report.unsettled, [], 'every round settled');
  t.notOk(
    [...sim.state.rounds.values()].some((r) => !r.settled),
    'wallet-sim has no open round',
  );
  const res = await app.inject({ method: 'GET', url: '/admin/report' });
  const graded = res.json<Report>();
  const provider = graded.checks;
  const exercised = (id: string) => provider.find((c) => c.id === id)!.exercised;
  t.ok(exercised('LOST_REPLY_RETRIED') >= 2, 'both lost replies were retried');
  for (const id of ['RETRY_SAME_TRANSACTION', 'NO_PREMATURE_RETRY', 'RETRY_BACKOFF', 'ROUNDS_SETTLED', 'LOGIN_BEFORE_BET'])
    t.ok(exercised(id) > 0, `${id} exercised`);
  for (const c of provider.filter((c) => c.exercised > 0 && c.status !== 'not_exercised')) {
    const prefix = PROVOKED[c.id];
    if (!prefix) {
      t.equal(c.status, 'pass', `${c.id} passes: ${c.violations.map((v) => v.message).join('; ')}`);
      continue;
    }
    // A provocation the probe makes on purpose: every violation is one of them, and only they.
    t.ok(
      c.violations.every((v) => v.transaction_id?.includes(prefix)),
      `${c.id}: only the probe's provocations (${prefix}…): ${c.violations.map((v) => v.transaction_id).join(', ')}`,
    );
  }
});

async function probeZoo(o: ZooOptions, target: Partial<ProbeTarget> = {}) {
  const zoo = await startZooWallet(o);
  t.teardown(() => zoo.close());
  const report = await runProbe({ url: zoo.url, apiId: 'zoo', apiKey: 'zoo-key', user: 'player-1', currency: 'USD', scale: 2, ...target });
  return { report, zoo, text: formatProbeReport(report) };
}

t.test('what stops the probe is said in one line, with exit 2', async (t) => {
  const gone = await startZooWallet();
  const goneUrl = gone.url;
  await gone.close();
  const cases: [string, () => Promise<ProbeReport>, string, RegExp][] = [
    [
      'unreachable',
      async () => (await probeZoo({}, { url: goneUrl })).report,
      'unreachable',
      /^cannot reach .*ECONNREFUSED.*is the wallet running/,
    ],
    [
      'wrong path',
      async () => {
        const zoo = await startZooWallet({ path: '/wallet' });
        t.teardown(() => zoo.close());
        return (await probeZoo({}, { url: zoo.url.replace('/wallet', '/callback') })).report;
      },
      'wrong-path',
      /^HTTP 404 from .*check --url/,
    ],
    ['wrong key', async () => (await probeZoo({}, { apiKey: 'nope' })).report, 'credentials', /^credentials refused \(R2\)/],
    [
      'unknown user',
      async () => (await probeZoo({}, { user: 'ghost' })).report,
      'unknown-user',
      /refused a login of ghost \(R3\): is --user/,
    ],
    [
      'no funds',
      async () => (await probeZoo({ players: [{ user: 'poor', balance: '1', currency: 'USD' }] }, { user: 'poor' })).report,
      'funds',
      /poor has 1 USD; the battery needs at least 4: fund the player/,
    ],
  ];
  for (const [name, run, reason, message] of cases) {
    const report = await run();
    t.equal(report.stopped?.reason, reason, name);
    t.match(report.stopped?.message, message, name);
    t.equal(probeExitCode(report), 2, `${name}: exit 2`);
    t.equal(report.checks.length, 1, `${name}: nothing else was tried`);
    const text = formatProbeReport(report);
    t.ok(text.split('\n').length <= 6, `${name}: a few lines\n${text}`);
  }
});

t.test('a settlement without a definite answer is resent unchanged, never under a new transaction_id, and its round listed', async (t) => {
  // The zoo applies each bet_result, then answers HTTP 500: the probe cannot know, so it may only resend.
  const { report, text } = await probeZoo({ defect: 'http-500' }, { backoffMs: 50 });
  t.same(failing(report), ['WALLET_REPLY_VALID'], text);
  t.ok(report.unsettled.length > 0);
  for (const u of report.unsettled) t.match(u.why, /^its settlement got HTTP 500 on 3 attempts$/, u.game_no);
  t.match(text, /rounds left open \(\d+\):\n {2}probe-\S+: its settlement got HTTP 500 on 3 attempts/);
  const parsed = report.exchanges.flatMap((x) => {
    try {
      return [{ x, body: JSON.parse(x.request.body) as { event_type?: string; transaction_id: string; data?: { game_no: string } } }];
    } catch {
      return []; // the deliberately truncated body
    }
  });
  const byRound = new Map<string, Set<string>>();
  for (const { x, body } of parsed) {
    if (body.event_type !== 'bet_result' || x.label.includes('wrong') || body.transaction_id.startsWith('provoke-')) continue;
    const txs = byRound.get(body.data!.game_no) ?? new Set();
    byRound.set(body.data!.game_no, txs.add(body.transaction_id));
  }
  t.ok(byRound.size > 10);
  t.same(
    [...byRound].filter(([, txs]) => txs.size > 1).map(([game]) => game),
    [],
    'one transaction_id per round',
  );
  const attempts = new Map<string, string[]>();
  for (const { x, body } of parsed) attempts.set(body.transaction_id, [...(attempts.get(body.transaction_id) ?? []), x.request.body]);
  for (const [tx, bodies] of attempts) {
    t.ok(bodies.length <= 10, `${tx}: ${bodies.length} attempts, at most 10`);
    if (!tx.startsWith('provoke-')) t.equal(new Set(bodies).size, 1, `${tx}: every attempt the same body`);
  }
});

t.test('a settlement answered R1 on every attempt is never followed by another under a new transaction_id; its round listed', async (t) => {
  // R1 is no definite answer for a settlement: the round may only be settled by that settlement, resent.
  const { app, url } = await listening({
    rules: [{ name: 'r1-settlement', when: { event_type: 'bet_result', user_id: 'usd' }, then: { code: 'R1' }, times: 3 }],
  });
  t.teardown(() => app.close());
  const report = await runProbe({ ...SANDBOX, url, user: 'usd', backoffMs: 50 });
  const settlements = report.exchanges.flatMap((x) => {
    let body: { event_type?: string; transaction_id: string; data?: { game_no: string } };
    try {
      body = JSON.parse(x.request.body);
    } catch {
      return []; // the deliberately malformed body
    }
    return body.event_type === 'bet_result' && !x.label.includes('wrong') && !body.transaction_id.startsWith('provoke-') ? [body] : [];
  });
  const first = settlements[0]!;
  const sameRound = settlements.filter((b) => b.data?.game_no === first.data?.game_no);
  t.same([...new Set(sameRound.map((b) => b.transaction_id))], [first.transaction_id], 'the round: its own settlement alone');
  t.same(
    report.unsettled.filter((u) => u.game_no === first.data?.game_no).map((u) => u.why),
    ['its settlement got R1 (failed processing) on 3 attempts'],
    'listed open, saying why',
  );
  // (FAILED_SETTLEMENT_RETRIED is not asserted: the probe gives up after its 3 attempts, as docs/probe.md
  // says, so once the retry window closes a grading wallet is right to fail it; read now, it is pending.)
  const graded = (await app.inject({ url: '/admin/report' })).json<Report>().checks;
  for (const id of ['RETRY_SAME_TRANSACTION', 'ONE_SETTLEMENT_PER_ROUND'])
    t.not(
      graded.find((c) => c.id === id)?.violations.some((v) => v.transaction_id === first.transaction_id),
      true,
      `${id}: nothing of it`,
    );
});

t.test('a wallet in binary floats fails WALLET_BALANCE_EXACT alone, with the numbers', async (t) => {
  const { report, text } = await probeZoo({ defect: 'float-money' });
  t.same(failing(report), ['WALLET_BALANCE_EXACT'], text);
  t.match(text, /the balance went from [\d.]+ to \d+\.\d{5,}/);
  t.match(text, /fix: Compute balances in exact decimals/);
});

t.test('a lower-case code is one failure (WALLET_REPLY_VALID), not one per check, and a short report', async (t) => {
  const { report, text } = await probeZoo({ defect: 'lowercase-code' });
  t.same(failing(report), ['WALLET_REPLY_VALID']);
  t.ok(text.split('\n').length < 120, `${text.split('\n').length} lines`);
});

t.test('latency per event is measured, apart from how long the probe waits', async (t) => {
  // Every reply 30 ms late: each of the probe's ~130 callbacks waits it, so it is kept short.
  const { report, text } = await probeZoo({ delayMs: 30 }, { clientTimeoutMs: 5000 });
  t.same(failing(report), []);
  for (const event of ['login', 'bet', 'bet_result']) {
    const l = report.latency.find((x) => x.event === event)!;
    t.ok(l.p50 >= 30 && l.p99 >= l.p50 && l.max >= l.p99, `${event}: p50 ${l.p50}, p99 ${l.p99}, max ${l.max}`);
  }
  t.match(text, /WALLET_ANSWERS_IN_TIME .*login p50 \d+ ms, p99 \d+ ms .*the provider's time-out: 5000 ms/);
});

t.test('the JUnit report: one testcase per check, two suites, each failure with its request and reply', async (t) => {
  const { report } = await probeZoo({ defect: 'resettle-new-txid' });
  const xml = probeJUnit(report);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
  const [probe, wallet] = doc.testsuites.testsuite;
  t.equal(probe.name, 'wallet-sim probe');
  t.equal(Number(probe.tests), CHECKS.length);
  t.equal(Number(probe.failures), 0, 'the round rule is the wallet check\'s: the probe check says "see"');
  t.equal(wallet.name, 'wallet-sim probe: wallet checks');
  t.equal(Number(wallet.tests), 8);
  t.equal(Number(wallet.failures), 1);
  const cases = wallet.testcase as { name: string; failure?: { message: string; '#text': string } }[];
  const failure = cases.find((c) => c.name.includes('WALLET_ROUND_RULES'))!.failure!;
  t.match(failure['#text'], /answered R0 where the wallet rules answer R3 \(ROUND_SETTLED: round \S+ is already settled\)/);
  t.match(failure['#text'], /→ POST http:\/\/127\.0\.0\.1:\d+\/callback/, 'the request of the failure');
  t.match(failure['#text'], /← HTTP 200/, 'and its reply');
  t.match(failure['#text'], /Keep each round \(user_id, game_no\)/);
  t.notMatch(xml, /zoo-key/, 'the Api-Key is masked');
});

t.test('the HTML report is one self-contained, escaped file with the evidence of each failure', async (t) => {
  const user = '<img src=x onerror=alert(1)>';
  const { report } = await probeZoo({ defect: 'leaks-api-key', autoCreate: '1000' }, { user });
  const html = formatProbeHtml(report);
  t.notMatch(html, /<img/, 'the player id is escaped');
  t.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  t.notMatch(html, /<script|<link|src="http/i, 'no script, no external asset');
  t.match(html, /WALLET_REPLY_VALID/);
  t.match(html, /a leak of the key/);
  t.match(html, /→ POST http:\/\/127\.0\.0\.1:\d+\/callback/, 'the failing request');
  t.notMatch(html, /zoo-key/, 'the Api-Key is masked everywhere');
  t.match(
    html,
    /<figure class="picture"><figcaption>[^<]+<\/figcaption><svg class="timeline"[^>]*>.*?class="lane" data-lane="upstream:/s,
    'a failing wallet check drawn as a timeline: the wallet leg',
  );
  t.notMatch(html, / style=/, 'no style attribute');
});

t.test('the JUnit writer escapes markup and drops characters XML 1.0 forbids', async (t) => {
  const nasty = 'a < b && "c" > \'d\' \u0000\u001b]]> \ud800 ok';
  const xml = junitXml([
    {
      name: nasty,
      cases: [
        { name: nasty, classname: 'x', status: 'fail', message: nasty, details: nasty },
        { name: 's', classname: 'x', status: 'skip', message: 'why' },
      ],
    },
  ]);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
  const [failed, skipped] = doc.testsuites.testsuite.testcase;
  t.equal(failed.name, 'a < b && "c" > \'d\' \ufffd\ufffd]]> \ufffd ok');
  t.equal(failed.failure['#text'], 'a < b && "c" > \'d\' \ufffd\ufffd]]> \ufffd ok');
  t.same(skipped.skipped, { message: 'why' });
  t.equal(doc.testsuites.skipped, '1');
});
