// The fold's new rules as tables (no HTTP, injected clock): the time-out's tolerance, a refusal
// resent under a new transaction_id, bounded state (what stays in play), the timing profile and the evidence.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { DEFAULT_THRESHOLDS, grade, newGrader, reportOf, type Thresholds } from '../../src/grading/grade.js';
import type { Completion } from '../../src/grading/attempt.js';
import type { Grader } from '../../src/grading/grader.js';
import { inPlay } from '../../src/grading/model.js';
import { timingPhrases } from '../../src/grading/timing-text.js';
import type { CheckId, Report } from '../../src/protocol/types.generated.js';
import { bet, type Cb, journal, login, settle, T0 } from './journal-builder.js';
import { cb, ok, login as loggedIn } from './grader-steps.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const S = 1000;
const u = 'p1';
/** The report of a grader fed by hand, read `ms` after T0. */
const reportAt = (g: Grader, ms: number) =>
  reportOf(g, { now: new Date(T0 + ms), scenario: 'test', session: { id: 's', started_at: new Date(T0).toISOString(), seed: null } });
const statusOf = (r: Report, id: CheckId) => r.checks.find((c) => c.id === id)!.status;
const run = (cbs: Cb[], now: number, th: Partial<Thresholds> = {}) =>
  grade(journal(...cbs), { ...DEFAULT_THRESHOLDS, ...th }, new Date(T0 + now), 'test');

t.test('NO_PREMATURE_RETRY: a resend earlier than the time-out by less than max(100 ms, 5%) is not premature', async (t) => {
  // The first attempt is still unanswered (its reply comes at 10 s, after the caller gave up).
  const resendAt = (timeoutS: number, gap: number) =>
    statusOf(
      run([bet(u, 'b1', 0, { ms: 10 * S, gone: true }), bet(u, 'b1', gap)], 60 * S, { client_timeout_s: timeoutS }),
      'NO_PREMATURE_RETRY',
    );
  const rows: [number, number, string][] = [
    [3, 2984, 'pass'], // got's 3 s time-out, stamped 16 ms early by the wallet's clock
    [3, 2850, 'pass'], // exactly 5% early
    [3, 2849, 'fail'],
    [2, 1920, 'pass'], // 80 ms before a 2 s time-out
    [2, 1900, 'pass'], // 100 ms: the floor of the tolerance
    [2, 1899, 'fail'],
    [10, 9500, 'pass'],
    [10, 9000, 'fail'],
  ];
  for (const [timeout, gap, want] of rows) t.equal(resendAt(timeout, gap), want, `time-out ${timeout} s, resent after ${gap} ms`);
});

t.test('RETRY_BACKOFF: a gap short of min_retry_gap_ms by less than max(100 ms, 5%) is not too close', async (t) => {
  const gap = (ms: number) => statusOf(run([bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', ms)], 60 * S), 'RETRY_BACKOFF');
  t.same(
    [gap(500), gap(420), gap(400), gap(399), gap(100)],
    ['pass', 'pass', 'pass', 'fail', 'fail'],
    'min_retry_gap_ms 500: 400 ms is the edge',
  );
});

t.test('NO_RETRY_AFTER_REFUSAL: the same bet resent under a new transaction_id after R4', async (t) => {
  const refused = bet(u, 'b1', 0, { code: 'R4', balance: 5 });
  const rows: [string, Cb[], string][] = [
    ['same body, new id, at once', [refused, bet(u, 'b2', 100)], 'fail'],
    ['same body, new id, after the window', [refused, bet(u, 'b2', 61 * S)], 'pass'],
    ['a smaller stake under a new id', [refused, bet(u, 'b2', 100, { total: 5 })], 'pass'],
    ['the same stake on another round', [refused, bet(u, 'b2', 100, { game: 'G2' })], 'pass'],
    ['another player', [refused, bet('p2', 'b2', 100)], 'pass'],
    ['R1 (not a refusal) then a new id', [bet(u, 'b1', 0, { code: 'R1' }), bet(u, 'b2', 100)], 'not_exercised'],
  ];
  for (const [name, cbs, want] of rows) {
    const r = run(cbs, 100 * S);
    t.equal(statusOf(r, 'NO_RETRY_AFTER_REFUSAL'), want, name);
    if (want === 'fail')
      t.match(r.checks.find((c) => c.id === 'NO_RETRY_AFTER_REFUSAL')!.violations[0]!.message, /under a new transaction_id/);
  }
  const settled = run([settle(u, 's1', 0, { code: 'R3' }), settle(u, 's2', 200)], 100 * S);
  t.equal(statusOf(settled, 'NO_RETRY_AFTER_REFUSAL'), 'fail', 'a refused settlement resent under a new id');
});

t.test('NO_SETTLEMENT_OF_REFUSED_BET says a lost bet was lost, not refused', async (t) => {
  const r = run([login(u, 'l1', 0), bet(u, 'b1', 100, { drop: true }), settle(u, 's1', 2 * S)], 10 * S);
  const v = r.checks.find((c) => c.id === 'NO_SETTLEMENT_OF_REFUSED_BET')!.violations[0]!;
  t.match(v.message, /the reply to bet b1 \(#2\) was lost and it was not resent, so the provider could not know whether it was applied/);
  t.notMatch(v.message, /refused/);
});

t.test('ROUNDS_SETTLED: a late settlement does not undo the failure; a timely one passes', async (t) => {
  const th = { round_max_age_s: 10 };
  t.equal(statusOf(run([bet(u, 'b1', 0), settle(u, 's1', 11 * S)], 20 * S, th), 'ROUNDS_SETTLED'), 'fail');
  t.equal(statusOf(run([bet(u, 'b1', 0), settle(u, 's1', 9 * S)], 20 * S, th), 'ROUNDS_SETTLED'), 'pass');
  t.equal(statusOf(run([bet(u, 'b1', 0)], 9 * S, th), 'ROUNDS_SETTLED'), 'pending');
});

t.test('the state is bounded: the oldest transactions and rounds are forgotten and counted', async (t) => {
  const g = newGrader(DEFAULT_THRESHOLDS, { transactions: 10, rounds: 5 });
  for (let i = 0; i < 30; i++) {
    const a = g.arrive({ id: i + 1, at: T0 + i * S, user: u, event: 'bet', tx: `b${i}`, game: `G${i}`, total: 1, body: {}, applied: true });
    g.complete(a, { end: T0 + i * S + 5, status: 200, body: { code: 'R0', latest_balance: 1 }, dropped: false, clientGone: false });
  }
  t.equal(g.txs.size, 10);
  t.equal(g.rounds.size, 5);
  const r = reportAt(g, 40 * S);
  t.same(r.forgotten, { transactions: 20, rounds: 25 });
  t.equal(r.open_rounds.length, 30, 'open rounds are never forgotten');
});

t.test('an answered attempt is not held for its time-out: the time-out queue keeps only what still waits', async (t) => {
  const g = newGrader(DEFAULT_THRESHOLDS, { transactions: 2, rounds: 2 });
  // (no balance in the replies: a player keeps the attempts of its last few reported balances)
  const reply = (at: number): Completion => ({ end: at, status: 200, body: { code: 'R0' }, dropped: false, clientGone: false });
  const waiting = g.arrive({ id: 1, at: T0, user: u, event: 'bet', tx: 'slow', body: {}, applied: true }); // answered last
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < 20; i++) {
    const a = g.arrive({ id: i + 2, at: T0 + 10 + i, user: u, event: 'bet', tx: `b${i}`, body: {}, applied: true });
    g.complete(a, reply(T0 + 11 + i));
    refs.push(new WeakRef(a));
  }
  g.complete(waiting, reply(T0 + 50));
  // (the two newest transactions are still held: only the eighteen before them can go)
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  t.equal(refs.slice(0, 18).filter((r) => r.deref() !== undefined).length, 0, 'answered within 1 s of a 10 s time-out: none held');
  t.equal(waiting.outcome, 'R0', 'the attempt at the head, answered late but in time, read its reply');
});

t.test('the timing profile in words: a long gap in seconds, not "90061 ms"', async (t) => {
  const r = run([settle(u, 's1', 0, { code: 'R1' }), settle(u, 's1', 400, { code: 'R1' }), settle(u, 's1', 90_461)], 100 * S);
  t.match(timingPhrases(r), [
    'client time-out not observed (no caller closed a connection before its reply; declared 10 s)',
    'retry gaps 400 ms first, 400 ms median, 90.1 s max (at least 500 ms) (!)',
  ]);
});

t.test('the timing profile: observed time-out, retry gaps, most attempts', async (t) => {
  const r = run(
    [
      bet(u, 'b1', 0, { ms: 5 * S, gone: true }), // the caller gave up before the reply
      bet(u, 'b1', 3 * S),
      bet('p2', 'b2', 0, { drop: true }),
      bet('p2', 'b2', 1 * S, { drop: true }),
      bet('p2', 'b2', 3 * S),
    ],
    100 * S,
    { client_timeout_s: 3 },
  );
  const { buckets, ...gaps } = r.timing.retry_gap_ms!;
  t.same(
    { ...r.timing, retry_gap_ms: gaps },
    { observed_timeout_ms: null, retry_gap_ms: { first: 1000, p50: 2000, max: 3000 }, max_attempts: 3 },
  );
  // Every gap counted in its bucket of the histogram: b1's 3 s, b2's 1 s and 2 s.
  t.same(
    buckets!.filter((b) => b.count > 0),
    [
      { from_ms: 1000, to_ms: 2000, count: 1 },
      { from_ms: 2000, to_ms: 5000, count: 2 },
    ],
    'the histogram counts each gap in its bucket',
  );
  t.equal(buckets!.at(-1)!.to_ms, null, 'the last bucket is open-ended');
  // The caller's time-out is observed when it closes the connection before the reply (as the route sees it).
  const g = newGrader(DEFAULT_THRESHOLDS);
  for (const [i, closedAfter] of [2900, 3000, 3100].entries()) {
    const a = g.arrive({ id: i + 1, at: T0, user: u, event: 'bet', tx: `b${i}`, body: {}, applied: true });
    g.closed(a, T0 + closedAfter);
  }
  t.same(g.timing.profile().observed_timeout_ms, { median: 3000, max: 3100 });
  t.same(
    run([login(u, 'l1', 0)], S).timing,
    { observed_timeout_ms: null, retry_gap_ms: null, max_attempts: null },
    'null where not observed',
  );
});

t.test('a violation keeps masked excerpts of the entries it cites', async (t) => {
  const entries = journal(bet(u, 'b1', 0, { drop: true }));
  entries[0]!.request.headers = { 'api-key': 'sa*********' };
  const r = grade(entries, DEFAULT_THRESHOLDS, new Date(T0 + 70 * S), 'test');
  const [evidence] = r.checks[0]!.violations[0]!.evidence!;
  t.match(evidence, { journal_id: 1, received_at: new Date(T0).toISOString(), replied_at: new Date(T0 + 5).toISOString() });
  t.match(evidence!.request, /"api-key":"sa\*+"/);
  t.match(evidence!.request, /"transaction_id":"b1"/);
  t.match(evidence!.reply, /"status":200/);
  // What the pictures draw: the reply's fate (dropped, never sent: not an R0 the provider read), its lane, when the check decided.
  t.match(evidence, {
    fate: 'dropped',
    transaction_id: 'b1',
    event_type: 'bet',
    outcome: 'lost',
    known_at: new Date(T0 + 5).toISOString(),
  });
  t.match(evidence!.reply, /^\{"dropped":true,"never_sent":/, 'a dropped reply says it was never sent');
  const v = r.checks[0]!.violations[0]!;
  t.equal(v.decided_at, new Date(T0 + 5 + 60 * S).toISOString(), 'decided when the retry window ran out');
});

t.test('evidence of an attempt still unanswered when cited: its reply excerpt says it was not written yet', async (t) => {
  // A premature resend: #1's reply was decided but not written when #2 arrived, nor when the report is read.
  const r = run([bet(u, 'b1', 0, { ms: null }), bet(u, 'b1', 16)], 10 * S);
  const v = r.checks.find((c) => c.id === 'NO_PREMATURE_RETRY')!.violations[0]!;
  const first = v.evidence!.find((e) => e.journal_id === 1)!;
  t.match(first, { fate: 'unanswered', outcome: 'waiting' });
  t.notOk(first.replied_at, 'no time written: there was none yet');
  t.match(first.reply, /^\{"not_yet_written":true,"decided":\{"status":200/, 'the reply quoted as decided, not as sent');
  // Written 3 s later: a report read then shows what became of it (the message keeps what was true at #2).
  const later = run([bet(u, 'b1', 0, { ms: 3 * S }), bet(u, 'b1', 16)], 10 * S);
  const w = later.checks.find((c) => c.id === 'NO_PREMATURE_RETRY')!.violations[0]!;
  t.match(w.message, /still unanswered/);
  t.match(
    w.evidence!.find((e) => e.journal_id === 1),
    { fate: 'written', replied_at: /T00:00:03/ },
  );
});

t.test('a transaction still in play is not forgotten: its resend after many others is a resend', async (t) => {
  const g = newGrader(DEFAULT_THRESHOLDS, { transactions: 10, rounds: 10 });
  const lost = g.arrive({ id: 1, at: T0, user: u, event: 'bet', tx: 'lost', game: 'G0', total: 1, body: {}, applied: true });
  g.complete(lost, { end: T0 + 5, status: 200, body: {}, dropped: true, clientGone: false });
  for (let i = 0; i < 100; i++) {
    const a = g.arrive({ id: i + 2, at: T0 + 10 + i, user: 'p2', event: 'login', tx: `l${i}`, body: {}, applied: true });
    g.complete(a, { end: T0 + 11 + i, status: 200, body: { code: 'R0', latest_balance: 1 }, dropped: false, clientGone: false });
  }
  const resend = g.arrive({ id: 200, at: T0 + S, user: u, event: 'bet', tx: 'lost', game: 'G0', total: 1, body: {}, applied: true });
  g.complete(resend, { end: T0 + S + 5, status: 200, body: { code: 'R0', latest_balance: 1 }, dropped: false, clientGone: false });
  const r = reportAt(g, 120 * S);
  t.equal(statusOf(r, 'LOST_REPLY_RETRIED'), 'pass', 'resent in time, though 100 transactions came in between');
  t.ok(r.forgotten.transactions > 0, 'others were forgotten');
});

t.test('RETRY_SAME_TRANSACTION: its window closes at its deadline, so an answered transaction can be forgotten', async (t) => {
  const ID = 'RETRY_SAME_TRANSACTION';
  const ok = { status: 200, body: { code: 'R0', latest_balance: 1 }, dropped: false, clientGone: false };
  // The first reply of each: lost (dropped, or too late for the caller) or R1; the resend at 1 s is answered R0.
  const rows: [string, 'bet' | 'bet_result', Completion][] = [
    ['a dropped bet', 'bet', { end: T0 + 5, status: 200, body: {}, dropped: true, clientGone: false }],
    ['a bet answered R1', 'bet', { end: T0 + 5, status: 200, body: { code: 'R1' }, dropped: false, clientGone: false }],
    ['a settlement answered after the caller gave up', 'bet_result', { ...ok, end: T0 + 5, clientGone: true }],
  ];
  for (const [name, event, reply] of rows) {
    const g = newGrader(DEFAULT_THRESHOLDS, { transactions: 10, rounds: 10 });
    const attempt = (id: number, at: number) =>
      g.arrive({ id, at, user: u, event, tx: 'x', game: 'G0', total: 1, body: {}, applied: true });
    let id = 0;
    /** Ten other transactions, answered at once, from `at` on (each moves the clock): the bound forgets the oldest. */
    const others = (at: number) => {
      for (let i = 0; i < 10; i++) {
        const a = g.arrive({ id: ++id, at: at + i, user: 'p2', event: 'login', tx: `l${id}`, body: {}, applied: true });
        g.complete(a, { ...ok, end: at + i + 1 });
      }
    };
    g.complete(attempt(++id, T0), reply);
    const tx = g.txs.get('x')!;
    t.equal(statusOf(reportAt(g, 500), ID), 'pending', `${name}: pending until it is resent`);
    g.complete(attempt(++id, T0 + S), { ...ok, end: T0 + S + 5 });
    t.equal(statusOf(reportAt(g, 2 * S), ID), 'pass', `${name}: resent under its own id, answered R0`);
    // The window opened when the first reply ended (5 ms): it closes 60 s later.
    others(T0 + 30 * S);
    t.ok(inPlay(tx) && g.txs.has('x'), `${name}: in play, and held, while the window is open`);
    others(T0 + 60 * S + 5);
    t.equal(tx.windows?.size ?? 0, 0, `${name}: the window closed at its deadline`);
    t.notOk(inPlay(tx), `${name}: no longer in play`);
    t.notOk(g.txs.has('x'), `${name}: forgotten by the bound`);
    t.equal(statusOf(reportAt(g, 120 * S), ID), 'pass', `${name}: the verdict is unchanged`);
  }
});

t.test('a transaction forgotten while it is answered is judged on its own, and its windows still close', async (t) => {
  // More transactions in flight than the bound keeps in play: the oldest is forgotten before its
  // reply (dropped) is written. Its time-out, its reply and its window must fall on one orphan:
  // split over two, RETRY_SAME_TRANSACTION would wait for a window that never opens.
  const g = newGrader(DEFAULT_THRESHOLDS, { transactions: 5, rounds: 100 });
  const flying = Array.from({ length: 30 }, (_, i) =>
    g.arrive({ id: i + 1, at: T0 + i, user: u, event: 'bet', tx: `b${i}`, game: `G${i}`, total: 1, body: {}, applied: true }),
  );
  t.notOk(g.txs.has('b0'), 'the oldest bet in flight was forgotten');
  // Its caller gives up first (the time-out passes), then the wallet drops the reply.
  const timeout = DEFAULT_THRESHOLDS.client_timeout_s * S;
  g.advance(T0 + timeout + 10);
  g.complete(flying[0]!, { end: T0 + timeout + 20, status: 200, body: {}, dropped: true, clientGone: true });
  for (const [i, a] of flying.entries())
    if (i > 0) g.complete(a, { end: T0 + 40 + i, status: 200, body: { code: 'R0', latest_balance: 1 }, dropped: false, clientGone: false });
  const later = reportAt(g, 600 * S);
  t.equal(later.summary.pending, 0, 'nothing pending once every window has closed');
  t.equal(statusOf(later, 'RETRY_SAME_TRANSACTION'), 'pass', 'no round was resent under a new transaction_id');
});

t.test('RETRY_BACKOFF and NO_PREMATURE_RETRY: the tolerance grows by how late the wallet stamped the attempts', async (t) => {
  // A resend after a dropped reply, then another: the provider waited 1,000 ms, then 850 ms by the
  // wallet's stamps. With punctual stamps that is a shrink past max(100 ms, 10%); when the wallet's
  // event loop ran 30 ms late around each stamp, the stamps alone can account for it.
  const backoff = (lag: number) => {
    const g = newGrader(DEFAULT_THRESHOLDS);
    let id = 0;
    const attempt = (at: number) => {
      const a = g.arrive({ id: ++id, at: T0 + at, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag });
      g.complete(a, { end: T0 + at + 5, status: 200, body: null, dropped: true, clientGone: false });
    };
    for (const at of [0, 1_005, 1_860]) attempt(at);
    const r = reportAt(g, 60 * S);
    return statusOf(r, 'RETRY_BACKOFF');
  };
  t.same([backoff(0), backoff(20), backoff(30)], ['fail', 'fail', 'pass'], 'lag 0 and 20 ms: a shrink; lag 30 ms: within the stamps');
  const premature = (lag: number) => {
    const g = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: 3 });
    g.arrive({ id: 1, at: T0, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag });
    g.arrive({ id: 2, at: T0 + 2_700, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag });
    const r = reportAt(g, 60 * S);
    return statusOf(r, 'NO_PREMATURE_RETRY');
  };
  t.same(
    [premature(0), premature(100)],
    ['fail', 'pass'],
    'resent 300 ms before a 3 s time-out: premature unless the stamps lagged 2 × 100 ms',
  );
  // A burst of players on a starved machine: stamps 0.5-0.8 s late against a 2 s time-out (up to half of it counts).
  const burst = (at: number, lag: number) => {
    const g = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: 2 });
    g.arrive({ id: 1, at: T0, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag });
    g.arrive({ id: 2, at: T0 + at, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag });
    return statusOf(reportAt(g, 60 * S), 'NO_PREMATURE_RETRY');
  };
  t.same(
    [burst(1_250, 400), burst(1_250, 0), burst(50, 2_000), burst(800, 2_000)],
    ['pass', 'fail', 'fail', 'fail'],
    'resent 750 ms early by stamps lagging 2 × 400 ms: within half the time-out; punctual stamps, or a resend at once or at 0.8 s, still premature',
  );
});

t.test('RETRY_BACKOFF: a time-out the client gave up on later than declared counts its wait from when it closed', async (t) => {
  // A 2 s time-out whose timer fired 90 ms late (the connection closed 2,090 ms after the stamp),
  // then 500 ms waits, the first resend stamped 50 ms late: counted from the declared 2,000 ms the
  // first wait read 640 ms, and the next punctual 500 ms a shrink past the tolerance (100 ms).
  const g = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: 2, max_attempts: 10 });
  const a1 = g.arrive({ id: 1, at: T0, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag: 0 });
  g.advance(T0 + 2_050); // the session's clock passes the declared time-out first
  g.closed(a1, T0 + 2_090);
  t.equal(a1.knownAt, 2_090 + a1.at, 'known when the client closed it');
  const a2 = g.arrive({ id: 2, at: T0 + 2_590 + 50, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag: 0 });
  g.complete(a2, { end: T0 + 2_590 + 50 + 5, status: 200, body: null, dropped: true, clientGone: false });
  g.arrive({ id: 3, at: T0 + 2_645 + 500, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag: 0 });
  t.equal(statusOf(reportAt(g, 60 * S), 'RETRY_BACKOFF'), 'pass', 'waits 550 then 500 ms: within the tolerance');
});

t.test('LOST_REPLY_RETRIED: a caller that closed after its declared time-out has its window from when it closed', async (t) => {
  // A 0.2 s time-out declared, the connection closed at 0.7 s while the reply was held (3 s): the
  // provider knew of the loss at 0.7 s, so its window (1 s) ends at 1.7 s, not at 1.2 s.
  const resentAt = (ms: number) => {
    const g = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: 0.2, retry_window_s: 1, min_retry_gap_ms: 50 });
    const a1 = g.arrive({ id: 1, at: T0, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: true, lag: 0 });
    g.advance(T0 + 300); // its declared time-out ran out: lost
    g.closed(a1, T0 + 700);
    g.advance(T0 + ms - 1);
    const a2 = g.arrive({ id: 2, at: T0 + ms, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: true, lag: 0 });
    g.complete(a2, { end: T0 + ms + 5, status: 200, body: { code: 'R0', balance: 90 }, dropped: false, clientGone: false });
    g.complete(a1, { end: T0 + 3000, status: 200, body: { code: 'R0', balance: 90 }, dropped: false, clientGone: true });
    const r = reportAt(g, 60 * S);
    const v = r.checks.find((c) => c.id === 'LOST_REPLY_RETRIED')!.violations[0];
    return [
      statusOf(r, 'LOST_REPLY_RETRIED'),
      v?.evidence?.[0]?.known_at === new Date(T0 + 700).toISOString() ? 'known at 0.7 s' : v && 'known elsewhen',
    ];
  };
  t.same(resentAt(1355), ['pass', undefined], 'resent 0.655 s after it closed (before: failed, judged from 0.2 s)');
  t.same(resentAt(1690), ['pass', undefined], 'resent just before the window from its close ends');
  t.same(resentAt(1800), ['fail', 'known at 0.7 s'], 'resent after it: failed, the evidence citing when it was known');

  // The same verdict whether or not another callback holds the session's clock back meanwhile (an
  // arrival being decided, a callback at a proxy's upstream): a close after the window ran out moves nothing.
  const withHold = (hold: boolean, closeAt: number, resendAt: number) => {
    const g = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: 0.2, retry_window_s: 1, min_retry_gap_ms: 50 });
    const a1 = g.arrive({ id: 1, at: T0, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: true, lag: 0 });
    g.advance(T0 + 300);
    const ticket = hold ? g.expect(T0 + 1000) : undefined;
    g.closed(a1, T0 + closeAt);
    g.advance(T0 + resendAt - 1);
    const a2 = g.arrive({ id: 2, at: T0 + resendAt, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: true, lag: 0 });
    g.complete(a2, { end: T0 + resendAt + 5, status: 200, body: { code: 'R0', balance: 90 }, dropped: false, clientGone: false });
    if (ticket !== undefined) g.settle(ticket);
    g.complete(a1, { end: T0 + 3000, status: 200, body: { code: 'R0', balance: 90 }, dropped: false, clientGone: true });
    const r = reportAt(g, 60 * S);
    const v = r.checks.find((c) => c.id === 'LOST_REPLY_RETRIED')!.violations[0];
    return [statusOf(r, 'LOST_REPLY_RETRIED'), v && Date.parse(v.evidence![0]!.known_at!) <= Date.parse(v.decided_at!)];
  };
  for (const [closeAt, resendAt, want] of [
    [1150, 1800, 'pass'], // closed within the window: its window runs from the close (to 2.15 s)
    [1300, 1800, 'fail'], // closed after the window ran out (1.2 s): judged as declared
  ] as const)
    for (const hold of [false, true])
      t.same(
        withHold(hold, closeAt, resendAt),
        [want, want === 'fail' ? true : undefined],
        `closed at ${closeAt} ms, resent at ${resendAt} ms${hold ? ', the clock held meanwhile' : ''}: ${want}, known no later than decided`,
      );
});

t.test('RETRY_BACKOFF: a policy that grows the gap between sends passes although a time-out shortens the next wait', async (t) => {
  // The soak's provider: each send at least 1.5 times the previous gap after the one before. A
  // time-out (10 s) eats into the wait that follows it: the waits after the outcome go 15.7 s →
  // 13.6 s while the gaps between sends go 15.75 s → 23.6 s. A back-off that starts over shrinks both.
  const play = (sends: [number, 'timeout' | 'drop'][]) => {
    const g = newGrader({ ...DEFAULT_THRESHOLDS, max_attempts: 10 });
    sends.forEach(([at, how], i) => {
      const a = g.arrive({ id: i + 1, at: T0 + at, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag: 0 });
      if (how === 'timeout') g.closed(a, T0 + at + 10_000);
      else g.complete(a, { end: T0 + at + 5, status: 200, body: null, dropped: true, clientGone: false });
    });
    const r = reportAt(g, 600 * S);
    return statusOf(r, 'RETRY_BACKOFF');
  };
  const growingGaps: [number, 'timeout' | 'drop'][] = [
    [0, 'timeout'],
    [10_500, 'drop'],
    [26_250, 'timeout'],
    [49_875, 'drop'],
  ];
  t.equal(play(growingGaps), 'pass', 'gaps between sends grow');
  const startsOver: [number, 'timeout' | 'drop'][] = [
    [0, 'drop'],
    [1_005, 'drop'],
    [2_510, 'drop'],
    [3_015, 'drop'],
  ];
  t.equal(play(startsOver), 'fail', 'waits 1 s, 1.5 s, then 0.5 s: both shrink');
});

t.test('RETRY_BACKOFF: the minimum gap tolerance is proportional to it, and no lag hides a resend at once', async (t) => {
  // Two attempts of one transaction, the first's reply dropped; `gap` between the wallet's stamps,
  // each stamp taken when the event loop ran `lag` ms late.
  const gapStatus = (minGap: number, gap: number, lag: number) => {
    const g = newGrader({ ...DEFAULT_THRESHOLDS, min_retry_gap_ms: minGap });
    const p = g.arrive({ id: 1, at: T0, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag });
    g.complete(p, { end: T0 + 2, status: 200, body: null, dropped: true, clientGone: false });
    g.arrive({ id: 2, at: T0 + gap, user: u, event: 'bet', tx: 'b1', body: { n: 1 }, applied: false, lag });
    return statusOf(reportAt(g, 60 * S), 'RETRY_BACKOFF');
  };
  const LAGS = [0, 10, 25, 50, 100, 150, 250];
  for (const minGap of [100, 150, 200, 500, 1000, 5000])
    for (const lag of LAGS) {
      // A resend at once: 0 ms, or ~16 ms (a reply read and the request written again).
      for (const gap of [0, 16]) t.equal(gapStatus(minGap, gap, lag), 'fail', `min ${minGap} ms, lag ${lag} ms: resent after ${gap} ms`);
      // Half the minimum gap is never within the tolerance (at most 45%).
      t.equal(gapStatus(minGap, minGap / 2, lag), 'fail', `min ${minGap} ms, lag ${lag} ms: resent after half of it`);
      // An honest client: its resend stamped as late as 20% early (jitter), more by the first stamp's lag up to a quarter.
      const early = minGap * 0.2 + Math.min(lag, minGap / 4);
      t.equal(
        gapStatus(minGap, Math.ceil(minGap - early), lag),
        'pass',
        `min ${minGap} ms, lag ${lag} ms: ${Math.ceil(minGap - early)} ms apart`,
      );
      t.equal(gapStatus(minGap, minGap, lag), 'pass', `min ${minGap} ms, lag ${lag} ms: exactly the gap`);
    }
  // The reported case: 150 ms declared, a client resending at once (~16 ms) on a loaded machine.
  t.equal(gapStatus(150, 16, 250), 'fail');
});

t.test('a new transaction_id in the same millisecond as the outcome it follows counts as after it (knownAt <= at)', async (t) => {
  // b1's reply is dropped at 5 ms (the provider knows it is lost then); b2, same round, new id.
  const lostThen = (at: number) => statusOf(run([bet(u, 'b1', 0, { drop: true }), bet(u, 'b2', at)], 10 * S), 'RETRY_SAME_TRANSACTION');
  t.equal(lostThen(5), 'fail', 'the same millisecond: after the loss was known');
  t.equal(lostThen(4), 'pending', 'a millisecond before it: not yet a replacement (b1 may still be resent)');
  // b1 refused with R3 at 5 ms; the same bet again under a new id.
  const refusedThen = (at: number) =>
    statusOf(run([bet(u, 'b1', 0, { code: 'R3' }), bet(u, 'b2', at, { code: 'R3' })], 10 * S), 'NO_RETRY_AFTER_REFUSAL');
  t.equal(refusedThen(5), 'fail', 'the same millisecond as the refusal was read');
  t.equal(refusedThen(4), 'pass', 'before the refusal was read: not a resend of it');
});

t.test('a time-out of whole milliseconds in seconds is exactly those milliseconds (4.03 s is 4030 ms)', async (t) => {
  // A reply written at the time-out itself came too late, whatever decimals the seconds have.
  const outcome = (timeoutS: number, replyMs: number) => {
    const g = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: timeoutS });
    // At the session's origin, where its times are smallest (far from it, a double's rounding hides the fraction).
    const at = g.origin;
    const a = g.arrive({ id: 1, at, user: u, event: 'bet', tx: 'b1', game: 'G1', total: 1, body: {}, applied: true });
    const done: Completion = { end: at + replyMs, status: 200, body: { code: 'R0', latest_balance: 9 }, dropped: false, clientGone: false };
    g.complete(a, done);
    return a.outcome;
  };
  t.same(
    [outcome(4, 3999), outcome(4, 4000), outcome(4.03, 4029), outcome(4.03, 4030), outcome(0.1, 100), outcome(0.7, 700)],
    ['R0', 'lost', 'R0', 'lost', 'lost', 'lost'],
  );
});

t.test("BET_WITHIN_REPORTED_BALANCE, in the pipeline's order: a reply written after a bet arrived is not held against it", async (t) => {
  // The pipeline tells grading of a callback once it is decided and journalled, so a reply decided
  // earlier may be folded before a bet that arrived before that reply was written (bets sent at once).
  const R0 = (balance: number) => ({ status: 200, body: { code: 'R0', latest_balance: balance }, dropped: false, clientGone: false });
  const rows: [string, number, string][] = [
    ['the 4th of five bets sent at once (arrived before the others were answered)', T0 + S + 3, 'pass'],
    ['a bet sent after those replies were written', T0 + 2 * S, 'fail'],
  ];
  for (const [name, at, want] of rows) {
    const g = newGrader(DEFAULT_THRESHOLDS);
    const login = g.arrive({ id: 1, at: T0, user: u, event: 'login', tx: 'l1', body: {}, applied: true });
    g.complete(login, { end: T0 + 5, ...R0(30) });
    // Three bets of 10 arrive at once; each is answered 50 ms later, before the fourth is folded.
    for (let i = 0; i < 3; i++) {
      const a = g.arrive({
        id: i + 2,
        at: T0 + S + i,
        user: u,
        event: 'bet',
        tx: `b${i}`,
        game: `G${i}`,
        total: 10,
        body: {},
        applied: true,
      });
      g.complete(a, { end: T0 + S + 50 + i, ...R0(20 - 10 * i) });
    }
    g.arrive({ id: 5, at, user: u, event: 'bet', tx: 'b3', game: 'G3', total: 10, body: {}, applied: false });
    const check = reportAt(g, 10 * S).checks.find((c) => c.id === 'BET_WITHIN_REPORTED_BALANCE')!;
    t.equal(check.status, want, `${name}: ${check.violations[0]?.message ?? 'no violation'}`);
    if (want === 'fail') t.same(check.violations[0]!.journal_ids, [4, 5], 'cites the latest reply written before the bet');
  }
});

t.test('ROUNDS_SETTLED: a refusal a rule forced or the upstream answered ends the wait; one of wallet-sim rules does not', async (t) => {
  type Step = { tx: string; event: 'bet' | 'bet_result'; code: string; imposed?: boolean; dropped?: boolean; applied?: boolean };
  const opened: Step = { tx: 'b1', event: 'bet', code: 'R0' };
  const rows: [string, Step[], string][] = [
    ['settlement refused R3 by a rule', [opened, { tx: 's1', event: 'bet_result', code: 'R3', imposed: true }], 'pass'],
    ['settlement refused R3 by the upstream (proxy)', [opened, { tx: 's1', event: 'bet_result', code: 'R2', imposed: true }], 'pass'],
    ["settlement refused R3 by wallet-sim's own rules", [opened, { tx: 's1', event: 'bet_result', code: 'R3' }], 'fail'],
    ['settlement R1 (not definite) by the upstream', [opened, { tx: 's1', event: 'bet_result', code: 'R1', imposed: true }], 'fail'],
    [
      "a rule's refusal the provider never read (dropped)",
      [opened, { tx: 's1', event: 'bet_result', code: 'R3', imposed: true, dropped: true }],
      'fail',
    ],
    [
      'the opening bet applied but lost, its resend refused by the upstream',
      [
        { ...opened, dropped: true },
        { tx: 'b1', event: 'bet', code: 'R3', imposed: true, applied: false },
      ],
      'pass',
    ],
    [
      'another bet of the round refused by the upstream',
      [opened, { tx: 'b2', event: 'bet', code: 'R3', imposed: true, applied: false }],
      'fail',
    ],
    [
      // A rule's body answered R4 for a bet the wallet applied: the stake the provider knows is not the wallet's.
      'another bet of the round applied, answered a forced R4',
      [opened, { tx: 'b2', event: 'bet', code: 'R4', imposed: true, applied: true }],
      'pass',
    ],
    ['nothing but the bet', [opened], 'fail'],
  ];
  for (const [name, steps, want] of rows) {
    const g = newGrader({ ...DEFAULT_THRESHOLDS, round_max_age_s: 10 });
    steps.forEach((s, i) => {
      const at = T0 + i * S;
      const applied = s.applied ?? s.code === 'R0';
      const a = g.arrive({ id: i + 1, at, user: u, event: s.event, tx: s.tx, game: 'G1', total: 1, body: {}, applied, imposed: s.imposed });
      const body = { code: s.code, latest_balance: 1 };
      g.complete(a, { end: at + 5, status: 200, body, dropped: s.dropped ?? false, clientGone: false } satisfies Completion);
    });
    // (past retry_window_s after the last attempt: a provider still resending its settlement is pending)
    t.equal(statusOf(reportAt(g, 200 * S), 'ROUNDS_SETTLED'), want, name);
  }
});

t.test('ROUNDS_SETTLED: a round the provider could do no more for is counted as excused, never as passed', async (t) => {
  const dead = { client_timeout_s: 1, max_attempts: 3, retry_window_s: 5, round_max_age_s: 25 };
  const late = (ats: number[], user = u, game = 'G1') => ats.map((at) => bet(user, `b-${user}`, at, { game, ms: 3 * S, gone: true }));
  const excused =
    '1 excused (left to the operator: the provider could not settle them, its settlement or a resend of the opening bet refused with R2–R4 by a scenario rule or the upstream, or its settlement or a bet of it left unanswered up to max_attempts)';
  const rows: [string, Cb[], string, string][] = [
    [
      'every attempt of the bet lost, up to max_attempts',
      late([100, 1700, 3600]),
      'pass',
      `1 round opened: 0 passed, 0 failed, 0 still within a window, ${excused}`,
    ],
    [
      'beside a round settled as usual',
      [...late([100, 1700, 3600]), bet('p2', 'b2', 0), settle('p2', 's2', 100)],
      'pass',
      `2 rounds opened: 1 passed, 0 failed, 0 still within a window, ${excused}`,
    ],
    ['the bet lost twice of 3, then given up', late([100, 1700]), 'fail', '1 round opened: 0 passed, 1 failed, 0 still within a window'],
    [
      // It knows its round is open, but not its stake (the lost bet applied or not): no settlement it may send is right.
      'the bet given up on, another bet of the round read as R0',
      [...late([100, 1700, 3600]), bet(u, 'b3', 4000, { total: 5 })],
      'pass',
      `1 round opened: 0 passed, 0 failed, 0 still within a window, ${excused}`,
    ],
    [
      'a bet of the round given up on before max_attempts, another read as R0',
      [...late([100, 1700]), bet(u, 'b3', 4000, { total: 5 })],
      'fail',
      '1 round opened: 0 passed, 1 failed, 0 still within a window',
    ],
    [
      'given up on and settled anyway: settled',
      [...late([100, 1700, 3600]), settle(u, 's1', 4600)],
      'pass',
      `1 round opened: 0 passed, 0 failed, 0 still within a window, ${excused}`,
    ],
  ];
  for (const [name, cbs, want, detail] of rows) {
    const c = run(cbs, 60 * S, dead).checks.find((c) => c.id === 'ROUNDS_SETTLED')!;
    t.equal(c.status, want, `${name}: ${c.violations[0]?.message ?? 'no violation'}`);
    t.equal(c.detail, detail, name);
  }
  // A forced refusal of the settlement (validation-failure.json): excused as well, per player.
  const g = newGrader({ ...DEFAULT_THRESHOLDS, round_max_age_s: 10 });
  const steps = [
    { tx: 'b1', event: 'bet', code: 'R0', applied: true, imposed: false },
    { tx: 's1', event: 'bet_result', code: 'R3', applied: false, imposed: true },
  ];
  steps.forEach((s, i) => {
    const at = T0 + i * S;
    const a = g.arrive({
      id: i + 1,
      at,
      user: u,
      event: s.event,
      tx: s.tx,
      game: 'G1',
      total: 1,
      body: {},
      applied: s.applied,
      imposed: s.imposed,
    });
    g.complete(a, { end: at + 5, status: 200, body: { code: s.code, latest_balance: 1 }, dropped: false, clientGone: false });
  });
  const mine = reportOf(g, {
    now: new Date(T0 + 60 * S),
    scenario: 'test',
    session: { id: 's', started_at: new Date(T0).toISOString(), seed: null },
    userId: u,
  });
  t.match(
    mine.checks.find((c) => c.id === 'ROUNDS_SETTLED')!.detail,
    /^1 round opened: 0 passed, 0 failed, 0 still within a window, 1 excused \(/,
  );
});

t.test('LOST_REPLY_RETRIED and FAILED_SETTLEMENT_RETRIED: after max_attempts attempts, giving up is right', async (t) => {
  const th = { max_attempts: 3, min_retry_gap_ms: 100 };
  const lost = (tx: typeof bet, id: string, n: number) => Array.from({ length: n }, (_, i) => tx(u, id, i * 2 * S, { drop: true }));
  const r1 = (n: number) => Array.from({ length: n }, (_, i) => settle(u, 's1', i * 2 * S, { code: 'R1' }));
  const rows: [string, Cb[], CheckId, string][] = [
    ['a bet lost 3 times of 3, then given up', lost(bet, 'b1', 3), 'LOST_REPLY_RETRIED', 'pass'],
    ['a bet lost 2 times of 3, then given up', lost(bet, 'b1', 2), 'LOST_REPLY_RETRIED', 'fail'],
    ['a settlement answered R1 3 times of 3, then given up', r1(3), 'FAILED_SETTLEMENT_RETRIED', 'pass'],
    ['a settlement answered R1 twice of 3, then given up', r1(2), 'FAILED_SETTLEMENT_RETRIED', 'fail'],
  ];
  for (const [name, cbs, id, want] of rows) t.equal(statusOf(run(cbs, 200 * S, th), id), want, name);
});

t.test('ROUNDS_SETTLED: a round found open by a report was decided when its age ran out, not when the report was read', async (t) => {
  const r = run([bet(u, 'b1', 3 * S), bet(u, 'b2', 8 * S, { game: 'G2' }), settle(u, 's2', 9 * S, { game: 'G2' })], 100 * S, {
    round_max_age_s: 20,
  });
  const v = r.checks.find((c) => c.id === 'ROUNDS_SETTLED')!.violations[0]!;
  t.equal(v.decided_at, new Date(T0 + 3 * S + 20 * S).toISOString(), 'the opening bet + round_max_age_s');
});

t.test('windows judge a resend by when it arrived, whether or not another callback held the clock back meanwhile', async (t) => {
  const W = 2000; // retry_window_s 2
  const th = { ...DEFAULT_THRESHOLDS, retry_window_s: 2, min_retry_gap_ms: 50 };
  /** Another callback arrived at `holdAt` and is still being decided until the end (a slow upstream, a Redis round trip). */
  const session = (hold: boolean, holdAt = 50) => {
    const g = newGrader(th);
    const ticket = hold ? g.expect(T0 + holdAt) : undefined;
    return { g, release: () => ticket !== undefined && g.settle(ticket) };
  };
  const bodyOf = (n: number) => ({ n });
  const answered = (g: Grader, a: ReturnType<Grader['arrive']>, at: number, code: string) =>
    g.complete(a, { end: T0 + at, status: 200, body: { code, balance: 90 }, dropped: false, clientGone: false });

  for (const hold of [false, true]) {
    const how = hold ? 'the clock held meanwhile' : 'nothing held';
    // FAILED_SETTLEMENT_RETRIED: an R1 settlement resent 0.5 s after its window ran out.
    {
      const { g, release } = session(hold);
      const s1 = g.arrive({
        id: 1,
        at: T0 + 100,
        user: u,
        event: 'bet_result',
        tx: 's1',
        game: 'G1',
        body: bodyOf(1),
        applied: false,
        lag: 0,
      });
      answered(g, s1, 105, 'R1');
      const s2 = g.arrive({
        id: 2,
        at: T0 + 105 + W + 500,
        user: u,
        event: 'bet_result',
        tx: 's1',
        game: 'G1',
        body: bodyOf(1),
        applied: true,
        lag: 0,
      });
      answered(g, s2, 105 + W + 505, 'R0');
      release();
      const c = reportAt(g, 60 * S).checks.find((x) => x.id === 'FAILED_SETTLEMENT_RETRIED')!;
      t.equal(c.status, 'fail', `FAILED_SETTLEMENT_RETRIED, a resend 0.5 s late, ${how}: fail`);
      t.match(c.violations[0]?.message, /resent late: #2 arrived 2\.5 s after/, `… and its message says it came late (${how})`);
    }
    // NO_RETRY_AFTER_REFUSAL: a bet refused R4, the same bet under a new id 0.5 s after the window.
    {
      const { g, release } = session(hold);
      const b1 = g.arrive({ id: 1, at: T0 + 100, user: u, event: 'bet', tx: 'b1', game: 'G1', body: bodyOf(1), applied: false, lag: 0 });
      answered(g, b1, 105, 'R4');
      g.arrive({ id: 2, at: T0 + 105 + W + 500, user: u, event: 'bet', tx: 'b2', game: 'G1', body: bodyOf(1), applied: false, lag: 0 });
      release();
      t.equal(
        statusOf(reportAt(g, 60 * S), 'NO_RETRY_AFTER_REFUSAL'),
        'pass',
        `NO_RETRY_AFTER_REFUSAL, the same bet 0.5 s after the window, ${how}: pass`,
      );
    }
  }
});

t.test(
  'ROUNDS_SETTLED: a settlement sent in time and still being answered keeps its round pending, whenever a report is read',
  async (t) => {
    const opened = () => {
      const g = newGrader(DEFAULT_THRESHOLDS); // rounds settled within 300 s
      loggedIn(g);
      g.complete(g.arrive(cb(2, 100, 'bet', 'b1', true)), ok(105));
      return g;
    };
    const roundsAt = (g: Grader, ms: number) => statusOf(reportAt(g, ms), 'ROUNDS_SETTLED');

    // Proxy mode: the settlement arrived at 299 s and waits at the upstream (its arrival holds the clock) until 302 s.
    {
      const g = opened();
      const ticket = g.expect(T0 + 299 * S);
      t.equal(roundsAt(g, 301 * S), 'pending', 'at the upstream, read at 301 s: pending (before: failed for good)');
      g.complete(g.arrive(cb(3, 299 * S, 'bet_result', 's1', true), ticket), ok(302 * S));
      t.equal(roundsAt(g, 303 * S), 'pass', 'its R0 at 302 s: settled in time');
    }
    // A rule answers the settlement R1 after a delay (written at 303 s); resent at 304 s, R0.
    {
      const g = opened();
      const s = g.arrive(cb(3, 299 * S, 'bet_result', 's1', false));
      t.equal(roundsAt(g, 301 * S), 'pending', 'held by a delay, read at 301 s: pending (before: failed for good)');
      g.complete(s, ok(303 * S, 'R1'));
      g.complete(g.arrive(cb(4, 304 * S, 'bet_result', 's1', true)), ok(304 * S + 5));
      t.equal(roundsAt(g, 310 * S), 'pass', 'resent after its R1, R0: settled in time');
    }
  },
);

t.test('settlement checks judge a bet as it stood when the settlement arrived, in whatever order they are graded', async (t) => {
  const statuses = (g: Grader) => {
    const r = reportAt(g, 10 * S);
    return [statusOf(r, 'NO_SETTLEMENT_BEFORE_BET_REPLY'), statusOf(r, 'NO_SETTLEMENT_OF_REFUSED_BET')];
  };
  // Proxy mode grades a callback once its upstream answered: the bet (arrived 100 ms, answered 150 ms)
  // before the settlement that arrived at 102 ms, while the bet was unanswered.
  for (const code of ['R0', 'R4']) {
    const g = newGrader(DEFAULT_THRESHOLDS);
    loggedIn(g);
    const [tb, ts] = [g.expect(T0 + 100), g.expect(T0 + 102)];
    g.complete(g.arrive(cb(2, 100, 'bet', 'b1', code === 'R0'), tb), ok(150, code));
    g.complete(g.arrive(cb(3, 102, 'bet_result', 's1', code === 'R0'), ts), ok(160, code === 'R0' ? 'R0' : 'R3'));
    t.same(
      statuses(g),
      ['fail', code === 'R0' ? 'not_exercised' : 'pass'],
      `bet ${code}: settled before the bet's reply (before: passed, and an R4 blamed on NO_SETTLEMENT_OF_REFUSED_BET)`,
    );
  }
  // A bet answered R1 and resent; the settlement sent while the resend is unanswered: an R1 answers nothing.
  {
    const g = newGrader(DEFAULT_THRESHOLDS);
    loggedIn(g);
    g.complete(g.arrive(cb(2, 100, 'bet', 'b1', false)), ok(105, 'R1'));
    const resend = g.arrive(cb(3, 1100, 'bet', 'b1', true));
    const s = g.arrive(cb(4, 1200, 'bet_result', 's1', true));
    g.complete(s, ok(1205));
    g.complete(resend, ok(4100));
    t.equal(statuses(g)[0], 'fail', 'settled while the resend of an R1 bet was unanswered (before: passed)');
  }
});
