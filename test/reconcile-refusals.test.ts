// `wallet-sim reconcile` refusing what it cannot read, and saying what to do: a directory named
// .csv, a repeated CSV column, a typo in --user, a semicolon-separated export, a callback URL as
// --url, nested JSON. Against a real simulator on a real socket and files on disk; one spawn per
// behaviour only a process shows (the exit code, no stack trace), the rest through the action here.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bet, buildTestApp, HEADERS, listen, login, post } from './helpers/app.js';
import { run } from './helpers/spawn-cli.js';
import { runHere } from './helpers/run-here.js';
import { reconcileCommand } from '../src/commands/reconcile.js';

const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-reconcile-refusals-'));
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
