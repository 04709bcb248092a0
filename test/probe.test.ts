import { XMLParser } from 'fast-xml-parser';
import t, { type Test } from 'tap';
import { CHECKS, type ProbeReport, runProbe } from '../src/probe/battery.js';
import { formatProbeReport, probeJUnit } from '../src/probe/report.js';
import { junitXml } from '../src/report/junit.js';
import { buildTestApp } from './helpers/app.js';
import { type Flaw, startReceiver } from './helpers/broken-receivers.js';

const failedChecks = (r: ProbeReport) => r.checks.filter((c) => c.status === 'fail').map((c) => c.name);
const failedRules = (r: ProbeReport) =>
  [...new Set(r.checks.flatMap((c) => c.assertions.filter((a) => !a.passed).map((a) => a.name)))].sort();
const statusOf = (r: ProbeReport, name: string) => r.checks.find((c) => c.name === name)?.status;

async function listening(scenario = {}) {
  const { app, sim } = await buildTestApp(scenario);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, sim, url: `http://127.0.0.1:${port}/callback` };
}

t.test('wallet-sim passes every check, and the probe touches only its player', async (t) => {
  const { app, sim, url } = await listening();
  t.teardown(() => app.close());
  const others = sim
    .players()
    .filter((p) => p.user_id !== 'usd')
    .map((p) => [p.user_id, p.balance.toFixed()]);

  const report = await runProbe({ url, apiId: 'sandbox', apiKey: 'sandbox-key', user: 'usd', currency: 'USD', scale: 2 });
  t.same(failedChecks(report), [], formatProbeReport(report));
  t.same(
    report.checks.map((c) => c.name),
    CHECKS.filter((c) => c !== 'cleanup'),
    'every check ran, none needed a cleanup',
  );
  t.equal(report.balance.before?.toFixed(), '100');
  t.equal(report.balance.after?.toFixed(), report.balance.expected?.toFixed());
  t.equal(sim.player('usd')?.balance.toFixed(), report.balance.after?.toFixed(), 'the report states the real final balance');
  t.same(
    sim
      .players()
      .filter((p) => p.user_id !== 'usd')
      .map((p) => [p.user_id, p.balance.toFixed()]),
    others,
    'no other player changed',
  );
  t.same(sim.players().length, others.length + 1, 'no player created');
  t.same([...new Set(sim.journal.list().map((e) => e.user_id ?? '(unreadable body)'))].sort(), ['(unreadable body)', 'usd']);
  t.notOk(
    [...sim.state.rounds.values()].some((r) => !r.settled),
    'every round the probe opened is settled',
  );
  t.match(formatProbeReport(report), /13 checks: 13 passed, 0 failed, 0 skipped/);
});

t.test('wallet-sim passes with a zero-decimal currency too', async (t) => {
  const { app, sim, url } = await listening();
  t.teardown(() => app.close());
  const report = await runProbe({ url, apiId: 'sandbox', apiKey: 'sandbox-key', user: 'player-1', currency: 'KRW', scale: 0 });
  t.same(failedChecks(report), [], formatProbeReport(report));
  t.equal(sim.player('player-1')?.balance.toFixed(), report.balance.expected?.toFixed());
});

t.test('a correct receiver that is not wallet-sim passes every check', async (t) => {
  const wallet = await startReceiver();
  t.teardown(() => wallet.close());
  const report = await runProbe({ url: wallet.url, apiId: 'op-id', apiKey: 'op-key', user: 'alice', currency: 'USD', scale: 2 });
  t.same(failedChecks(report), [], formatProbeReport(report));
  t.equal(wallet.balance(), report.balance.after?.toFixed());
});

const probeFlawed = async (t: Test, flaw: Flaw) => {
  const wallet = await startReceiver({ flaw });
  t.teardown(() => wallet.close());
  const report = await runProbe({ url: wallet.url, apiId: 'op-id', apiKey: 'op-key', user: 'alice', currency: 'USD', scale: 2 });
  return { report, wallet, text: formatProbeReport(report) };
};

t.test('a wallet that keeps money in binary floats fails the balance checks', async (t) => {
  const { report, text } = await probeFlawed(t, 'float');
  t.same(failedRules(report), ['balance-arithmetic', 'balance-scale'], 'only the money rules fail');
  for (const name of ['login', 'bet', 'settle-win', 'settle-loss', 'insufficient-funds', 'bad-credentials'])
    t.equal(statusOf(report, name), 'pass', name);
  // 102.1 - 0.7 is 101.39999999999999 in binary floats; 10 x 0.1 drifts too.
  for (const name of ['settle-push', 'concurrent-bets', 'balance-reconciliation']) t.equal(statusOf(report, name), 'fail', name);
  t.match(text, /latest_balance 101\.39999999999999 has 14 fraction digits; USD has 2/);
  t.match(text, /expected 101\.4 \(102\.1 - stake 0\.7\)/);
});

t.test('a wallet that ignores transaction_id fails the idempotency checks', async (t) => {
  const { report, text } = await probeFlawed(t, 'no-idempotency');
  t.same(failedChecks(report), ['duplicate-replay', 'conflicting-reuse', 'cleanup', 'balance-reconciliation']);
  const replay = report.checks.find((c) => c.name === 'duplicate-replay')!;
  t.match(
    replay.assertions.filter((a) => !a.passed),
    [{ name: 'balance-arithmetic', message: /^the same bet again .*expected .*a replay changes nothing/ }],
  );
  const reuse = report.checks.find((c) => c.name === 'conflicting-reuse')!;
  t.match(
    reuse.assertions.filter((a) => !a.passed),
    [{ name: 'code', message: /under the same transaction_id: code R0, expected R3 or R1/ }],
  );
  t.match(text, /rounds still open: probe-/, 'the round the wallet double-booked could not be settled, and the report says so');
});

t.test('a wallet that omits latest_balance on bet_result fails the settlement checks', async (t) => {
  const { report } = await probeFlawed(t, 'omit-balance-on-bet-result');
  t.same(failedRules(report), ['latest-balance-on-r0']);
  t.same(failedChecks(report), [
    'settle-win',
    'settle-loss',
    'settle-push',
    'duplicate-replay',
    'conflicting-reuse',
    'totals-mismatch',
    'concurrent-bets',
  ]);
  t.match(
    report.checks.find((c) => c.name === 'settle-win')!.assertions.find((a) => !a.passed),
    { message: /bet_result \(win\): an R0 reply to bet_result without latest_balance/ },
  );
  t.equal(statusOf(report, 'balance-reconciliation'), 'pass', 'the money itself is right');
});

t.test('a wallet that does not answer fails without a crash', async (t) => {
  const wallet = await startReceiver();
  const url = wallet.url;
  await wallet.close();
  const report = await runProbe({ url, apiId: 'op-id', apiKey: 'op-key', user: 'alice', currency: 'USD', scale: 2, timeoutMs: 2000 });
  t.equal(statusOf(report, 'login'), 'fail');
  t.match(report.checks[0]!.assertions[0], { name: 'http-200', message: /^login: no reply: .*ECONNREFUSED/ });
  t.equal(statusOf(report, 'balance-reconciliation'), 'fail');
});

t.test('the JUnit report is XML with one testcase per check and each failure in full', async (t) => {
  const { report } = await probeFlawed(t, 'no-idempotency');
  const xml = probeJUnit(report);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
  const suite = doc.testsuites.testsuite;
  t.equal(suite.name, 'wallet-sim probe');
  t.equal(Number(suite.tests), report.checks.length);
  t.equal(Number(suite.failures), 4);
  const cases = suite.testcase as { name: string; failure?: { message: string; '#text': string } }[];
  t.same(
    cases.filter((c) => c.failure).map((c) => c.name),
    ['duplicate-replay', 'conflicting-reuse', 'cleanup', 'balance-reconciliation'],
  );
  const reuse = cases.find((c) => c.name === 'conflicting-reuse')!.failure!;
  t.match(reuse.message, /code R0, expected R3 or R1/);
  t.match(reuse['#text'], /→ POST http:\/\/127\.0\.0\.1:\d+\/wallet/, 'the request of the failure');
  t.match(reuse['#text'], /← HTTP 200/, 'and its reply');
  t.notMatch(xml, /op-key/, 'the Api-Key is masked');
  t.match(suite['system-out'], /balance of alice: before 100 USD/);
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
