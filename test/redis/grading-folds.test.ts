// Grading on a Redis store is folded on demand (every process's events are in Redis): two false
// alarms of a process that had not folded yet.
// - The dashboard's grading tick moved the clock on what this process had folded so far, before the
//   fold it had just started came back: a lost bet's window was judged before the resend sent in
//   time was folded, and LOST_REPLY_RETRIED failed a provider that did its part. It now folds first.
// - Clearing the journal kept the logins this process had folded (none, before a report): the next
//   bet failed LOGIN_BEFORE_BET. The old session is now folded whole first, and its logged-in players
//   are the new session's first event, so every process begins from them.
// - A reset whose process had folded meanwhile (switched to the new session already) emptied the new
//   session's stream as if it were the old one, and set it to expire.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { Redis } from 'ioredis';
import { DEFAULT_THRESHOLDS } from '../../src/core/scenario/thresholds.js';
import { SharedGrading } from '../../src/grading/redis-feed.js';
import { loggedIn } from '../../src/grading/session.js';
import { openBackend } from '../../src/app/stores.js';
import type { RedisBackend } from '../../src/backends/redis/redis-backend.js';
import { SCENARIOS_DIR } from '../../src/kernel/paths.js';
import type { Report, Scenario } from '../../src/protocol/types.generated.js';
import { bet, buildTestApp, HEADERS, listen, login } from '../helpers/app.js';
import { redisMissing, startRedis, uniquePrefix } from '../helpers/redis.js';
import { skip } from '../helpers/required.js';
import { attempt } from '../grading/provider.js';

const missing = redisMissing();
if (missing) skip(t, 'the Redis dashboard test', missing);
else {
  t.test("a dashboard opened after a lost bet's window: the resend sent in time is folded before the window is judged", async (t) => {
    const redis = await startRedis(t);
    const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: uniquePrefix('dashboard-fold') })) as RedisBackend;
    const cert = JSON.parse(readFileSync(join(SCENARIOS_DIR, 'certification.json'), 'utf8')) as Scenario;
    const WINDOW_S = 6; // (the resend 0.6 s after the loss: the rest is margin for a busy machine, or one paused for seconds)
    const scenario = { ...cert, grading: { ...cert.grading, client_timeout_s: 1, retry_window_s: WINDOW_S } };
    const { app } = await buildTestApp(scenario, { store });
    t.teardown(async () => {
      await app.close();
      await store.close();
    });
    const base = await listen(app);
    const report = async () => (await (await fetch(`${base}/admin/report`)).json()) as Report;
    const lostReply = () => report().then((r) => r.checks.find((c) => c.id === 'LOST_REPLY_RETRIED')!);

    t.equal((await attempt(`${base}/callback`, login('cert-lost-bet'), 1000))?.code, 'R0');
    const first = bet('cert-lost-bet', 'G1', [['1', 'P', 10]], { currency: 'USD' });
    t.equal(await attempt(`${base}/callback`, first, 1000), undefined, "the bet's reply is lost (applied)");
    const lostAt = Date.now();
    t.equal((await lostReply()).status, 'pending', 'a report folds the lost reply: its window is open');
    await sleep(600); // the provider's back-off (min_retry_gap_ms 500)
    t.equal((await attempt(`${base}/callback`, first, 1000))?.code, 'R0', 'resent in time, unchanged: R0');
    t.ok(Date.now() - lostAt < WINDOW_S * 1000, 'within the window');

    // No report meanwhile: nothing folds the resend until the window has closed and the shared
    // session's lag (1 s) has passed. Then a dashboard opens and ticks.
    await sleep(Math.max(0, lostAt + WINDOW_S * 1000 + 1000 + 300 - Date.now()));
    const abort = new AbortController();
    t.teardown(() => abort.abort());
    const events = await fetch(`${base}/admin/events?grading=true`, { signal: abort.signal });
    const reader = events.body!.getReader();
    let text = '';
    while (!text.includes('event: grading')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();

    const check = await lostReply();
    t.equal(check.status, 'pass', `LOST_REPLY_RETRIED: ${JSON.stringify(check.violations ?? [])}`);
  });
}

if (!missing) {
  t.test('the journal cleared on a process that had folded nothing: the logins stay, on every process', async (t) => {
    const redis = await startRedis(t);
    const prefix = uniquePrefix('cleared-logins');
    const wallet = async () => {
      const store = (await openBackend('redis', { redisUrl: redis.url, redisPrefix: prefix })) as RedisBackend;
      const { app } = await buildTestApp({}, { store });
      t.teardown(async () => {
        await app.close();
        await store.close();
      });
      return app;
    };
    const [a, b] = [await wallet(), await wallet()];
    const send = async (app: typeof a, body: object) =>
      (await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: JSON.stringify(body) })).json().code as string;
    t.equal(await send(a, login('usd')), 'R0', 'logged in on A');
    // No report anywhere: neither process has folded the login (the shared session is folded on demand).
    t.equal((await b.inject({ method: 'DELETE', url: '/admin/journal' })).statusCode, 204, 'the journal cleared on B');
    t.equal(await send(b, bet('usd', 'G1', [['1', 'P', 10]], { currency: 'USD' })), 'R0', 'the player bets, on B');
    for (const [name, app] of [
      ['A', a],
      ['B', b],
    ] as const) {
      const check = ((await app.inject({ url: '/admin/report' })).json() as Report).checks.find((c) => c.id === 'LOGIN_BEFORE_BET')!;
      t.equal(check.status, 'pass', `${name}'s report: LOGIN_BEFORE_BET ${JSON.stringify(check.violations ?? [])}`);
    }
  });
}

if (!missing) {
  t.test("a fold between a reset's commit and its begin: the new session's stream is kept, not emptied", async (t) => {
    const redis = await startRedis(t);
    const client = new Redis(redis.url);
    t.teardown(() => client.disconnect());
    const prefix = uniquePrefix('reset-fold');
    const grading = new SharedGrading(client, prefix, { ...DEFAULT_THRESHOLDS }, () => 1);
    t.teardown(() => grading.close());
    await grading.join(false);
    const [sessionKey, doc] = await grading.prepare();
    await client.set(sessionKey, doc); // (the reset's commit writes it with the ledger's clear)
    await grading.current(); // a dashboard's tick or a report meanwhile: this process switches to the new session
    const stream = `${prefix}grading:${(JSON.parse(doc) as { id: string }).id}`;
    await client.xadd(stream, '*', 'e', JSON.stringify({ t: 'f', u: 'p1', c: ['X'] })); // a callback graded in it
    await grading.begin(false, [sessionKey, doc]);
    t.equal(await client.xlen(stream), 1, "the new session's events are kept (it was trimmed to none)");
    t.equal(await client.ttl(stream), -1, 'and it does not expire (it had an hour to live)');
  });
}

if (!missing) {
  t.test("two catch-ups across another process's reset: the old session's events are not folded into the new one", async (t) => {
    const redis = await startRedis(t);
    const client = new Redis(redis.url);
    t.teardown(() => client.disconnect());
    const prefix = uniquePrefix('fold-across-reset');
    const grading = new SharedGrading(client, prefix, { ...DEFAULT_THRESHOLDS }, () => 1);
    t.teardown(() => grading.close());
    await grading.join(false);
    const old = (await grading.current()).info.id;
    await client.xadd(`${prefix}grading:${old}`, '*', 'e', JSON.stringify({ t: 'l', users: ['old-player'] }));
    // A catch-up reads the old session; before its read of the old stream comes back, another
    // process resets (a new, empty session) and a second catch-up here switches to it.
    const xrange = client.xrange.bind(client) as (...args: unknown[]) => Promise<[string, string[]][]>;
    let first = true;
    (client as unknown as { xrange: typeof xrange }).xrange = async (...args: unknown[]) => {
      if (first) {
        first = false;
        await client.set(`${prefix}grading:session`, JSON.stringify({ id: 'new-one', started_at: new Date().toISOString() }));
        t.equal((await grading.current()).info.id, 'new-one', 'the second catch-up: the new session');
      }
      return xrange(...args);
    };
    const session = await grading.current();
    t.equal(session.info.id, 'new-one', 'the first catch-up ends in the new session too');
    t.same(loggedIn(session.grader), [], "the old session's logged-in player is not the new session's");
  });
}
