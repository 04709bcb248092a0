// GET /admin/ledger while it streams a large ledger, over real sockets: callbacks keep being
// answered (the rows are made a slice of time at a time, reads at once sharing a turn of the event loop), and a
// reset during a read never leaves a well-formed but truncated ledger.
import { request } from 'node:http';
import t, { type Test } from 'tap';
import type { Change } from '../src/ledger/change.js';
import { openBackend } from '../src/app/stores.js';
import type { RedisBackend } from '../src/backends/redis/redis-backend.js';
import { LEDGER_BATCH, LedgerCut } from '../src/ledger/ledger-entry.js';
import { buildTestApp, HEADERS, listen, login } from './helpers/app.js';
import { post } from './helpers/net.js';
import { redisMissing, startRedis, uniquePrefix } from './helpers/redis.js';

const ROWS = 200_000;

/** ROWS applied bets, committed straight into the store (sending them as callbacks would take minutes). */
function bets(n: number): Change[] {
  const at = Date.now();
  return Array.from({ length: n }, (_, i) => ({
    op: 'txn' as const,
    transaction_id: `big-${i}`,
    user_id: `player-${i % 100}`,
    event_type: 'bet',
    fingerprint: '~x',
    game_no: `G${i}`,
    currency: 'KRW',
    amount: '1',
    balance_after: String(n - i),
    applied_at: at + i,
  }));
}

async function bigLedger(t: Test) {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  await sim.store.commit(bets(ROWS));
  return { app, sim, url: await listen(app) };
}

/** Reads a whole response over a real socket; `pauseAfter`: stop reading after the first chunk until `resume` is called. */
function read(url: string, pause = false) {
  let resume = () => {};
  let firstChunk = () => {};
  const first = new Promise<void>((r) => (firstChunk = r));
  const done = new Promise<{ status: number; headers: Record<string, unknown>; body: string; error?: string }>((resolve) => {
    const req = request(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (chunks.length === 1) {
          if (pause) {
            res.pause();
            resume = () => res.resume();
          }
          firstChunk();
        }
      });
      const end = (error?: string) =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), error });
      res.on('end', () => end());
      res.on('error', (e) => end(e.message));
    });
    req.on('error', (e) => resolve({ status: 0, headers: {}, body: '', error: e.message }));
    req.end();
  });
  return { first, done, resume: () => resume() };
}

t.test(`callbacks are answered while 4 reads of a ${ROWS}-transaction ledger stream`, async (t) => {
  const { url } = await bigLedger(t);
  // The same logins with no read going on: what this machine gives now (it may be busy).
  const idle: number[] = [];
  for (let i = 0; i < 60; i++) idle.push((await post(`${url}/callback`, login('player-1'), HEADERS)).ms);
  idle.sort((a, b) => a - b);
  t.comment(`60 logins, no read: p50 ${idle[30]!.toFixed(1)} ms, max ${idle.at(-1)!.toFixed(1)} ms`);
  const readers = Array.from({ length: 4 }, (_, i) => read(`${url}/admin/ledger${i % 2 ? '?format=csv' : ''}`));
  await Promise.all(readers.map((r) => r.first));
  // How long the event loop goes without turning (a 1 ms timer's gaps): the measure a busy machine stretches least.
  const gaps: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  let streaming = true;
  void Promise.all(readers.map((r) => r.done)).then(() => (streaming = false));
  const ms: number[] = [];
  const codes = new Set<string>();
  while (streaming) {
    const r = await post(`${url}/callback`, login('player-1'), HEADERS);
    codes.add(String(r.body?.code));
    if (streaming) ms.push(r.ms);
  }
  t.same([...codes], ['R0'], 'every login answered R0');
  const all = await Promise.all(readers.map((r) => r.done));
  clearInterval(timer);
  for (const r of all) t.equal(r.status, 200);
  t.equal(JSON.parse(all[0]!.body).length, ROWS, 'the whole ledger');
  t.equal(all[1]!.body.trimEnd().split('\r\n').length, ROWS + 1, 'the whole ledger, with its header line');
  ms.sort((a, b) => a - b);
  gaps.sort((a, b) => a - b);
  const p50 = ms[Math.floor(ms.length / 2)]!;
  const gap = gaps[Math.floor(gaps.length / 2)]!;
  t.comment(
    `${ms.length} logins while 4 ledgers streamed: p50 ${p50.toFixed(1)} ms, max ${ms.at(-1)!.toFixed(1)} ms; ` +
      `event loop gaps p50 ${gap.toFixed(1)} ms, max ${gaps.at(-1)!.toFixed(1)} ms`,
  );
  // The target is 50 ms max (docs/limits.md, measured). Here the margins are wide, for a shared machine
  // (load 16 on 2 cores gave gaps p50 10 ms, logins p50 20–50 ms; without letting go: gaps p50 280 ms, logins p50 150 ms).
  t.ok(gap < 60, `the event loop turns while the ledgers stream: gaps p50 ${gap.toFixed(1)} ms`);
  // The logins' bound follows this machine's pace without a read (a login p50 of 25 ms idle, under load, was 56 ms while streaming).
  const idleP50 = idle[30]!;
  t.ok(p50 < Math.max(100, 4 * idleP50), `logins p50 ${p50.toFixed(1)} ms (without a read: ${idleP50.toFixed(1)} ms)`);
});

for (const format of ['csv', 'json'] as const)
  t.test(`${format}: a reset while a read is paused ends that read visibly incomplete`, async (t) => {
    const { url } = await bigLedger(t);
    const reader = read(`${url}/admin/ledger?format=${format}`, true);
    await reader.first;
    const reset = await post(`${url}/admin/reset`, {}, { 'content-type': 'application/json' });
    t.equal(reset.status, 200, 'the reset is answered while the read is paused');
    reader.resume();
    const r = await reader.done;
    t.equal(r.status, 200);
    t.equal(r.headers['x-ledger-complete'], 'true', 'nothing forgotten when the read began (the header is sent first)');
    t.match(r.error, /aborted|ECONNRESET|socket hang up/, 'the client sees an error: the chunked reply never got its last chunk');
    if (format === 'csv') {
      const lines = r.body.trimEnd().split('\r\n');
      t.ok(lines.length - 1 < ROWS, `cut short (${lines.length - 1} rows)`);
    } else {
      t.notOk(r.body.trimEnd().endsWith(']'), 'the JSON array is never closed');
      t.throws(() => JSON.parse(r.body), 'so no JSON reader takes it for the whole ledger');
    }
    const after = read(`${url}/admin/ledger?format=${format}`);
    const fresh = await after.done;
    t.equal(fresh.body, format === 'csv' ? `${fresh.body.split('\r\n')[0]}\r\n` : '[]', 'a read after the reset: the new, empty session');
  });

t.test('each store: a read a reset comes during throws LedgerCut at its next batch, never a short ledger', async (t) => {
  const stores: [string, () => Promise<RedisBackend | undefined>][] = [['memory', async () => undefined]];
  if (redisMissing()) t.comment(redisMissing()!);
  else {
    const redis = await startRedis(t);
    stores.push([
      'redis',
      async () => (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('cut') })) as RedisBackend,
    ]);
  }
  for (const [kind, open] of stores) {
    const store = await open();
    const { app, sim } = await buildTestApp({}, store ? { store } : {});
    t.teardown(async () => {
      await app.close();
      await store?.close();
    });
    await sim.store.commit(bets(3 * LEDGER_BATCH));
    const ledger = await sim.backend.ledger();
    const batches = ledger.batches[Symbol.asyncIterator]();
    const first = await batches.next();
    t.ok(!first.done && first.value.length > 0, `${kind}: a first batch`);
    await sim.reset();
    await t.rejects(
      (async () => {
        for (let r = await batches.next(); !r.done; r = await batches.next());
      })(),
      LedgerCut,
      `${kind}: the rest of the read is refused, not ended early`,
    );
    const after = await sim.backend.ledger();
    let rows = 0;
    for await (const b of after.batches) rows += b.length;
    t.equal(rows, 0, `${kind}: a read after the reset sees the new session`);
  }
});
