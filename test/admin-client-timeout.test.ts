// The admin client's time-out (reconcile --timeout): it covers the reply's start and each stall in
// it, never the whole body, so a long ledger that keeps coming is read whole, and a reply that
// stops half-way is said to have stalled, not blamed on a reset. Real servers on loopback sockets.
import { writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { reconcileCommand } from '../src/commands/reconcile.js';
import { LEDGER_COLUMNS } from '../src/ledger/format.js';
import { runHere } from './helpers/run-here.js';
import { tempDir } from './helpers/temp.js';

const dir = tempDir('wallet-sim-admin-timeout-');
const provider = join(dir, 'books.csv');
writeFileSync(provider, 'transaction_id,event_type,user_id,game_no,amount,status\n');
const LEDGER_HEADER = `${LEDGER_COLUMNS.join(',')}\r\n`;

/** A server answering the ledger with `answer` (the report: wallet-sim's own wallet), closed (its connections too) after the test. */
async function server(tt: Test, answer: (res: ServerResponse) => void): Promise<string> {
  const s = createServer((req, res) => (req.url?.startsWith('/admin/report') ? res.end('{"checks":[]}') : answer(res)));
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  tt.teardown(() => {
    s.closeAllConnections();
    s.close();
  });
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

const reconcile = (url: string, timeout: number) =>
  runHere(reconcileCommand(), ['--url', url, '--provider', provider, '--timeout', String(timeout)]);

t.test('a ledger that takes longer than the time-out in all, a piece well within it each time: read whole', async (t) => {
  // (each piece 40 ms after the last, the time-out far above that: a loaded machine's pause is not a stall)
  const timeout = 1500;
  const pieces = LEDGER_HEADER.match(/./gs)!;
  t.ok(pieces.length * 40 > timeout * 2, 'the whole reply takes twice the time-out or more');
  const url = await server(t, (res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', 'x-ledger-complete': 'true' });
    const next = (k: number) => (k < pieces.length ? res.write(pieces[k], () => setTimeout(next, 40, k + 1)) : res.end());
    next(0);
  });
  const started = performance.now();
  const r = await reconcile(url, timeout);
  t.ok(performance.now() - started > timeout, 'it did outlast the time-out');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /0 wallet row\(s\) .* against 0 provider record\(s\): 0 mismatch\(es\), 0 unresolved — they agree/);
});

t.test('a ledger that stops half-way: said as a stall with the time-out, exit 2, no reset blamed', async (t) => {
  const url = await server(t, (res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', 'x-ledger-complete': 'true' });
    res.write(LEDGER_HEADER.slice(0, 10)); // then nothing, the connection left open
  });
  const r = await reconcile(url, 300);
  t.equal(r.code, 2, r.stdout);
  t.equal(
    r.stderr.trim(),
    `wallet-sim reconcile: cannot read the ledger: GET ${url}/admin/ledger?format=csv: the reply stalled: no byte of it for 300 ms ` +
      'after 10 byte(s); is the simulator overloaded or stopped? Run it again, or wait longer with --timeout <ms>',
  );
});

t.test('no reply at all within the time-out: said so, exit 2', async (t) => {
  const url = await server(t, () => {}); // never answers
  const r = await reconcile(url, 300);
  t.equal(r.code, 2, r.stdout);
  t.match(r.stderr, /cannot read the ledger: GET .*: no reply within 300 ms; is wallet-sim running at/);
});
