// The wallet side in the report: `side` on every check, the wallet's eight after the provider's 14
// only when a WalletGrader is given, a second JUnit suite, a second list in the text and the HTML,
// and --fail-on over both.
import t from 'tap';
import { XMLParser } from 'fast-xml-parser';
import { DEFAULT_THRESHOLDS, newGrader, reportOf } from '../../src/grading/grade.js';
import { failsRun, formatJUnit, formatText } from '../../src/grading/format.js';
import { formatHtml } from '../../src/grading/format-html.js';
import { WalletGrader } from '../../src/grading/wallet/wallet-grader.js';
import type { WalletExchange } from '../../src/grading/wallet/exchange.js';

const KEY = { api_id: 'op', api_key: 'op-key' };
const session = { id: 's1', started_at: new Date(0).toISOString(), seed: null };
const reportWith = (wallet?: WalletGrader) =>
  reportOf(newGrader(DEFAULT_THRESHOLDS), { now: new Date(), scenario: 'proxy-test', session, wallet });

/** A wallet that answered one login with HTTP 500. */
function failingWallet(): WalletGrader {
  const g = new WalletGrader({ clientTimeoutMs: 10_000, credentials: KEY });
  const x: WalletExchange = {
    id: 7,
    user: 'p1',
    event: 'login',
    tx: 'l1',
    body: { transaction_id: 'l1', event_type: 'login', user_id: 'p1' },
    valid: true,
    credentialsOk: true,
    sentHeaders: { apiId: 'op' },
    sentConfiguredKey: true,
    sentAt: 1000,
  };
  g.sent(x);
  g.answered(x, { kind: 'reply', at: 1010, status: 500, headers: { 'content-type': 'text/plain' }, text: 'Internal Server Error' });
  return g;
}

t.test('without a wallet: the provider side only, as before', async (t) => {
  const r = reportWith();
  t.equal(r.checks.length, 14);
  t.ok(r.checks.every((c) => c.side === 'provider'));
  const xml = new XMLParser({ ignoreAttributes: false }).parse(formatJUnit(r, { url: 'u', failOn: 'error' }));
  t.equal(xml.testsuites.testsuite['@_name'], 'wallet-sim certification', 'one suite');
  t.notMatch(formatText(r, { url: 'u', failOn: 'error', colour: false }), "operator's wallet");
});

t.test('with a wallet: 22 checks, two suites, two lists, --fail-on over both', async (t) => {
  const r = reportWith(failingWallet());
  t.equal(r.checks.length, 22);
  t.same(
    r.checks.slice(14).map((c) => [c.id, c.side]),
    [
      ['WALLET_REPLY_VALID', 'wallet'],
      ['WALLET_IDEMPOTENT', 'wallet'],
      ['WALLET_BALANCE_EXACT', 'wallet'],
      ['WALLET_REFUSES_SHORT_BET', 'wallet'],
      ['WALLET_ANSWERS_IN_TIME', 'wallet'],
      ['WALLET_REFUSES_INVALID', 'wallet'],
      ['WALLET_ROUND_RULES', 'wallet'],
      ['WALLET_CONCURRENCY_SAFE', 'wallet'],
    ],
  );
  t.equal(r.summary.fail, 1);
  t.equal(r.summary.pass + r.summary.fail + r.summary.pending + r.summary.not_exercised, 22);
  const valid = r.checks.find((c) => c.id === 'WALLET_REPLY_VALID')!;
  t.equal(valid.status, 'fail');
  t.match(valid.violations[0]!.message, /HTTP 500/);
  t.ok(failsRun(valid, 'error'), 'a failing wallet check fails the run');

  const xml = new XMLParser({ ignoreAttributes: false }).parse(formatJUnit(r, { url: 'u', failOn: 'error' }));
  const suites = xml.testsuites.testsuite as { '@_name': string; '@_failures': string; testcase: unknown[] }[];
  t.same(
    suites.map((s) => [s['@_name'], s.testcase.length, s['@_failures']]),
    [
      ['wallet-sim certification', 14, '0'],
      ['wallet-sim certification: operator wallet', 8, '1'],
    ],
  );
  const text = formatText(r, { url: 'u', failOn: 'error', colour: false });
  t.match(text, "The provider's callback client");
  t.match(text, "The operator's wallet");
  t.match(text, /FAIL: WALLET_REPLY_VALID/);
  const html = formatHtml(r, { url: 'u', failOn: 'error' });
  t.equal(html.match(/<table>/g)?.length, 2, 'two checklists');
  t.match(html, /Internal Server Error/, 'the failing reply is shown as evidence');
});

t.test('one player: the wallet checks of that player only', async (t) => {
  const g = failingWallet();
  const r = reportOf(newGrader(DEFAULT_THRESHOLDS), { now: new Date(), scenario: 's', session, wallet: g, userId: 'p2' });
  t.equal(r.checks.find((c) => c.id === 'WALLET_REPLY_VALID')!.status, 'not_exercised');
});

t.test('proxy mode: the text and the HTML name the wallet under test; without it, no such line', async (t) => {
  const upstream = 'http://wallet.staging:9000/callback?x=<b>';
  const r = reportOf(newGrader(DEFAULT_THRESHOLDS), { now: new Date(), scenario: 's', session, wallet: failingWallet(), upstream });
  const text = formatText(r, { url: 'u', failOn: 'error', colour: false });
  t.match(text.split('\n')[1], `wallet under test: ${upstream}`, 'second line of the header');
  const html = formatHtml(r, { url: 'u', failOn: 'error' });
  t.match(html, 'Wallet under test <b>http://wallet.staging:9000/callback?x=&lt;b&gt;</b>', 'escaped');
  const plain = reportWith();
  t.notMatch(formatText(plain, { url: 'u', failOn: 'error', colour: false }), 'wallet under test');
  t.notMatch(formatHtml(plain, { url: 'u', failOn: 'error' }), 'Wallet under test');
});
