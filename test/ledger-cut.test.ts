// A ledger read that a reset overtakes fails at the transport: the chunked reply is never
// finished, so every HTTP client (undici, fetch, node:http) sees an error instead of a shorter
// ledger that looks whole. Over a real socket; the client holds the read until the reset is answered.
import { request as httpRequest } from 'node:http';
import t, { type Test } from 'tap';
import { request } from 'undici';
import type { Change } from '../src/ledger/change.js';
import { buildTestApp, listen } from './helpers/app.js';

/** Rows enough that a read not consumed is held by back-pressure long before its end (about 20 MB of JSON). */
const ROWS = 200_000;

async function bigLedger(t: Test) {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const at = Date.now();
  const rows: Change[] = Array.from({ length: ROWS }, (_, i) => ({
    op: 'txn' as const,
    transaction_id: `cut-${i}`,
    user_id: `player-${i % 10}`,
    event_type: 'bet',
    fingerprint: '~x',
    game_no: `G${i}`,
    currency: 'KRW',
    amount: '1',
    balance_after: String(ROWS - i),
    applied_at: at + i,
  }));
  await sim.store.commit(rows);
  return { app, base: await listen(app) };
}

/** POST /admin/reset, answered while the read is held. */
async function reset(t: Test, base: string) {
  const res = await fetch(`${base}/admin/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(res.status, 200, 'the reset is answered while the read is held');
}

for (const format of ['json', 'csv'] as const) {
  t.test(`${format}: undici's request sees an error, not the end of the body`, async (t) => {
    const { base } = await bigLedger(t);
    const res = await request(`${base}/admin/ledger?format=${format}`); // resolves on the headers: the read has begun
    t.equal(res.statusCode, 200);
    await reset(t, base);
    await t.rejects(res.body.text(), 'the body fails');
  });

  t.test(`${format}: fetch sees an error`, async (t) => {
    const { base } = await bigLedger(t);
    const res = await fetch(`${base}/admin/ledger?format=${format}`);
    t.equal(res.status, 200);
    await reset(t, base);
    await t.rejects(res.text(), { name: 'TypeError' }, 'fetch: "terminated"');
  });
}

t.test('node:http sees the response aborted', async (t) => {
  const { base } = await bigLedger(t);
  const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    httpRequest(`${base}/admin/ledger?format=csv`, { agent: false }, resolve).on('error', reject).end();
  });
  await reset(t, base);
  const outcome = await new Promise<string>((resolve) => {
    res.on('data', () => undefined);
    res.on('end', () => resolve(res.complete ? 'complete' : 'incomplete'));
    res.on('error', (e) => resolve(`error: ${e.message}`));
    res.on('aborted', () => resolve('aborted'));
  });
  t.not(outcome, 'complete', `the response did not end whole (${outcome})`);
});

t.test('a read no reset overtakes ends normally (the chunked reply finished)', async (t) => {
  const { base } = await bigLedger(t);
  const res = await request(`${base}/admin/ledger?format=csv`);
  const text = await res.body.text();
  t.equal(text.trimEnd().split('\r\n').length, ROWS + 1, 'every row and the header line');
  t.notMatch(text, /#INCOMPLETE/);
});
