// Every check's violation message, word for word, against the facts of the session it cites: no
// message may call an R0 "refused", call an R1 or a lost reply a refusal, or say a bet that may
// have been applied "staked nothing". One row per kind of violation.
import t from 'tap';
import { DEFAULT_THRESHOLDS, grade, type Thresholds } from '../../src/grading/grade.js';
import type { CheckId } from '../../src/protocol/types.generated.js';
import { bet, type Cb, journal, login, settle, T0 } from './journal-builder.js';

const S = 1000;
const u = 'p1';
interface Row {
  check: CheckId;
  journal: Cb[];
  now: number;
  t?: Partial<Thresholds>;
  /** The first violation's message, exactly. */
  message: string;
  /** The journal ids it cites, when more than the ones its message names (every #id named is cited in any case). */
  ids?: number[];
}

const ROWS: Row[] = [
  {
    check: 'LOST_REPLY_RETRIED',
    now: 70 * S,
    journal: [bet(u, 'b1', 0, { drop: true })],
    message:
      'the reply to bet b1 of p1 (#1) was lost (the connection was closed without a reply) and the transaction was never resent within 60 s',
  },
  {
    check: 'LOST_REPLY_RETRIED',
    now: 90 * S,
    journal: [bet(u, 'b1', 0, { ms: 12 * S })],
    message:
      'the reply to bet b1 of p1 (#1) was lost: written after 12 s, past the client_timeout_s of 10 s (to a provider with that time-out, no reply) and the transaction was never resent within 60 s',
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b2', S)],
    message:
      'the reply to bet b1 of p1 (#1) was lost; 995 ms later bet b2 of p1 (#2) arrived for the same round G1 under a new transaction_id instead of a resend of b1',
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    now: 10 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's2', 2 * S)],
    message:
      'the reply to bet_result s1 of p1 (#2) was R1 (not applied, or not known to be); 995 ms later bet_result s2 of p1 (#3) arrived for the same round G1 under a new transaction_id instead of a resend of s1',
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    now: 10 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { status: 500 }), settle(u, 's2', 2 * S)],
    message:
      'the reply to bet_result s1 of p1 (#2) had no readable code (not known to be applied); 995 ms later bet_result s2 of p1 (#3) arrived for the same round G1 under a new transaction_id instead of a resend of s1',
  },
  {
    check: 'RETRY_UNCHANGED',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S, { total: 20 })],
    message: 'bet b1 of p1 (#2) resends b1 with a different body than #1: data.total_bet_amount changed',
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    now: 100 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' })],
    message: 'bet_result s1 of p1 (#2) was answered R1, and it was not resent within 60 s, so its round was left unsettled',
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    now: 100 * S,
    // resent after the window: the report says so, and cites the resend
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's1', 96 * S + 5)],
    message:
      'bet_result s1 of p1 (#2) was answered R1, and it was not resent within 60 s, so its round was left unsettled; it was resent late: #3 arrived 95 s after the R1 was known (answered R0)',
    ids: [2, 3],
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    now: 100 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's1', 2 * S, { drop: true })],
    message:
      'the resends of s1 stopped at #3 (its reply lost) before an R0, and it was not resent within 60 s, so its round was left unsettled',
    ids: [2, 3],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    now: 10 * S,
    journal: [login(u, 'l1', 0), bet(u, 'b1', S, { code: 'R4', balance: 5 }), bet(u, 'b1', 2 * S), settle(u, 's1', 3 * S)],
    message: 'bet b1 of p1 (#2) was refused with R4, a definite answer, yet #3 sent it again',
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R3' }), bet(u, 'b2', S, { code: 'R3' })],
    message:
      'bet b1 of p1 (#1) was refused with R3, a definite answer; 995 ms later bet b2 of p1 (#2) sent the same bet (same round and amounts) again under a new transaction_id',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4' }), settle(u, 's1', S, { code: 'R3' })],
    message:
      'bet_result s1 of p1 (#2) settles round G1, but no bet of that round was answered R0: bet b1 was refused with R4 (#1), so it staked nothing',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4' }), bet(u, 'b2', S, { code: 'R1' }), settle(u, 's1', 2 * S, { code: 'R3' })],
    message:
      'bet_result s1 of p1 (#3) settles round G1, but no bet of that round was answered R0: bet b1 was refused with R4 (#1), so it staked nothing; bet b2 was answered R1 (#2), not applied or not known to be, and was not resent, so the provider could not know whether it was applied',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 10 * S,
    // each bet's consequence follows that bet: after the R3 the provider did know
    journal: [bet(u, 'b1', 0, { code: 'R1' }), bet(u, 'b2', S, { code: 'R3' }), settle(u, 's1', 2 * S, { code: 'R3' })],
    message:
      'bet_result s1 of p1 (#3) settles round G1, but no bet of that round was answered R0: bet b1 was answered R1 (#1), not applied or not known to be, and was not resent, so the provider could not know whether it was applied; bet b2 was refused with R3 (#2), so it staked nothing',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 60 * S,
    t: { client_timeout_s: 1, max_attempts: 3 },
    // every attempt answered past the time-out, resent up to max_attempts, then settled anyway
    journal: [...[0, 1600, 3500].map((at) => bet(u, 'b1', at, { ms: 3 * S, gone: true })), settle(u, 's1', 4600)],
    message:
      'bet_result s1 of p1 (#4) settles round G1, but no bet of that round was answered R0: the reply to bet b1 (#3) was lost, after 3 attempts (max_attempts 3: it was not to be resent again), so the provider could not know whether it was applied',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 60 * S,
    t: { client_timeout_s: 1, max_attempts: 5 },
    journal: [bet(u, 'b1', 0, { code: 'R1' }), bet(u, 'b1', 600, { code: 'R1' }), settle(u, 's1', 1200)],
    message:
      'bet_result s1 of p1 (#3) settles round G1, but no bet of that round was answered R0: bet b1 was answered R1 (#2), not applied or not known to be, after 2 attempts, and it was not resent again, so the provider could not know whether it was applied',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 10 * S,
    // the bet applied and its reply dropped; its resend changed the amount and was refused; then settled
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S, { code: 'R3', total: 20 }), settle(u, 's1', 2 * S)],
    message:
      'bet_result s1 of p1 (#3) settles round G1, but no bet of that round was answered R0: bet b1 was refused with R3 (#2), though an earlier attempt (#1) was applied and its reply lost, so the provider had no R0 for it: a refused bet is not settled (send a bet_result only for a bet answered R0)',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), settle(u, 's1', S)],
    message:
      'bet_result s1 of p1 (#2) settles round G1, but no bet of that round was answered R0: the reply to bet b1 (#1) was lost and it was not resent, so the provider could not know whether it was applied',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { status: 502 }), settle(u, 's1', S, { code: 'R3' })],
    message:
      'bet_result s1 of p1 (#2) settles round G1, but no bet of that round was answered R0: the reply to bet b1 (#1) had no readable code and it was not resent, so the provider could not know whether it was applied',
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    now: 10 * S,
    // two bets of the round: one whose reply was lost (it may have been applied), one refused; the evidence shows both
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b2', S, { code: 'R3' }), settle(u, 's1', 2 * S)],
    message:
      'bet_result s1 of p1 (#3) settles round G1, but no bet of that round was answered R0: the reply to bet b1 (#1) was lost and it was not resent, so the provider could not know whether it was applied; bet b2 was refused with R3 (#2), so it staked nothing',
    ids: [1, 2, 3],
  },
  {
    check: 'NO_SETTLEMENT_BEFORE_BET_REPLY',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { ms: 3 * S }), settle(u, 's1', 40)],
    message: 'bet_result s1 of p1 (#2) arrived 40 ms after bet b1 of p1 (#1), while that bet was still unanswered',
  },
  {
    check: 'NO_PREMATURE_RETRY',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { ms: 3 * S }), bet(u, 'b1', 16)],
    message: 'bet b1 of p1 (#2) was sent 16 ms after #1, which was still unanswered: the declared client time-out is 10 s',
  },
  {
    check: 'RETRY_BACKOFF',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', 16)],
    message: '#2 resent b1 16 ms after #1 (at least 500 ms)',
  },
  {
    check: 'RETRY_BACKOFF',
    now: 10 * S,
    journal: [settle(u, 's1', 0, { code: 'R1' }), settle(u, 's1', 2 * S, { code: 'R1' }), settle(u, 's1', 3 * S)],
    message: 's1 waited 995 ms before #3, less than the 1995 ms it waited before #2: back-off must not shrink',
    // the wait before #2 ran from #1's reply
    ids: [1, 2, 3],
  },
  {
    check: 'RETRY_BACKOFF',
    now: 100 * S,
    t: { max_attempts: 3 },
    journal: [0, 1, 3, 7].map((s) => settle(u, 's1', s * S, { code: 'R1' })),
    message: '#4 was attempt 4 of s1 (max_attempts 3)',
    // the first, the last one allowed and the one past the limit
    ids: [1, 3, 4],
  },
  {
    check: 'ROUNDS_SETTLED',
    now: 301 * S,
    journal: [bet(u, 'b1', 0)],
    message: 'round G1 of p1, opened by bet b1 of p1 (#1), is still open after 301 s (at most 300 s)',
  },
  {
    check: 'ROUNDS_SETTLED',
    now: 400 * S,
    journal: [settle(u, 's1', 0, { code: 'R3' }), bet(u, 'b1', S)],
    message:
      "round G1 of p1, opened by bet b1 of p1 (#2), is still open after 399 s (at most 300 s); bet_result s1 of p1 (#1) came before that bet, and was refused as settling a round never bet: send it after the bet's R0",
  },
  {
    check: 'ROUNDS_SETTLED',
    now: 400 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', 301 * S)],
    message: 'round G1 of p1, opened by bet b1 of p1 (#1), was settled only after 301 s by bet_result s1 of p1 (#2) (at most 300 s)',
  },
  {
    check: 'ONE_SETTLEMENT_PER_ROUND',
    now: 10 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S), settle(u, 's2', 2 * S)],
    message: 'round G1 was settled by bet_result s1 of p1 (#2); bet_result s2 of p1 (#3) settles it again under a new transaction_id',
  },
  {
    check: 'NO_BET_AFTER_LOGIN_REFUSED',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { code: 'R2' }), bet(u, 'b1', S)],
    message: 'bet b1 of p1 (#2) came after login l1 of p1 (#1) was refused with R2 and before any successful login',
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { balance: 5 }), bet(u, 'b1', S, { total: 10 })],
    message: 'bet b1 of p1 (#2) stakes 10, more than the balance 5 reported by the reply to #1',
  },
  {
    check: 'LOGIN_BEFORE_BET',
    now: 10 * S,
    journal: [bet(u, 'b1', 0)],
    message: 'bet b1 of p1 (#1) is the first bet of p1, and no login of theirs succeeded before it',
  },
];

const report = (r: Pick<Row, 'journal' | 'now' | 't'>) =>
  grade(journal(...r.journal), { ...DEFAULT_THRESHOLDS, ...r.t }, new Date(T0 + r.now), 'test');

for (const row of ROWS) {
  t.test(`${row.check}: ${row.message.slice(0, 70)}`, async (t) => {
    const r = report(row);
    const check = r.checks.find((c) => c.id === row.check)!;
    t.equal(check.status, 'fail');
    t.equal(check.violations[0]?.message, row.message);
    if (row.ids) t.same(check.violations[0]?.journal_ids, row.ids, 'the attempts it relies on are cited');
    // The facts the message cites: the code each journal entry's reply carried (a drop: none read).
    const entries = journal(...row.journal);
    const code = (id: number) => {
      const e = entries[id - 1]!;
      return e.reply.dropped ? 'lost' : e.reply.status === 200 ? (e.reply.body as { code: string }).code : 'failed';
    };
    for (const v of r.checks.flatMap((c) => c.violations)) {
      // Every attempt the message names is cited, and drawn: its evidence is kept with it.
      for (const m of v.message.matchAll(/#(\d+)/g)) {
        t.ok(v.journal_ids.includes(Number(m[1])), `"${v.message}": #${m[1]} is among the journal ids ${v.journal_ids.join(', ')}`);
        t.ok(
          v.evidence?.some((e) => e.journal_id === Number(m[1])),
          `"${v.message}": #${m[1]} has its evidence`,
        );
      }
      for (const m of v.message.matchAll(/refused with (R\d)[^#;]*\(#(\d+)\)|\(#(\d+)\) was refused with (R\d)/g)) {
        const [said, id] = m[1] ? [m[1], Number(m[2])] : [m[4]!, Number(m[3])];
        t.equal(code(id), said, `"${v.message}": #${id} was answered ${said}`);
        t.match(said, /^R[234]$/, 'only R2–R4 are refusals');
      }
      t.notMatch(v.message, /refused \(?R[01]|refused with R[01]/, 'R0 and R1 are never called refused');
      // Each bet's consequence follows that bet, in its own clause.
      const staked = [...v.message.matchAll(/\(#(\d+)\)[^;#]*staked nothing/g)];
      t.equal(staked.length, v.message.split('staked nothing').length - 1, `"staked nothing" follows the bet it is said of`);
      for (const m of staked) t.match(code(Number(m[1])), /^R[234]$/, `"staked nothing" only of bets refused with R2–R4 (#${m[1]})`);
    }
  });
}

t.test('a refused bet resent under its id and then applied (R0) may be settled: only the resend fails', async (t) => {
  // The certification scenario's R4 player: refused, resent, the rule no longer fires, R0, settled R0.
  const r = report({
    now: 10 * S,
    journal: [login(u, 'l1', 0), bet(u, 'b1', S, { code: 'R4', balance: 5 }), bet(u, 'b1', 2 * S), settle(u, 's1', 3 * S)],
  });
  t.same(
    r.checks.filter((c) => c.status === 'fail').map((c) => c.id),
    ['NO_RETRY_AFTER_REFUSAL'],
  );
  t.equal(r.checks.find((c) => c.id === 'NO_SETTLEMENT_OF_REFUSED_BET')!.status, 'pass', 'exercised by the refusal, passed by the R0');
});

t.test('the fix texts do not say a lost or R1 bet staked nothing', async (t) => {
  const { CHECKS } = await import('../../src/grading/grade.js');
  for (const c of CHECKS) t.notMatch(c.fix, /(lost|R1)[^.;]*staked nothing/, c.id);
});

t.test("a check's counts are of its chances, not of its violations (one transaction may raise several)", async (t) => {
  // s1: resent at once (too close) and past max_attempts, two violations; s2: resent as it should be.
  const r = report({
    now: 100 * S,
    t: { max_attempts: 2 },
    journal: [
      settle(u, 's1', 0, { code: 'R1' }),
      settle(u, 's1', 10, { code: 'R1' }),
      settle(u, 's1', 5 * S, { code: 'R1' }),
      settle(u, 's2', 0, { code: 'R1', data: { game_no: 'G2' } }),
      settle(u, 's2', 2 * S, { data: { game_no: 'G2' } }),
    ],
  });
  const check = r.checks.find((c) => c.id === 'RETRY_BACKOFF')!;
  t.equal(check.violations.length, 2, 'both violations of s1 listed');
  t.equal(check.detail, '2 resent transactions: 1 passed, 1 failed, 0 still within a window');
});
