// `wallet-sim reconcile` as a user runs it: the built CLI, a real simulator, provider files on disk.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import { bet, HEADERS, login, post, result } from './helpers/app.js';
import { runAll, start } from './helpers/spawn-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-reconcile-'));
const usd = { currency: 'USD' };
const HEADER = 'transaction_id,event_type,user_id,game_no,amount,status,round_status';

// The two cases are independent: they run side by side.
t.jobs = 2;

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

t.test('reconcile against a running simulator: each mismatch kind, an exact match, unresolved rows', async (t) => {
  const sim = await start(t, ['--port', '0', '--log-level', 'warn']);
  const cb = `${sim.url}/callback`;
  const b1 = bet('rec', 'G1', [['1', 'P', 10.1]], usd);
  const r1 = result('rec', 'G1', [['1', 'P', 10.1, 5]], usd);
  const b2 = bet('rec', 'G2', [['1', 'P', 2]], usd);
  for (const c of [login('rec'), b1, r1, b2]) t.equal((await post(cb, c, HEADERS)).body.code, 'R0');
  const rows = {
    b1: `${b1.transaction_id},bet,rec,G1,10.10,ok,settled`,
    r1: `${r1.transaction_id},bet_result,rec,G1,15.1,ok,settled`,
    b2: `${b2.transaction_id},bet,rec,G2,2,ok,open`,
  };
  const csv = (...lines: string[]) => [HEADER, ...lines].join('\n') + '\n';

  const json = JSON.stringify([
    { transaction_id: b1.transaction_id, event_type: 'bet', user_id: 'rec', game_no: 'G1', amount: 10.1, status: 'ok' },
    { transaction_id: r1.transaction_id, event_type: 'bet_result', user_id: 'rec', game_no: 'G1', amount: '15.10', status: 'ok' },
    { transaction_id: b2.transaction_id, event_type: 'bet', user_id: 'rec', game_no: 'G2', amount: 2, status: 'ok', round_status: 'open' },
    { transaction_id: 'never-sent', event_type: 'bet', user_id: 'rec', game_no: 'G3', amount: 1, status: 'pending' },
    { transaction_id: 'refused', event_type: 'bet', user_id: 'rec', game_no: 'G4', amount: 1, status: 'failed' },
  ]);
  const cases: [string, string, RegExp][] = [
    ['MISSING_IN_WALLET', csv(rows.b1, rows.r1, rows.b2, 'ghost,bet,rec,G9,5,ok,open'), /MISSING_IN_WALLET\s+ghost\s+bet\s+rec\s+G9/],
    ['UNKNOWN_TO_PROVIDER (no record)', csv(rows.b1, rows.r1), new RegExp(`UNKNOWN_TO_PROVIDER\\s+${b2.transaction_id}`)],
    [
      'UNKNOWN_TO_PROVIDER (failed)',
      csv(rows.b1, rows.r1.replace(',ok,', ',failed,'), rows.b2),
      new RegExp(`UNKNOWN_TO_PROVIDER\\s+${r1.transaction_id}`),
    ],
    ['UNKNOWN_TO_PROVIDER (pending)', csv(rows.b1, rows.r1, rows.b2.replace(',ok,', ',pending,')), /UNKNOWN_TO_PROVIDER/],
    ['AMOUNT_MISMATCH', csv(rows.b1.replace('10.10', '10.11'), rows.r1, rows.b2), /AMOUNT_MISMATCH\s+.*10\.1 USD.*10\.11/],
    ['ROUND_STATE_MISMATCH', csv(rows.b1, rows.r1, rows.b2.replace(',open', ',settled')), /ROUND_STATE_MISMATCH\s+.*G2/],
  ];
  const junitOf = (kind: string) => join(dir, `${kind.replace(/\W+/g, '-')}.xml`);
  // Every run reads the same ledger: side by side, two at a time.
  const [exact, agreeJson, ...ran] = await runAll([
    ['reconcile', '--url', sim.url, '--provider', file('exact.csv', csv(rows.b1, rows.r1, rows.b2))],
    ['reconcile', '--url', sim.url, '--provider', file('exact.json', json)],
    ...cases.map(([kind, text]) => [
      'reconcile',
      '--url',
      sim.url,
      '--provider',
      file(`${kind.replace(/\W+/g, '-')}.csv`, text),
      '--junit',
      junitOf(kind),
    ]),
  ]);
  t.equal(exact!.code, 0, exact!.stderr);
  t.match(exact!.stdout, /3 wallet row\(s\) .* against 3 provider record\(s\): 0 mismatch\(es\), 0 unresolved — they agree/);
  t.equal(agreeJson!.code, 0, 'JSON by its extension; a pending record the wallet never applied is unresolved, not a mismatch');
  t.match(agreeJson!.stdout, /0 mismatch\(es\), 1 unresolved/);
  t.match(agreeJson!.stdout, /never-sent: pending at the provider/);

  for (const [i, [kind, , shown]] of cases.entries()) {
    const r = ran[i]!;
    t.equal(r.code, 1, `${kind}: exit 1`);
    t.match(r.stdout, shown, `${kind}: in the table`);
    t.match(r.stdout, /they DISAGREE/);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junitOf(kind), 'utf8'));
    const tc = xml.testsuites.testsuite.testcase as { name: string; failure?: unknown }[];
    t.same(
      tc.map((c) => c.name),
      ['MISSING_IN_WALLET', 'UNKNOWN_TO_PROVIDER', 'AMOUNT_MISMATCH', 'ROUND_STATE_MISMATCH'],
      'one test case per mismatch kind',
    );
    t.same(
      tc.filter((c) => c.failure).map((c) => c.name),
      [kind.replace(/ \(.*/, '')],
      `${kind}: only its case fails`,
    );
  }
});

t.test('a malformed provider file: line and column, exit 2', async (t) => {
  const cases: [string, string, string][] = [
    [
      'amount.csv',
      `${HEADER}\nt1,bet,p,G1,12.5,ok,open\nt2,bet,p,G1,1e3,ok,open\n`,
      'line 3, column 13: amount "1e3" is not a decimal number',
    ],
    ['status.csv', `${HEADER}\nt1,bet,p,G1,12.5,done,open\n`, 'line 2, column 18: status must be ok, failed, pending, not "done"'],
    ['fields.csv', `${HEADER}\nt1,bet,p,G1\n`, 'line 2, column 12: has 4 fields, the header line has 7'],
    ['quote.csv', `${HEADER}\n"t1,bet,p,G1,1,ok,open\n`, 'line 2, column 1: a quoted field is never closed'],
    ['columns.csv', 'transaction_id,amount\n', 'line 1, column 1: the header line lacks the columns event_type, user_id, game_no, status'],
    [
      'repeat.csv',
      `${HEADER}\nt1,bet,p,G1,1,ok,open\nt1,bet,p,G1,1,ok,open\n`,
      'line 3, column 1: transaction_id "t1" repeats (first on line 2)',
    ],
    ['syntax.json', '[\n  {"transaction_id": "t1",\n   "amount": 1,,\n', 'line 3, column 16: expected a field name in double quotes'],
    ['nested.json', '[{"transaction_id": "t1", "amount": {"v": 1}}]', 'line 1, column 37: a nested object or array'],
    [
      'kind.json',
      '[{"transaction_id":"t1","event_type":"login","user_id":"p","game_no":"G","amount":1,"status":"ok"}]',
      'line 1, column 38: event_type must be bet, bet_result',
    ],
    ['table.txt', 'x', 'the format follows the extension: name the file .csv or .json'],
  ];
  const paths = cases.map(([name, text]) => file(name, text));
  const ran = await runAll([
    ...paths.map((path) => ['reconcile', '--url', 'http://127.0.0.1:9', '--provider', path]),
    ['reconcile', '--url', 'http://127.0.0.1:9', '--provider', file('ok.csv', `${HEADER}\n`)],
  ]);
  for (const [i, [name, , message]] of cases.entries()) {
    const r = ran[i]!;
    t.equal(r.code, 2, name);
    const expected = `wallet-sim reconcile: ${paths[i]}: ${message}`;
    t.equal(r.stderr.trim().split('\n')[0]!.slice(0, expected.length), expected, name);
  }
  const unreachable = ran.at(-1)!;
  t.equal(unreachable.code, 2);
  t.match(unreachable.stderr, /cannot read the ledger: .*is wallet-sim running at http:\/\/127\.0\.0\.1:9\?/);
});
