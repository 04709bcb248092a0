// The batched feed (src/grading/batched-feed.ts) folds a turn's events later than they happen: it
// must grade exactly as a grader fed at once. Random sessions fed both ways, reports compared byte
// for byte at random moments; then when a batch is folded, and what a fold that throws does.
import t from 'tap';
import { DEFAULT_THRESHOLDS, newGrader, reportOf } from '../../src/grading/grade.js';
import type { Arrival, Attempt, Completion } from '../../src/grading/attempt.js';
import { BatchedFeed, type PendingAttempt } from '../../src/grading/batched-feed.js';
import type { Grader } from '../../src/grading/grader.js';
import { mulberry32 } from '../../bench/random.js';

/** The same sessions on every run. */
const random = mulberry32(1);
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
const chance = (p: number) => random() < p;
const session = { id: 's', started_at: new Date(0).toISOString(), seed: null };
const report = (g: Grader, now: number, userId?: string) =>
  JSON.stringify([reportOf(g, { now: new Date(now), scenario: 't', session, userId }), g.version]);

/** One random session fed to a grader at once and to another through a batched feed; the reports that differ. */
function differences(n: number): string[] {
  const thresholds = {
    ...DEFAULT_THRESHOLDS,
    retry_window_s: pick([1, 5]),
    client_timeout_s: pick([1, 2]),
    round_max_age_s: pick([2, 300]),
  };
  const limits = chance(0.5) ? { transactions: 2 + int(20), rounds: 1 + int(10) } : undefined;
  const direct = newGrader(thresholds, limits);
  const batched = newGrader(thresholds, limits);
  const feed = new BatchedFeed(batched);
  const flying: [Attempt, PendingAttempt][] = [];
  const waiting: [number, number, number][] = []; // tickets of callbacks still being decided, and their time
  const sent: Arrival[] = [];
  const out: string[] = [];
  let clock = Date.UTC(2026, 10, 27);
  let id = 0;
  for (let s = 0; s < 150; s++) {
    clock += pick([0, 1, 50, 400, 1000, 3000]);
    const r = random();
    if (r < 0.35) {
      const old = sent.length && chance(0.4) ? pick(sent) : undefined;
      const event = old?.event ?? pick(['login', 'bet', 'bet_result']);
      const arrival: Arrival = {
        id: ++id,
        at: clock,
        user: old?.user ?? pick(['p1', 'p2']),
        event,
        tx: old?.tx ?? `t${n}-${id}`,
        body: { n: chance(0.8) ? 1 : 2 },
        applied: chance(0.8),
        headers: { 'api-id': 'x' },
        reply: { status: 200, body: { code: 'R0' } },
      };
      if (event !== 'login') Object.assign(arrival, { game: old?.game ?? pick(['G1', 'G2']), total: pick([1, 5, 100]) });
      sent.push(arrival);
      if (chance(0.3)) {
        waiting.push([direct.expect(clock), feed.expect(clock), clock]);
        continue;
      }
      flying.push([direct.arrive({ ...arrival }), feed.arrive({ ...arrival })]);
    } else if (r < 0.45 && waiting.length) {
      // (in ticket order: a batched feed folds arrivals in that order, below; a grader fed at once, in call order)
      const [a, b, at] = waiting.shift()!;
      if (chance(0.5)) {
        direct.settle(a);
        feed.settle(b);
      } else {
        const arrival: Arrival = {
          id: ++id,
          at,
          user: 'p1',
          event: 'bet',
          tx: `t${n}-${id}`,
          game: 'G1',
          total: 5,
          body: {},
          applied: true,
        };
        flying.push([direct.arrive({ ...arrival }, a), feed.arrive({ ...arrival }, b)]);
      }
    } else if (r < 0.75 && flying.length) {
      const [a, p] = flying.splice(int(flying.length), 1)[0]!;
      const done: Completion = {
        end: clock,
        status: chance(0.9) ? 200 : 500,
        body: { code: pick(['R0', 'R0', 'R1', 'R2', 'R4']), latest_balance: pick([0, 50, 1000]) },
        dropped: chance(0.1),
        clientGone: chance(0.1),
      };
      direct.complete(a, done);
      feed.complete(p, done);
    } else if (r < 0.8 && flying.length) {
      const [a, p] = pick(flying);
      direct.closed(a, clock);
      feed.closed(p, clock);
    } else if (r < 0.85) {
      const codes = [pick(['A', 'B'])];
      direct.count('p1', codes);
      feed.count('p1', codes);
    } else if (r < 0.9)
      feed.flush(); // a turn of the event loop ends
    else {
      feed.flush(); // the session is read: everything folded first
      const user = chance(0.3) ? 'p1' : undefined;
      const [a, b] = [report(direct, clock, user), report(batched, clock, user)];
      if (a !== b) out.push(`session ${n} at ${clock}:\n${a}\n${b}`);
    }
  }
  feed.flush();
  const [a, b] = [report(direct, clock + 100_000), report(batched, clock + 100_000)];
  if (a !== b) out.push(`session ${n}, last report:\n${a}\n${b}`);
  return out;
}

t.test('a batched feed grades exactly as a grader fed at once (300 random sessions)', async (t) => {
  const differ: string[] = [];
  for (let n = 0; n < 300; n++) differ.push(...differences(n));
  t.same(differ.slice(0, 2), [], 'every report the same, byte for byte');
});

t.test('a batch is folded at the end of the turn, or when flushed', async (t) => {
  const g = newGrader(DEFAULT_THRESHOLDS);
  const feed = new BatchedFeed(g);
  const at = Date.now();
  const pending = feed.arrive({ id: 1, at, user: 'p1', event: 'login', tx: 'l1', body: {}, applied: true });
  t.equal(g.txs.size, 0, 'not folded while the turn lasts');
  await new Promise<void>((resolve) => setImmediate(resolve));
  t.equal(g.txs.size, 1, 'folded once the turn is over');
  t.equal(pending.attempt?.tx, 'l1', 'the route holds the attempt the arrival became');
  feed.complete(pending, { end: at + 5, status: 200, body: { code: 'R0', latest_balance: 10 }, dropped: false, clientGone: false });
  feed.flush();
  t.equal(g.players.get('p1')?.balance, 10, 'a flush folds what is queued at once');
});

t.test('a report folds what the feed still queues, whoever reads it', async (t) => {
  const g = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: 1 });
  const feed = new BatchedFeed(g);
  const at = Date.now();
  const login = feed.arrive({ id: 1, at, user: 'p1', event: 'login', tx: 'l1', body: {}, applied: true });
  feed.complete(login, { end: at + 5, status: 200, body: { code: 'R0', latest_balance: 10 }, dropped: false, clientGone: false });
  // Read at once, past the time-out (as a route does after an await, while more events were queued).
  reportOf(g, { now: new Date(at + 5000), scenario: 't', session });
  t.equal(login.attempt?.outcome, 'R0', 'the reply was folded before the report judged its time-out');
  t.equal(g.players.get('p1')?.balance, 10, 'the report read the folded state');
});

t.test('tickets the grader numbered otherwise still hold the clock back and are settled', async (t) => {
  const g = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: 1 });
  g.expect(0); // someone else took the grader's ticket 1 (settled below)
  const feed = new BatchedFeed(g);
  const at = Date.now();
  const login = feed.arrive({ id: 1, at, user: 'p1', event: 'login', tx: 'l1', body: {}, applied: true });
  const ticket = feed.expect(at + 10); // a callback being decided
  g.settle(1);
  feed.flush();
  g.advance(at + 5000);
  t.equal(login.attempt?.outcome, 'waiting', 'its time-out waits for the callback being decided');
  feed.arrive({ id: 2, at: at + 10, user: 'p1', event: 'login', tx: 'l2', body: {}, applied: true }, ticket);
  feed.flush();
  g.advance(at + 5000);
  t.equal(login.attempt?.outcome, 'lost', 'once it arrived, the clock moves on');
});

t.test('a fold that throws is a warning, and the events after it are folded', async (t) => {
  const g = newGrader(DEFAULT_THRESHOLDS);
  const feed = new BatchedFeed(g);
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  t.teardown(() => process.off('warning', onWarning));
  const original = g.count.bind(g);
  g.count = () => {
    throw new Error('broken');
  };
  feed.count('p1', ['A']);
  feed.arrive({ id: 1, at: Date.now(), user: 'p1', event: 'login', tx: 'l1', body: {}, applied: true });
  feed.flush();
  g.count = original;
  t.equal(g.txs.size, 1, 'the arrival after the failed fold is folded');
  await new Promise<void>((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  t.match(warnings, [/grading could not fold an event \(Error: broken\)/], 'the failure is told, with what to do');
});

t.test('arrivals are folded in the order the callbacks arrived, not the order they were decided', async (t) => {
  // A bet's first attempt (ticket 1) is decided late (a slow upstream); its resend (ticket 2) and the
  // settlement (ticket 3) are decided and answered first. Folded in ticket order, the resend follows
  // the attempt it resends and the settlement follows the resend's reply.
  const thresholds = { ...DEFAULT_THRESHOLDS, client_timeout_s: 1, min_retry_gap_ms: 200 };
  const batched = newGrader(thresholds);
  const feed = new BatchedFeed(batched);
  const direct = newGrader(thresholds);
  const t0 = Date.UTC(2026, 10, 30);
  const bet = (id: number, at: number): Arrival => ({
    id,
    at,
    user: 'p1',
    event: 'bet',
    tx: 'b1',
    game: 'G1',
    total: 5,
    body: { n: 1 },
    applied: true,
  });
  const settle: Arrival = {
    id: 4,
    at: t0 + 1400,
    user: 'p1',
    event: 'bet_result',
    tx: 's1',
    game: 'G1',
    total: 5,
    body: {},
    applied: true,
  };
  const reply = (end: number): Completion => ({
    end,
    status: 200,
    body: { code: 'R0', latest_balance: 995 },
    dropped: false,
    clientGone: false,
  });
  const [first, resend, settlement] = [feed.expect(t0), feed.expect(t0 + 1300), feed.expect(t0 + 1400)];
  for (const ticket of [first, resend, settlement]) feed.player(ticket, 'p1'); // (as the pipeline tells it once it read the callback)
  // Another player's callback, decided meanwhile, does not wait for p1's slow one.
  const other = feed.expect(t0 + 100);
  feed.player(other, 'p2');
  const o = feed.arrive({ id: 9, at: t0 + 100, user: 'p2', event: 'login', tx: 'l2', body: {}, applied: true }, other);
  feed.flush();
  t.ok(o.attempt, "another player's arrival is folded at once");
  t.notOk(batched.txs.has('b1'), "p1's callbacks wait for its first");
  // As decided: the resend, then the settlement, then (1.5 s after it came) the first attempt.
  const r = feed.arrive(bet(3, t0 + 1300), resend);
  feed.complete(r, reply(t0 + 1310));
  const s = feed.arrive(settle, settlement);
  feed.complete(s, reply(t0 + 1420));
  const f = feed.arrive(bet(2, t0), first);
  feed.complete(f, reply(t0 + 1500));
  feed.flush();
  // The same, fed at once in the order things happened.
  direct.arrive({ id: 9, at: t0 + 100, user: 'p2', event: 'login', tx: 'l2', body: {}, applied: true });
  const df = direct.arrive(bet(2, t0));
  const dr = direct.arrive(bet(3, t0 + 1300));
  direct.complete(dr, reply(t0 + 1310));
  const ds = direct.arrive(settle);
  direct.complete(ds, reply(t0 + 1420));
  direct.complete(df, reply(t0 + 1500));
  const now = t0 + 60_000;
  t.equal(report(batched, now), report(direct, now), 'graded as if fed in the order the callbacks arrived');
  const checks = reportOf(batched, { now: new Date(now), scenario: 't', session }).checks;
  t.same(
    checks.filter((c) => c.status === 'fail' && c.id !== 'LOGIN_BEFORE_BET').map((c) => c.id),
    [],
    'no premature retry, no settlement before the bet reply (no login here: that one is expected)',
  );
  t.equal(f.attempt?.nth, 0, 'the first attempt is the first');
  t.equal(r.attempt?.nth, 1, 'the resend is the second');
});
