// Issue 15 item 1: an unauthenticated caller sending large bodies can neither exhaust memory nor
// starve honest callbacks. A real server process, real sockets, its RSS read from /proc.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { Journal } from '../src/journal/journal.js';
import { HEADERS, login, post } from './helpers/app.js';
import { start } from './helpers/spawn-cli.js';

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

t.test(
  '700 unauthenticated 1 MB bodies: RSS stays bounded, honest callbacks answered throughout',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async (t) => {
    const server = await start(t, ['--port', '0', '--log-level', 'silent']);
    const callback = `${server.url}/callback`;
    const body = `[${'{},'.repeat(333_332)}{}]`; // 1 MB of tiny objects: the worst case to parse and keep
    const hostile = { ...HEADERS, 'api-key': 'wrong' };
    let peak = 0;
    let honest = 0;
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < 700; i = next++) {
        const res = await post(callback, body, hostile);
        if (res.body.code !== 'R2') throw new Error(`request ${i}: ${res.raw.slice(0, 200)}`);
        if (i % 50 === 0) {
          const ok = await post(callback, login('player-1'));
          if (ok.body.code === 'R0') honest++;
          peak = Math.max(peak, rssMiB(server.child.pid!));
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    peak = Math.max(peak, rssMiB(server.child.pid!));
    t.equal(honest, 14, 'every honest login in between got R0');
    // Bounded, not leaking: the 700 bodies kept would be 700 MiB as raw text and several GiB parsed; eight
    // parsed at once (each 1 MB of tiny objects, many times that on the heap) peak at 350–420 MiB here,
    // as the collector runs.
    t.ok(peak < 600, `peak RSS ${peak.toFixed(0)} MiB < 600 MiB`);
    const page = await fetch(`${server.url}/admin/journal?limit=5`);
    t.equal(page.status, 200, 'the journal still reads');
    const { entries } = (await page.json()) as { entries: { request: { body: unknown } }[] };
    const kept = entries.map((e) => JSON.stringify(e.request.body).length);
    t.ok(
      kept.every((n) => n < 3000),
      `a refused body is kept as an excerpt (${Math.max(...kept)} characters at most)`,
    );
  },
);

t.test('the journal is bounded by bytes as well as entries', async (t) => {
  const j = new Journal(1000, 10_000);
  const big = (n: number) => ({
    received_at: '',
    duration_ms: 0,
    transaction_id: `tx${n}`,
    request: { method: 'POST', url: '/callback', headers: {}, body: 'x'.repeat(3000) },
    reply: { status: 200, headers: {}, body: null, dropped: false },
    replayed: false,
    findings: [],
  });
  for (let n = 1; n <= 10; n++) j.record(big(n));
  t.ok(j.heldBytes <= 10_000, `held ${j.heldBytes} characters`);
  t.same(
    j.list().map((e) => e.transaction_id),
    ['tx8', 'tx9', 'tx10'],
    'the newest that fit',
  );
  const alone = new Journal(1000, 100);
  alone.record(big(1));
  t.equal(alone.count(), 0, 'an entry larger than the whole bound is not kept');
});

t.test('the journal pages forward with after + limit, and lists in-flight callbacks apart', async (t) => {
  const j = new Journal();
  const entry = (n: number) => ({
    received_at: '',
    duration_ms: 0,
    transaction_id: `tx${n}`,
    request: { method: 'POST', url: '/callback', headers: {}, body: null },
    reply: { status: 200, headers: {}, body: null, dropped: false },
    replayed: false,
    findings: [],
  });
  for (let n = 1; n <= 5; n++) j.record(entry(n));
  t.same(
    j.list({ after: 2, limit: 2 }).map((e) => e.id),
    [3, 4],
  );
  t.same(
    j.list({ after: 4, limit: 2 }).map((e) => e.id),
    [5],
  );
  const pending = j.begin(entry(6));
  t.same(
    j.inFlight().map((e) => [e.id, e.replied_at]),
    [[6, undefined]],
    'unanswered, no replied_at',
  );
  t.same(
    j.list().map((e) => e.id),
    [1, 2, 3, 4, 5],
    'not listed until answered',
  );
  const seen: number[] = [];
  const off = j.subscribe((e) => seen.push(e.id));
  j.record(entry(7));
  pending.finish({ replied_at: 'later', duration_ms: 5, client_gone: true });
  off();
  j.record(entry(8));
  t.same(seen, [7, 6], 'listeners see entries as they are kept, until they unsubscribe');
  t.same(
    j.list({ after: 5 }).map((e) => [e.id, e.replied_at ?? null, e.reply.client_gone ?? null]),
    [
      [6, 'later', true],
      [7, null, null],
      [8, null, null],
    ],
    'listed by arrival',
  );
  t.same(j.inFlight(), []);
});
