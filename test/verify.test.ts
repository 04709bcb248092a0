import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import t from 'tap';
import type { JournalEntry } from '../src/journal/journal.js';
import { ROOT } from '../src/kernel/paths.js';
import type { Expectations } from '../src/protocol/types.generated.js';
import { AdminClient, AdminError } from '../src/verify/admin-client.js';
import { checkExpectations } from '../src/verify/expectations.js';
import { formatVerifyReport, verifyJUnit } from '../src/verify/report.js';
import { verify } from '../src/verify/verify.js';
import { bet, buildTestApp, login, result, send } from './helpers/app.js';

const run = promisify(execFile);
const CLI = join(ROOT, 'dist/src/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-verify-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** A simulator on a real port with one worked round of player-1, a refused bet of usd and a bad-totals bet. */
async function simulatorWithTraffic(options: { adminToken?: string } = {}) {
  const { app, sim } = await buildTestApp({}, options);
  await send(app, login('player-1'));
  await send(
    app,
    bet('player-1', 'G1', [
      ['1', 'P', 10000],
      ['2', 'PP', 5000],
    ]),
  );
  await send(
    app,
    result('player-1', 'G1', [
      ['1', 'P', 10000, 10000],
      ['2', 'PP', 5000, -5000],
    ]),
  );
  await send(app, bet('usd', 'G2', [['1', 'P', 500]], { currency: 'USD' })); // 100 USD: R4
  await send(app, bet('usd', 'G3', [['1', 'P', 1]], { currency: 'USD', total: 2 })); // R3, TOTAL_MISMATCH
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { app, sim, url };
}

const HOLDS: Expectations = {
  counts: [
    { where: { user_id: 'player-1', event_type: 'bet' }, count: 1 },
    { where: { game_no: 'G1' }, count: 2 },
    { name: 'every callback', min: 5, max: 5 },
    { where: { event_type: 'bet_result', code: 'R0' } },
  ],
  codes: [
    { where: { user_id: 'player-1' }, code: 'R0' },
    { where: { user_id: 'usd', event_type: 'bet' }, code: ['R3', 'R4'] },
  ],
  balances: [
    { user_id: 'player-1', balance: 1005000, currency: 'KRW' },
    { user_id: 'usd', balance: '100.00' },
  ],
  findings: { allow: ['TOTAL_MISMATCH'] },
};

t.test('a real simulator with traffic: expectations that hold', async (t) => {
  const { app, url } = await simulatorWithTraffic();
  t.teardown(() => app.close());
  const outcome = await verify(checkExpectations(HOLDS), new AdminClient(url));
  t.equal(outcome.entries, 5);
  t.same(
    outcome.results.filter((r) => !r.passed),
    [],
    formatVerifyReport(url, outcome),
  );
  t.same(
    outcome.results.map((r) => r.name),
    [
      'counts[0] user_id=player-1 event_type=bet',
      'counts[1] game_no=G1',
      'every callback',
      'counts[3] event_type=bet_result code=R0',
      'codes[0] user_id=player-1',
      'codes[1] user_id=usd event_type=bet',
      'balance of player-1',
      'balance of usd',
      'findings: no finding of severity error (allowed: TOTAL_MISMATCH)',
    ],
  );
});

t.test('a real simulator with traffic: each kind of expectation that does not hold, with a readable diff', async (t) => {
  const { app, url } = await simulatorWithTraffic();
  t.teardown(() => app.close());
  const outcome = await verify(
    checkExpectations({
      counts: [{ where: { user_id: 'player-1', event_type: 'bet' }, count: 2 }, { where: { user_id: 'ghost' } }],
      codes: [
        { where: { user_id: 'usd' }, code: 'R0' },
        { where: { game_no: 'nope' }, code: 'R0' },
      ],
      balances: [
        { user_id: 'player-1', balance: '1005000.5' },
        { user_id: 'usd', balance: 100, currency: 'KRW' },
        { user_id: 'ghost', balance: 1 },
      ],
    }),
    new AdminClient(url),
  );
  const byName = Object.fromEntries(outcome.results.map((r) => [r.name, r]));
  t.match(byName['counts[0] user_id=player-1 event_type=bet'], {
    passed: false,
    message: 'expected exactly 2, got 1',
    details: [/#2 bet player-1 bet-\S+ → R0/],
  });
  t.match(byName['counts[1] user_id=ghost'], { passed: false, message: 'expected at least 1, got 0' });
  t.match(byName['codes[0] user_id=usd'], {
    passed: false,
    message: 'expected R0; 2 of 2 got R4, R3',
    details: [/→ R4 \(R4: balance 100 is less than total_bet_amount 500\)/, /→ R3 \(R3: total_bet_amount 2 != sum/],
  });
  t.match(byName['codes[1] game_no=nope'], { passed: false, message: 'expected R0, but no callback matched' });
  t.match(byName['balance of player-1'], { passed: false, message: 'expected 1005000.5, got 1005000 (-0.5)' });
  t.match(byName['balance of usd'], { passed: false, message: 'expected currency KRW, got USD' });
  t.match(byName['balance of ghost'], { passed: false, message: 'expected 1, but the simulator has no player ghost' });
  const findings = outcome.results.at(-1)!;
  t.match(findings, { name: 'findings: no finding of severity error', passed: false, message: '1 finding in 1 callback' });
  t.match(findings.details, [
    /#5 bet usd/,
    /^ {4}error TOTAL_MISMATCH at \/data\/total_bet_amount: total_bet_amount 2 != sum of bets\[\]\.bet_amount 1$/,
  ]);
  const text = formatVerifyReport(url, outcome);
  t.match(text, /^✗ balance of player-1: expected 1005000\.5, got 1005000 \(-0\.5\)$/m);
  t.match(text, /8 expectations: 0 held, 8 failed$/);
});

t.test('findings: fail_on, allow, forbid and where', async (t) => {
  const { app, url } = await simulatorWithTraffic();
  t.teardown(() => app.close());
  const admin = new AdminClient(url);
  const check = async (findings: Expectations['findings']) => (await verify({ findings }, admin)).results.at(-1)!;
  t.equal((await check({ fail_on: 'none' })).passed, true);
  t.equal((await check({ where: { user_id: 'player-1' } })).passed, true, 'player-1 sent nothing wrong');
  t.match(await check({ fail_on: 'none', forbid: ['TOTAL_MISMATCH'] }), { passed: false, name: 'findings: none of TOTAL_MISMATCH' });
  t.match(await check({ fail_on: 'info', allow: ['TOTAL_MISMATCH'] }), {
    passed: true,
    name: 'findings: no finding of severity info or worse (allowed: TOTAL_MISMATCH)',
  });
});

t.test('the admin token', async (t) => {
  const { app, url } = await simulatorWithTraffic({ adminToken: 's3cret' });
  t.teardown(() => app.close());
  await t.rejects(
    verify({}, new AdminClient(url)),
    new AdminError(`GET ${url}/admin/journal: 401, the admin API is locked: pass --admin-token (or WALLET_SIM_ADMIN_TOKEN)`),
  );
  const outcome = await verify({}, new AdminClient(url, 's3cret'));
  t.equal(outcome.entries, 5);
});

/** A fake admin API: any journal, any player replies (raw text), to test what a real simulator never sends. */
async function fakeAdmin(entries: Partial<JournalEntry>[], players: Record<string, string>) {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/admin/journal'))
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: entries.length, entries }));
    const m = /^\/admin\/players\/(.+)$/.exec(req.url ?? '');
    const player = m && players[decodeURIComponent(m[1]!)];
    if (player) return res.writeHead(200, { 'content-type': 'application/json' }).end(player);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"PLAYER_UNKNOWN"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

const entry = (id: number, e: Partial<JournalEntry>): Partial<JournalEntry> => ({
  id,
  received_at: '2025-01-01T00:00:00Z',
  duration_ms: 1,
  replayed: false,
  findings: [],
  request: { method: 'POST', url: '/callback', headers: {}, body: { data: { game_no: 'R1', table_no: 'T9' } } },
  reply: { status: 200, headers: {}, body: {}, dropped: false },
  ...e,
});

t.test('a fake admin server: crafted journal, exact balance compare from the raw reply text', async (t) => {
  const admin = await fakeAdmin(
    [
      entry(1, { event_type: 'bet', user_id: 'p', transaction_id: 'a', code: 'R0' }),
      entry(2, {
        event_type: 'bet',
        user_id: 'p',
        transaction_id: 'a',
        code: 'R0',
        replayed: true,
        findings: [{ code: 'TRANSACTION_REPLAYED', severity: 'info', message: 'replayed' }],
      }),
      entry(3, {
        event_type: 'bet_result',
        user_id: 'p',
        transaction_id: 'b',
        code: 'R3',
        rule: { index: 0, name: 'force-r3' },
        findings: [
          { code: 'CALLBACK_URL_MISSING', severity: 'warning', message: 'Callback-URL header is missing', pointer: 'header:Callback-URL' },
        ],
      }),
      entry(4, { reply: { status: 413, headers: {}, body: {}, dropped: false }, reason: 'FST_ERR_CTP_BODY_TOO_LARGE' }),
    ],
    {
      p: '{"user_id":"p","balance":0.30000000000000004,"currency":"USD"}',
      big: '{"user_id":"big","balance":12345678901234567.89,"currency":"USD"}',
    },
  );
  t.teardown(admin.close);
  const outcome = await verify(
    checkExpectations({
      counts: [
        { where: { replayed: true }, count: 1 },
        { where: { replayed: false, event_type: 'bet' }, count: 1 },
        { where: { rule: 'force-r3', table_no: 'T9' }, count: 1 },
        { count: 4 },
      ],
      codes: [{ where: { event_type: 'bet_result' }, code: 'R0' }, { code: 'R0' }],
      balances: [
        { user_id: 'p', balance: '0.3' },
        { user_id: 'big', balance: '12345678901234567.89' },
      ],
      findings: { fail_on: 'warning' },
    }),
    new AdminClient(`${admin.url}/`),
  );
  const failed = outcome.results.filter((r) => !r.passed).map((r) => [r.name, r.message]);
  t.same(
    failed,
    [
      ['codes[0] event_type=bet_result', 'expected R0; 1 of 1 got R3'],
      ['codes[1] all callbacks', 'expected R0; 2 of 4 got R3, HTTP 413'],
      ['balance of p', 'expected 0.3, got 0.30000000000000004 (+0.00000000000000004)'],
      ['findings: no finding of severity warning or worse', '1 finding in 1 callback'],
    ],
    'a float-ish balance is caught; a 17-digit one is compared exactly',
  );
});

t.test('expectations files are validated by their schema', async (t) => {
  t.throws(
    () =>
      checkExpectations(
        { counts: [{ wher: {} }], balances: [{ user_id: 'x', balance: '1,5' }], findings: { fail_on: 'fatal' } },
        'ci.json',
      ),
    { name: 'ExpectationsError' },
  );
  try {
    checkExpectations({ counts: [{ wher: {} }], codes: [{ code: 'R9' }], findings: { fail_on: 'fatal' } }, 'ci.json');
  } catch (e) {
    t.match(
      (e as Error).message,
      /^ci\.json: \/counts\/0\/wher is not an allowed property \(did you mean where\?\); allowed here: name, where, count, min, max$/m,
    );
    t.match((e as Error).message, /^ci\.json: \/findings\/fail_on must be one of "error", "warning", "info", "none"$/m);
    t.match((e as Error).message, /^ci\.json: \/codes\/0\/code/m);
  }
  t.same(checkExpectations({ $schema: '../schemas/expectations.schema.json' }), { $schema: '../schemas/expectations.schema.json' });
  t.throws(() => checkExpectations({ balances: { 'player-1': 100 } }, 'ci.json'), {
    message: 'ci.json: /balances must be an array of objects, e.g. [{ "user_id": …, "balance": … }]',
  });
});

t.test('JUnit output parses as XML, one testcase per expectation', async (t) => {
  const { app, url } = await simulatorWithTraffic();
  t.teardown(() => app.close());
  const outcome = await verify(checkExpectations({ ...HOLDS, balances: [{ user_id: 'usd', balance: '99.99' }] }), new AdminClient(url));
  const xml = verifyJUnit(url, outcome, new Date().toISOString(), 0.1);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
  const suite = doc.testsuites.testsuite;
  t.equal(Number(suite.tests), outcome.results.length);
  t.equal(Number(suite.failures), 1);
  const failedCase = (suite.testcase as { name: string; classname: string; failure?: { message: string } }[]).find((c) => c.failure);
  t.match(failedCase, {
    name: 'balance of usd',
    classname: 'wallet-sim.verify.balances',
    failure: { message: 'expected 99.99, got 100 (+0.01)' },
  });
});

t.test('the built CLI: exit 0, 1, 2 and a JUnit file', async (t) => {
  const { app, url } = await simulatorWithTraffic({ adminToken: 'tok' });
  t.teardown(() => app.close());
  const good = join(dir, 'good.json');
  const bad = join(dir, 'bad.json');
  const junit = join(dir, 'verify.xml');
  writeFileSync(good, JSON.stringify(HOLDS));
  writeFileSync(bad, JSON.stringify({ balances: [{ user_id: 'player-1', balance: 1 }] }));
  const env = { ...process.env, WALLET_SIM_ADMIN_TOKEN: 'tok' };
  const ok = await run(process.execPath, [CLI, 'verify', '--url', url, '--expect', good, '--junit', junit], { env });
  t.match(ok.stdout, /9 expectations: 9 held, 0 failed/);
  t.match(readFileSync(junit, 'utf8'), /<testsuite name="wallet-sim verify" tests="9" failures="0"/);
  const failed = await run(process.execPath, [CLI, 'verify', '--url', url, '--expect', bad, '--admin-token', 'tok']).catch(
    (e: { code: number; stdout: string }) => e,
  );
  t.equal((failed as { code?: number }).code, 1);
  t.match(failed.stdout, /✗ balance of player-1: expected 1, got 1005000 \(\+1004999\)/);
  const locked = await run(process.execPath, [CLI, 'verify', '--url', url, '--expect', good], {
    env: { ...process.env, WALLET_SIM_ADMIN_TOKEN: '' },
  }).catch((e: { code: number; stderr: string }) => e);
  t.equal((locked as { code?: number }).code, 2);
  t.match(locked.stderr, /401, the admin API is locked/);
});
