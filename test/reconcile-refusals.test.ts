// `wallet-sim reconcile` refusing what it cannot read, and saying what to do: a directory named
// .csv, a repeated CSV column, a typo in --user, a semicolon-separated export, a callback URL as
// --url, nested JSON. Against a real simulator on a real socket and files on disk; one spawn per
// behaviour only a process shows (the exit code, no stack trace), the rest through the action here.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bet, buildTestApp, HEADERS, listen, login, post } from './helpers/app.js';
import { run } from './helpers/spawn-cli.js';
import { runHere } from './helpers/run-here.js';
import { reconcileCommand } from '../src/commands/reconcile.js';
import { tempDir } from './helpers/temp.js';

const dir = tempDir('wallet-sim-reconcile-refusals-');
const HEADER = 'transaction_id,event_type,user_id,game_no,amount,status';
const usd = { currency: 'USD' };

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** A simulator with one player (`ops`) and one bet of 10 USD, listening on a loopback port. */
async function simulator(tt: Test): Promise<{ url: string; txid: string }> {
  const { app } = await buildTestApp();
  tt.teardown(() => app.close());
  const url = await listen(app);
  const b = bet('ops', 'G1', [['1', 'P', 10]], usd);
  for (const c of [login('ops'), b]) tt.equal((await post(`${url}/callback`, c, HEADERS)).body.code, 'R0');
  return { url, txid: b.transaction_id };
}

const reconcileHere = (args: string[]) => runHere(reconcileCommand(), args);

t.test('a directory named .csv or .json: "is a directory", exit 2, never a crash', async (t) => {
  const sim = await simulator(t);
  const csvDir = join(dir, 'dir.csv');
  const jsonDir = join(dir, 'dir.json');
  mkdirSync(csvDir);
  mkdirSync(jsonDir);
  const spawned = await run(['reconcile', '--url', sim.url, '--provider', csvDir]);
  t.equal(spawned.code, 2, 'exit 2: unreadable, not 1 (a disagreement)');
  t.equal(spawned.stderr.trim(), `wallet-sim reconcile: ${csvDir}: is a directory: give the path of a file in it`);
  const json = await reconcileHere(['--url', sim.url, '--provider', jsonDir]);
  t.equal(json.code, 2);
  t.equal(json.stderr.trim(), `wallet-sim reconcile: ${jsonDir}: is a directory: give the path of a file in it`);
});
t.test('a column named twice in the CSV header: refused naming it and both places, exit 2', async (t) => {
  const sim = await simulator(t);
  const path = file('twice.csv', `${HEADER},amount\n${sim.txid},bet,ops,G1,10,ok,99\n`);
  const r = await reconcileHere(['--url', sim.url, '--provider', path]);
  t.equal(r.code, 2, r.stdout);
  t.equal(
    r.stderr.trim(),
    `wallet-sim reconcile: ${path}: line 1, column ${HEADER.length + 2}: the column "amount" appears twice in the header line (columns 5 and 7): ` +
      'keep one of them',
  );
  t.notMatch(r.stdout, /AMOUNT_MISMATCH/, 'nothing compared');
});

t.test('--user naming no player the wallet holds: exit 2 naming the players it has; "" refused', async (t) => {
  const sim = await simulator(t);
  const path = file('user.csv', `${HEADER}\n${sim.txid},bet,ops,G1,10,ok\n`);
  const typo = await run(['reconcile', '--url', sim.url, '--provider', path, '--user', 'opz']);
  t.equal(typo.code, 2, typo.stdout);
  t.match(
    typo.stderr.trim(),
    /^wallet-sim reconcile: --user opz: the wallet has no player of that user_id, so there is nothing to compare; it has [^:]*\bops: give one of them, or leave --user out to reconcile every player$/,
  );
  t.equal(typo.stdout, '', 'no verdict printed');
  const empty = await reconcileHere(['--url', sim.url, '--provider', path, '--user', '']);
  t.equal(empty.code, 2);
  t.equal(
    empty.stderr.trim(),
    'wallet-sim reconcile: --user needs a user_id (leave --user out to reconcile every player); nothing was read',
  );
  const known = await reconcileHere(['--url', sim.url, '--provider', path, '--user', 'ops']);
  t.equal(known.code, 0, known.stderr);
  t.match(known.stdout, /for player "ops" only: 1 wallet row\(s\) .* against 1 provider record\(s\): 0 mismatch\(es\)/);
  // A player the wallet holds with no row yet is compared (a provider's record of it is MISSING_IN_WALLET).
  t.equal((await post(`${sim.url}/callback`, login('fresh'), HEADERS)).body.code, 'R0');
  const fresh = await reconcileHere([
    '--url',
    sim.url,
    '--provider',
    file('fresh.csv', `${HEADER}\nx1,bet,fresh,G1,1,ok\n`),
    '--user',
    'fresh',
  ]);
  t.equal(fresh.code, 1, fresh.stderr);
  t.match(fresh.stdout, /MISSING_IN_WALLET\s+x1/);
});

t.test('messages with the next step: a semicolon-separated export, a callback URL or another server as --url', async (t) => {
  const sim = await simulator(t);
  const semi = (name: string, text: string) => reconcileHere(['--url', sim.url, '--provider', file(name, text)]);
  const oneColumn = await semi('semi.csv', `${HEADER.replace(/,/g, ';')}\n${sim.txid};bet;ops;G1;10,5;ok\n`);
  t.equal(oneColumn.code, 2);
  t.match(
    oneColumn.stderr,
    /line 2, column \d+: has 2 fields, the header line has 1: every line needs one per column; the header line holds ';': the delimiter must be a comma \(export again as comma-separated CSV\)/,
  );
  const headerOnly = await semi('semi-empty.csv', `${HEADER.replace(/,/g, ';')}\n`);
  t.equal(headerOnly.code, 2);
  t.match(headerOnly.stderr, /the header line lacks the columns .*; the header line holds ';': the delimiter must be a comma/);

  const html = createServer((_req, res) =>
    res.writeHead(_req.url?.startsWith('/gone') ? 404 : 500, { 'content-type': 'text/html' }).end('<html><body>Oops</body></html>'),
  );
  await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
  t.teardown(() => html.close());
  const other = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
  const provider = file('plain.csv', `${HEADER}\n`);
  const [callback, missing, broken] = [
    await reconcileHere(['--url', `${sim.url}/callback`, '--provider', provider]),
    await reconcileHere(['--url', `${other}/gone`, '--provider', provider]),
    await reconcileHere(['--url', other, '--provider', provider]),
  ];
  const wanted = "--url wants the simulator's base URL (e.g. http://127.0.0.1:8080), not the callback path";
  t.equal(callback.code, 2);
  t.equal(
    callback.stderr.trim(),
    `wallet-sim reconcile: cannot read the ledger: GET ${sim.url}/callback/admin/ledger: HTTP 404; --url wants the simulator's base URL, not its callback URL: --url ${sim.url}`,
  );
  t.equal(missing.code, 2);
  t.equal(missing.stderr.trim(), `wallet-sim reconcile: cannot read the ledger: GET ${other}/gone/admin/ledger: HTTP 404; ${wanted}`);
  t.equal(broken.code, 2);
  t.match(broken.stderr, `HTTP 500; not an answer of wallet-sim's admin API: is ${other} the simulator's base URL`);
  t.notMatch(broken.stderr + missing.stderr, /<html>/, 'no page dumped');
});

t.test('a nested JSON value: passed over in a field reconcile does not read, refused by name in one it reads', async (t) => {
  const sim = await simulator(t);
  const record = (extra: string) =>
    `[{"transaction_id":"${sim.txid}","event_type":"bet","user_id":"ops","game_no":"G1","amount":"10","status":"ok",${extra}}]`;
  const ignored = await reconcileHere([
    '--url',
    sim.url,
    '--provider',
    file('extra.json', record('"extra":{"x":1,"y":[2,"]}",{"z":null}]},"tags":["a","b"]')),
  ]);
  t.equal(ignored.code, 0, ignored.stderr);
  t.match(ignored.stdout, /1 wallet row\(s\) .* against 1 provider record\(s\): 0 mismatch\(es\), 0 unresolved — they agree/);
  const path = file('read.json', record('"currency":{"code":"USD"}'));
  const read = await reconcileHere(['--url', sim.url, '--provider', path]);
  t.equal(read.code, 2);
  t.equal(
    read.stderr.trim(),
    `wallet-sim reconcile: ${path}: line 1, column ${record('"currency":{').indexOf('"currency":{') + '"currency":'.length + 1}: currency is a nested object or array: it must be a string or a number`,
  );
  const open = file('open.json', record('"extra":{"x":[1,2}'));
  const broken = await reconcileHere(['--url', sim.url, '--provider', open]);
  t.equal(broken.code, 2);
  t.match(broken.stderr, /expected "\]", found "\}"/);
});

t.test('a timestamp in milliseconds: refused naming it, never dated in the year 58,000', async (t) => {
  const sim = await simulator(t);
  const ms = file('ms.csv', `${HEADER},timestamp\n${sim.txid},bet,ops,G1,10,ok,1796042953000\n`);
  const r = await reconcileHere(['--url', sim.url, '--provider', ms]);
  t.equal(r.code, 2, r.stdout);
  t.match(r.stderr, /timestamp 1796042953000 is after the year 5000 as Unix seconds: milliseconds\? write seconds \(divide by 1000\)/);
  const seconds = file('s.csv', `${HEADER},timestamp\n${sim.txid},bet,ops,G1,10,ok,1796042953\n`);
  t.equal((await reconcileHere(['--url', sim.url, '--provider', seconds])).code, 0, 'in seconds: compared, and they agree');
});
