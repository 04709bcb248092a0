// `wallet-sim reconcile` as a user runs it: the built CLI, a real simulator, provider files on disk.
// The simulator runs in this process on a real socket (a `start` spawned cost two seconds of CPU);
// the command is spawned once or twice per behaviour (exit code, the streams), its other cases go
// through its own action in this process (test/helpers/run-here.ts: a spawn costs 0.3 s of CPU).
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import t, { type Test } from 'tap';
import { bet, buildTestApp, HEADERS, listen, login, post, result } from './helpers/app.js';
import { type Ran, run, runAll } from './helpers/spawn-cli.js';
import { runHere } from './helpers/run-here.js';
import { closedPort } from './helpers/net.js';
import { reconcileCommand } from '../src/commands/reconcile.js';
import { ledgerText } from '../src/ledger/format.js';
import { ProviderFileError, readProviderFile } from '../src/reconcile/provider-file.js';
import { LedgerCut, type LedgerEntry } from '../src/ledger/ledger-entry.js';
import { tempDir } from './helpers/temp.js';

const dir = tempDir('wallet-sim-reconcile-');
const usd = { currency: 'USD' };
const HEADER = 'transaction_id,event_type,user_id,game_no,amount,status,round_status';

// The two cases are independent: they run side by side.
t.jobs = 2;

/** A simulator listening on a loopback port, closed after the test. */
async function simulator(tt: Test): Promise<{ url: string }> {
  const { app } = await buildTestApp();
  tt.teardown(() => app.close());
  return { url: await listen(app) };
}

/** `wallet-sim reconcile ...args`, through the command's action in this process. */
const reconcileHere = (args: string[]) => runHere(reconcileCommand(), args);

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

t.test('reconcile against a running simulator: each mismatch kind, an exact match, unresolved rows', async (t) => {
  const sim = await simulator(t);
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
  const reconcile = (kind: string, text: string) => [
    '--url',
    sim.url,
    '--provider',
    file(`${kind.replace(/\W+/g, '-')}.csv`, text),
    '--junit',
    junitOf(kind),
  ];
  // Spawned: an exact match (0) and one mismatch (1), side by side; the rest in this process.
  const [exact, first] = (await runAll([
    ['reconcile', '--url', sim.url, '--provider', file('exact.csv', csv(rows.b1, rows.r1, rows.b2))],
    ['reconcile', ...reconcile(cases[0]![0], cases[0]![1])],
  ])) as [Ran, Ran];
  const agreeJson = await reconcileHere(['--url', sim.url, '--provider', file('exact.json', json)]);
  const ran: { code: number | null; stdout: string }[] = [first];
  for (const [kind, text] of cases.slice(1)) ran.push(await reconcileHere(reconcile(kind, text)));
  t.equal(exact.code, 0, exact.stderr);
  t.match(exact.stdout, /3 wallet row\(s\) .* against 3 provider record\(s\): 0 mismatch\(es\), 0 unresolved — they agree/);
  t.equal(agreeJson.code, 0, 'JSON by its extension; a pending record the wallet never applied is unresolved, not a mismatch');
  t.match(agreeJson.stdout, /0 mismatch\(es\), 1 unresolved/);
  t.match(agreeJson.stdout, /never-sent: pending at the provider/);

  for (const [i, [kind, , shown]] of cases.entries()) {
    const r = ran[i]!;
    t.equal(r.code, 1, `${kind}: exit 1`);
    t.match(r.stdout, shown, `${kind}: in the table`);
    t.match(r.stdout, /they DISAGREE/);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junitOf(kind), 'utf8'));
    const tc = xml.testsuites.testsuite.testcase as { name: string; failure?: unknown }[];
    t.same(
      tc.map((c) => c.name),
      ['MISSING_IN_WALLET', 'UNKNOWN_TO_PROVIDER', 'AMOUNT_MISMATCH', 'ROUND_STATE_MISMATCH', 'FIELD_MISMATCH'],
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
    ['syntax.json', '[\n  {"transaction_id": "t1",\n   "amount": 1,,\n', 'line 3, column 16: expected a field name in double quotes'],
    ['nested.json', '[{"transaction_id": "t1", "amount": {"v": 1}}]', 'line 1, column 37: amount is a nested object or array'],
    [
      'kind.json',
      '[{"transaction_id":"t1","event_type":"login","user_id":"p","game_no":"G","amount":1,"status":"ok"}]',
      'line 1, column 38: event_type must be bet, bet_result',
    ],
    ['table.txt', 'x', 'the format follows the extension: name the file .csv or .json'],
  ];
  const paths = cases.map(([name, text]) => file(name, text));
  // Each file's message, from the reader the command streams the file through (in this process: a
  // CLI start per case cost a second of CPU each); the command itself with two of them below.
  for (const [i, [name, , message]] of cases.entries()) {
    const read = await readProviderFile(paths[i]!, () => {}).then(
      () => undefined,
      (e: Error) => e,
    );
    t.ok(read instanceof ProviderFileError, name);
    t.equal(read?.message.slice(0, `${paths[i]}: ${message}`.length), `${paths[i]}: ${message}`, name);
  }
  // The ledger is read first, then the provider file is streamed through the comparison.
  const sim = await simulator(t);
  const spawned = [0, 5];
  const closed = `http://127.0.0.1:${await closedPort()}`; // not 9: a port fetch refuses (blocked-port.test.ts)
  const ran = await runAll([
    ...spawned.map((i) => ['reconcile', '--url', sim.url, '--provider', paths[i]!]),
    ['reconcile', '--url', closed, '--provider', file('ok.csv', `${HEADER}\n`)],
  ]);
  for (const [k, i] of spawned.entries()) {
    const [name, , message] = cases[i]!;
    const r = ran[k]!;
    t.equal(r.code, 2, name);
    const expected = `wallet-sim reconcile: ${paths[i]}: ${message}`;
    t.equal(r.stderr.trim().split('\n')[0]!.slice(0, expected.length), expected, name);
  }
  const unreachable = ran.at(-1)!;
  t.equal(unreachable.code, 2);
  t.match(unreachable.stderr, new RegExp(`cannot read the ledger: .*is wallet-sim running at ${closed.replace(/\./g, '\\.')}\\?`));
});

t.test("ids a spreadsheet would run: neutralised in the ledger's CSV, read back unchanged; every field compared; --user", async (t) => {
  const sim = await simulator(t);
  const cb = `${sim.url}/callback`;
  const evil = '=HYPERLINK("http://evil.example","x")';
  const b1 = { ...bet(evil, '@G1', [['1', 'P', 10]], usd), transaction_id: '+t1' };
  const b2 = { ...bet(evil, "'G2", [['1', 'P', 0.5]], usd), transaction_id: '-t2' };
  const other = bet('plain', 'G3', [['1', 'P', 1]], usd);
  for (const c of [login(evil), b1, b2, login('plain'), other]) t.equal((await post(cb, c, HEADERS)).body.code, 'R0');

  const res = await fetch(`${sim.url}/admin/ledger?format=csv`);
  const lines = (await res.text()).split('\r\n');
  t.match(
    lines[1],
    /^"'\+t1",bet,"'=HYPERLINK\(""http:\/\/evil\.example"",""x""\)","'@G1",USD,10,/,
    "a leading = + - @ gets a ' and quotes",
  );
  t.match(lines[2], /^"'-t2",bet,"'=HYPERLINK.*","''G2",USD,0\.5,/, "a leading ' gets one too, so the escape undoes exactly");
  t.notOk(/(^|,)[=+\-@]/.test(lines.slice(1).join('\n')), 'no cell begins with a formula character');

  // The provider exported what it sent (as its own system writes it: RFC 4180 quoting only).
  const q = (v: string) => `"${v.replace(/"/g, '""')}"`;
  const own = (u = evil, g = '@G1', e = 'bet', id = '+t1') => `${q(id)},${e},${q(u)},${q(g)},10,ok,open`;
  const b2Line = `-t2,bet,${q(evil)},'G2,0.5,ok,open`;
  const otherLine = `${other.transaction_id},bet,plain,G3,1,ok,open`;
  const csv = (...l: string[]) => [HEADER, ...l].join('\n') + '\n';
  // A provider file made from the ledger's own CSV (its columns renamed): the same escape, read back the same way.
  const fromLedger =
    [
      'transaction_id,event_type,user_id,game_no,currency,amount,status,round_status',
      ...lines
        .slice(1, 4)
        .filter(Boolean)
        .map((l) => {
          const c = l.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
          return [c[0], c[1], c[2], c[3], c[4], c[5], 'ok', c[8]].join(',');
        }),
    ].join('\r\n') + '\r\n';
  // Spawned: the provider's own export agreeing (0) and the fields disagreeing (1, with JUnit);
  // the other files through the command's action in this process.
  const [agree, fields] = (await runAll([
    ['reconcile', '--url', sim.url, '--provider', file('own.csv', csv(own(), b2Line, otherLine))],
    [
      'reconcile',
      '--url',
      sim.url,
      '--provider',
      file('fields.csv', csv(own('someone-else'), b2Line.replace(",'G2,", ',G9,'), otherLine.replace(',bet,', ',bet_result,'))),
      '--junit',
      join(dir, 'fields.xml'),
    ],
  ])) as [Ran, Ran];
  const copied = await reconcileHere(['--url', sim.url, '--provider', file('from-ledger.csv', fromLedger)]);
  const repeat = await reconcileHere(['--url', sim.url, '--provider', file('repeat.csv', csv(own(), b2Line, otherLine, own()))]);
  const onlyEvil = await reconcileHere([
    '--url',
    sim.url,
    '--provider',
    file('only.csv', csv(own(), b2Line, 'x9,bet,nobody,G,1,ok,open')),
    '--user',
    evil,
  ]);
  const onlyEvilMissing = await reconcileHere([
    '--url',
    sim.url,
    '--provider',
    file('only-missing.csv', csv(own(), otherLine)),
    '--user',
    evil,
  ]);
  // evil's record of a transaction the wallet applied for "plain": booked under the wrong player, not missing.
  const onlyEvilWrongPlayer = await reconcileHere([
    '--url',
    sim.url,
    '--provider',
    file('only-wrong-player.csv', csv(own(), b2Line, `${other.transaction_id},bet,${q(evil)},G3,1,ok,open`)),
    '--user',
    evil,
  ]);
  t.equal(agree.code, 0, `ids beginning with = + - @ ' agree with the provider's own export: ${agree.stdout}${agree.stderr}`);
  t.equal(copied.code, 0, `a provider file made from the ledger's CSV agrees too: ${copied.stdout}${copied.stderr}`);

  t.equal(fields.code, 1, 'the same ids and amounts under another user_id, game_no or event_type disagree');
  t.match(fields.stdout, /FIELD_MISMATCH \(3\)/);
  t.match(fields.stdout, /user_id "=HYPERLINK.*" in the wallet, "someone-else" at the provider/);
  t.match(fields.stdout, /game_no "'G2" in the wallet, "G9" at the provider/);
  t.match(fields.stdout, /event_type "bet" in the wallet, "bet_result" at the provider/);
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(join(dir, 'fields.xml'), 'utf8'));
  const tc = xml.testsuites.testsuite.testcase as { name: string; failure?: unknown }[];
  t.same(
    tc.filter((c) => c.failure).map((c) => c.name),
    ['FIELD_MISMATCH'],
    'its own JUnit case',
  );

  t.equal(repeat.code, 2, 'a transaction the wallet applied, listed twice: unreadable');
  t.match(repeat.stderr, /line 5, column 1: transaction_id "\+t1" repeats \(first on line 2\)/);

  t.equal(onlyEvil.code, 0, `--user: that player's rows only; others set aside: ${onlyEvil.stdout}`);
  t.match(onlyEvil.stdout, /for player "=HYPERLINK.*" only: 2 wallet row\(s\) .* against 2 provider record\(s\)/);
  t.match(onlyEvil.stdout, /1 provider record\(s\) of other players set aside/);
  t.equal(onlyEvilMissing.code, 1, "--user: that player's own rows are still compared");
  t.match(onlyEvilMissing.stdout, /UNKNOWN_TO_PROVIDER\s+-t2/);
  t.notMatch(onlyEvilMissing.stdout, new RegExp(other.transaction_id), "another player's row is not the wallet's side here");
  t.equal(onlyEvilWrongPlayer.code, 1, `--user: a record of that player on another player's transaction: ${onlyEvilWrongPlayer.stdout}`);
  t.match(onlyEvilWrongPlayer.stdout, /FIELD_MISMATCH \(1\)/);
  t.match(onlyEvilWrongPlayer.stdout, /user_id "plain" in the wallet, "=HYPERLINK.*" at the provider/);
  t.notMatch(onlyEvilWrongPlayer.stdout, /MISSING_IN_WALLET \(/, 'the wallet applied it, for another player: not missing');
  t.match(onlyEvilWrongPlayer.stdout, /only: 2 wallet row\(s\)/, "the wallet's side is still that player's rows");
});

t.test('a provider file not in UTF-8: named, with how to convert it, exit 2; a UTF-8 BOM is fine', async (t) => {
  const sim = await simulator(t);
  const b = bet('joão', 'G1', [['1', 'P', 1]], usd);
  t.equal((await post(`${sim.url}/callback`, b, HEADERS)).body.code, 'R0');
  const text = `${HEADER}\n${b.transaction_id},bet,joão,G1,1,ok,open\n`;
  const utf16be = Buffer.from(text, 'utf16le').swap16();
  const utf32le = Buffer.alloc(text.length * 4);
  [...text].forEach((c, i) => utf32le.writeUInt32LE(c.codePointAt(0)!, i * 4));
  const cases: [string, Buffer, number, RegExp][] = [
    ['utf8.csv', Buffer.from(text), 0, /they agree/],
    ['utf8-bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 0, /they agree/],
    [
      'latin1.csv',
      Buffer.from(text, 'latin1'),
      2,
      /line 2, column \d+: byte 0xE3 is not UTF-8 \(a Latin-1 \/ Windows-1252 file\?\).*iconv -f WINDOWS-1252 -t UTF-8/,
    ],
    [
      'utf16le.csv',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
      2,
      /is UTF-16 LE \(it begins with the byte order mark FF FE\).*iconv -f UTF-16LE -t UTF-8/,
    ],
    ['utf16be.csv', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be]), 2, /is UTF-16 BE .*FE FF.*iconv -f UTF-16BE/],
    ['utf32le.csv', Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), utf32le]), 2, /is UTF-32 LE .*FF FE 00 00.*iconv -f UTF-32LE/],
    ['utf16-no-bom.csv', Buffer.from(text, 'utf16le'), 2, /line 1, column 2: a NUL byte: .*UTF-16 or UTF-32 without a byte order mark/],
    ['invalid.json', Buffer.from('[{"transaction_id":"t\xff"}]', 'latin1'), 2, /line 1, column 22: byte 0xFF is not UTF-8/],
  ];
  // The command where the outcome differs: agreeing (plain and with a BOM) through its action in
  // this process, one refusal spawned end to end; every other refusal's message from the reader the
  // command streams the file through, in this process.
  const args = (i: number) => ['--url', sim.url, '--provider', file(cases[i]![0], cases[i]![1] as unknown as string)];
  const ran = [await reconcileHere(args(0)), await reconcileHere(args(1)), await run(['reconcile', ...args(2)])];
  for (const [i, [name, , code, shown]] of cases.entries()) {
    if (i < ran.length) {
      t.equal(ran[i]!.code, code, `${name}: exit ${code}: ${ran[i]!.stderr}`);
      t.match(code ? ran[i]!.stderr : ran[i]!.stdout, shown, name);
      continue;
    }
    const read = await readProviderFile(file(name, cases[i]![1] as unknown as string), () => {}).then(
      () => undefined,
      (e: Error) => e,
    );
    t.ok(read instanceof ProviderFileError, name);
    t.match(read?.message, shown, name);
  }
});

t.test('a ledger whose read a reset cut short: exit 2, run it again', async (t) => {
  // The route's own text for a read a reset overtook after one batch (test/ledger-stream.test.ts makes one over a real socket).
  async function* cut(): AsyncGenerator<LedgerEntry[]> {
    yield [
      {
        transaction_id: 't1',
        event_type: 'bet',
        user_id: 'p',
        game_no: 'G1',
        currency: 'USD',
        amount: '1',
        balance_after: '9',
        applied_at: new Date().toISOString(),
        round_status: 'open',
      },
    ];
    throw new LedgerCut();
  }
  let text = '';
  for await (const s of ledgerText(cut(), 'csv')) text += s;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', 'x-ledger-complete': 'true' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const r = await run([
    'reconcile',
    '--url',
    `http://127.0.0.1:${port}`,
    '--provider',
    file('cut.csv', `${HEADER}\nt1,bet,p,G1,1,ok,open\n`),
  ]);
  t.equal(r.code, 2, r.stdout);
  t.match(
    r.stderr,
    /cannot read the ledger: the ledger was cut short: the wallet was reset while it was read \(POST \/admin\/reset\); run reconcile again/,
  );
});

t.test('a ledger reply cut off at the transport (no last chunk): exit 2, run it again, never a crash', async (t) => {
  // What GET /admin/ledger does when a reset overtakes the read (test/ledger-cut.test.ts): the chunked reply is never finished.
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', 'x-ledger-complete': 'true' });
    res.write('transaction_id,event_type,user_id,game_no,currency,amount,balance_after,applied_at,round_status\r\n', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const r = await run(['reconcile', '--url', `http://127.0.0.1:${port}`, '--provider', file('cut2.csv', `${HEADER}\n`)]);
  t.equal(r.code, 2, r.stdout);
  t.match(
    r.stderr,
    /cannot read the ledger: .*cut off before its end.*was the wallet reset \(POST \/admin\/reset\) while its ledger was read\? Run it again/,
  );
  t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
});
