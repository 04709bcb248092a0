// The same history graded with nothing held and with the session's clock held back by another
// callback still being decided (a slow proxy upstream, a delay, a Redis round trip): the same
// verdicts (docs/checks.md: another callback's pace never changes a verdict). A table of the
// histories a review found judged two ways; each also states the verdict the docs give it.
import t from 'tap';
import { DEFAULT_THRESHOLDS, newGrader, reportOf, type Thresholds } from '../../src/grading/grade.js';
import type { Grader } from '../../src/grading/grader.js';
import type { CheckId } from '../../src/protocol/types.generated.js';
import { T0 } from './journal-builder.js';
import { cb, login, ok } from './grader-steps.js';

const S = 1000;
/** p1 logs in, bets on G1 at 100 ms, and settles it at 100 s with a settlement wallet-sim's rules refuse (R3). */
function refusedSettlement(g: Grader): void {
  login(g);
  g.complete(g.arrive(cb(2, 100, 'bet', 'b1', true)), ok(105));
  g.complete(g.arrive(cb(3, 100 * S, 'bet_result', 's1', false)), ok(100 * S + 5, 'R3'));
}
const QUICK: Partial<Thresholds> = { client_timeout_s: 0.2, retry_window_s: 1, min_retry_gap_ms: 50 };

interface Row {
  name: string;
  th?: Partial<Thresholds>;
  /** The history; `hold()` starts another callback's hold at its place, `release()` ends it (no-ops when nothing is held). */
  play: (g: Grader, hold: () => void, release: () => void) => void;
  check: CheckId;
  want: string;
  /** A message the violation must say, held or not. */
  says?: RegExp;
  now?: number;
}

const ROWS: Row[] = [
  {
    name: 'a bet resent 1.3 s after its loss (window 1 s), the hold begun before its time-out',
    th: QUICK,
    play: (g, hold, release) => {
      hold();
      const a1 = g.arrive(cb(1, 0, 'bet', 't1', true));
      g.complete(g.arrive(cb(2, 1500, 'bet', 't1', true)), ok(1505));
      release();
      g.complete(a1, ok(3000));
    },
    check: 'LOST_REPLY_RETRIED',
    want: 'fail',
  },
  {
    name: 'a bet whose caller closed at 1.5 s (time-out 0.2 s, window 1 s), resent at 2 s',
    th: QUICK,
    play: (g, hold, release) => {
      hold();
      const a1 = g.arrive(cb(1, 0, 'bet', 'b1', true));
      g.closed(a1, T0 + 1500);
      release();
      g.complete(g.arrive(cb(2, 2000, 'bet', 'b1', true)), ok(2005));
      g.complete(a1, ok(5000, 'R0', true));
    },
    check: 'LOST_REPLY_RETRIED',
    want: 'fail',
  },
  {
    name: 'an R1 settlement resent, that resend lost, a third send 1.5 s after the loss',
    th: QUICK,
    play: (g, hold, release) => {
      g.complete(g.arrive(cb(1, 0, 'bet_result', 's1', false)), ok(5, 'R1'));
      const s2 = g.arrive(cb(2, 100, 'bet_result', 's1', false));
      hold();
      g.complete(g.arrive(cb(3, 1800, 'bet_result', 's1', true)), ok(1805));
      release();
      g.complete(s2, ok(3000, 'R1'));
    },
    check: 'FAILED_SETTLEMENT_RETRIED',
    want: 'fail',
    says: /resent late: #3 arrived 1\.5 s after the loss was known \(answered R0\)/,
  },
  {
    name: 'an R1 settlement resent, its caller closing that resend at 0.8 s (within the window), a third send at 1.5 s',
    th: QUICK,
    play: (g, hold, release) => {
      g.complete(g.arrive(cb(1, 0, 'bet_result', 's1', false)), ok(5, 'R1'));
      const s2 = g.arrive(cb(2, 100, 'bet_result', 's1', false));
      g.closed(s2, T0 + 800);
      hold();
      g.complete(g.arrive(cb(3, 1500, 'bet_result', 's1', true)), ok(1505));
      release();
      g.complete(s2, ok(3000, 'R1', true));
    },
    check: 'FAILED_SETTLEMENT_RETRIED',
    want: 'pass',
  },
  {
    name: 'an R1 settlement resent 0.5 s after its window, that resend answered without a readable code',
    th: { ...QUICK, retry_window_s: 2 },
    play: (g, hold, release) => {
      g.complete(g.arrive(cb(1, 0, 'bet_result', 's1', false)), ok(5, 'R1'));
      hold();
      const s2 = g.arrive({ ...cb(2, 2505, 'bet_result', 's1', false), excused: true });
      g.complete(s2, { ...ok(2510), body: 'not a reply' });
      release();
    },
    check: 'FAILED_SETTLEMENT_RETRIED',
    want: 'fail',
  },
  {
    name: 'a settlement in time, held by a delay past its time-out, resent within the window after its loss',
    play: (g, hold, release) => {
      login(g);
      g.complete(g.arrive(cb(2, 100, 'bet', 'b1', true)), ok(105));
      const s1 = g.arrive(cb(3, 299 * S, 'bet_result', 's1', false));
      g.complete(s1, ok(330 * S, 'R1'));
      hold();
      reportOf(g, { now: new Date(T0 + 361 * S), scenario: 't', session: { id: 's', started_at: new Date(T0).toISOString(), seed: null } });
      release();
      g.complete(g.arrive(cb(4, 365 * S, 'bet_result', 's1', true)), ok(365 * S + 5));
    },
    check: 'ROUNDS_SETTLED',
    want: 'pass',
    now: 400 * S,
  },
  {
    name: "a settlement refused R3 (wallet-sim's rules), the corrected one in time, R1 and resent until R0 at 340 s",
    play: (g) => {
      refusedSettlement(g);
      let id = 4;
      for (const at of [200, 250, 300]) g.complete(g.arrive(cb(id++, at * S, 'bet_result', 's2', false)), ok(at * S + 5, 'R1'));
      reportOf(g, { now: new Date(T0 + 310 * S), scenario: 't', session: { id: 's', started_at: new Date(T0).toISOString(), seed: null } });
      g.complete(g.arrive(cb(id, 340 * S, 'bet_result', 's2', true)), ok(340 * S + 5));
    },
    check: 'ROUNDS_SETTLED',
    want: 'pass',
    now: 400 * S,
  },
  {
    name: "a settlement refused R3 (wallet-sim's rules) in time, the correct one only at 350 s",
    play: (g) => {
      refusedSettlement(g);
      g.complete(g.arrive(cb(4, 350 * S, 'bet_result', 's2', true)), ok(350 * S + 5));
    },
    check: 'ROUNDS_SETTLED',
    want: 'fail',
    now: 400 * S,
  },
  {
    name: 'a bet held by a delay past its time-out (0.2 s), its round settled at 1 s',
    th: { ...QUICK, retry_window_s: 2 },
    play: (g, hold, release) => {
      login(g);
      const b1 = g.arrive(cb(2, 10, 'bet', 'b1', true));
      hold();
      g.complete(g.arrive(cb(3, 1000, 'bet_result', 's1', false)), ok(1005, 'R3'));
      release();
      g.complete(b1, ok(3000));
    },
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    want: 'fail',
    now: 10 * S,
  },
];

t.test('the table', async (t) => {
  for (const row of ROWS)
    for (const held of [false, true]) {
      const g = newGrader({ ...DEFAULT_THRESHOLDS, ...row.th });
      let ticket: number | undefined;
      // The other callback arrived at 50 ms (before anything it could hide) and is decided only when released.
      const hold = () => void (held && ticket === undefined && (ticket = g.expect(T0 + 50)));
      const release = () => void (ticket !== undefined && g.settle(ticket));
      row.play(g, hold, release);
      release();
      const r = reportOf(g, {
        now: new Date(T0 + (row.now ?? 60 * S)),
        scenario: 't',
        session: { id: 's', started_at: new Date(T0).toISOString(), seed: null },
      });
      const c = r.checks.find((x) => x.id === row.check)!;
      t.equal(c.status, row.want, `${row.check}, ${row.name}${held ? ', the clock held meanwhile' : ''}: ${row.want}`);
      if (row.says) t.match(c.violations[0]?.message, row.says, `… saying so${held ? ' (held)' : ''}`);
    }
});
