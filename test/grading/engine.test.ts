// The grading engine, check by check: a journal that fails it, one that passes it, one that leaves
// it not exercised, and one graded while its window is still open. The clock is injected.
import t from 'tap';
import { CHECKS, DEFAULT_THRESHOLDS, grade, type Thresholds } from '../../src/grading/grade.js';
import type { CheckId, CheckStatus } from '../../src/protocol/types.generated.js';
import { bet, type Cb, journal, login, settle, T0 } from './journal-builder.js';

const S = 1000;
interface Case {
  check: CheckId;
  name: string;
  status: CheckStatus;
  journal: Cb[];
  now: number;
  t?: Partial<Thresholds>;
  ids?: number[];
}
const u = 'p1';
/** 4,000 characters of feedback_data. */
const FEEDBACK = 'table=BAC07;'.repeat(334).slice(0, 4000);
/** 300 bets: a body of about 20 KB. */
const MANY_BETS = Array.from({ length: 300 }, (_, i) => ({ bet_type: i % 2 ? 'P' : 'PP', bet_amount: 1 + (i % 5) }));

/** A wallet that answers every bet after 3 s, to a provider with a 1 s time-out and 3 attempts (the reviewer's dead-bets.json). */
const DEAD: Partial<Thresholds> = { client_timeout_s: 1, max_attempts: 3, retry_window_s: 5, round_max_age_s: 25 };

const CASES: Case[] = [
  // A reply written as the provider's time-out (10 s) ran out, within its tolerance (500 ms): read or
  // not, whatever the provider did next is right; just past the tolerance, the checks judge again.
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'bet answered 10.05 s after arrival, kept (it may have been read)',
    status: 'pass',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 10 * S + 50 })],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'bet answered 10.6 s after arrival, never resent',
    status: 'fail',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 10 * S + 600 })],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'R4 written 9.98 s after arrival, resent at 10.1 s (the time-out ran out first)',
    status: 'pass',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 10 * S - 20, code: 'R4', balance: 5 }), bet(u, 'b1', 10 * S + 100, { code: 'R4', balance: 5 })],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'R4 written 9.4 s after arrival, resent at 10.1 s',
    status: 'fail',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 10 * S - 600, code: 'R4', balance: 5 }), bet(u, 'b1', 10 * S + 100, { code: 'R4', balance: 5 })],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'R0 written 10.1 s after arrival, not resent, its round settled (the R0 may have been read)',
    status: 'pass',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 10 * S + 100 }), settle(u, 's1', 11 * S)],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'R0 written 10.6 s after arrival, not resent, its round settled',
    status: 'fail',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 10 * S + 600 }), settle(u, 's1', 11 * S)],
  },
  // LOST_REPLY_RETRIED
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'dropped bet never resent, window over',
    status: 'fail',
    now: 70 * S,
    journal: [bet(u, 'b1', 0, { drop: true })],
    ids: [1],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'dropped settlement resent only after the window',
    status: 'fail',
    now: 200 * S,
    journal: [settle(u, 's1', 0, { drop: true }), settle(u, 's1', 61 * S)],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'dropped bet resent 1 s later',
    status: 'pass',
    now: 70 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S)],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'reply slower than the time-out, resent after the time-out',
    status: 'pass',
    now: 70 * S,
    journal: [bet(u, 'b1', 0, { ms: 12 * S, gone: true }), bet(u, 'b1', 11 * S)],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'slow reply the client waited for is still lost (declared time-out)',
    status: 'fail',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 12 * S })],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'resend lost too, and not resent again',
    status: 'fail',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S, { drop: true })],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'dropped bet, window still open',
    status: 'pending',
    now: 30 * S,
    journal: [bet(u, 'b1', 0, { drop: true })],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'bet still being answered past the time-out',
    status: 'pending',
    now: 15 * S,
    journal: [bet(u, 'b1', 0, { ms: null })],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'a lost login does not count',
    status: 'not_exercised',
    now: 100 * S,
    journal: [login(u, 'l1', 0, { drop: true }), bet(u, 'b1', S)],
  },
  {
    check: 'LOST_REPLY_RETRIED',
    name: 'bet still being answered, younger than the time-out',
    status: 'not_exercised',
    now: 5 * S,
    journal: [bet(u, 'b1', 0, { ms: null })],
  },

  // RETRY_SAME_TRANSACTION
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'lost bet retried under a new transaction_id',
    status: 'fail',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b2', S)],
    ids: [1, 2],
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'R1 settlement followed by a new settlement id',
    status: 'fail',
    now: 100 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's2', 2 * S)],
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'lost bet; another chip added to its round under its own id (other bet_index, type, amount); the lost one resent',
    status: 'pass',
    now: 100 * S,
    journal: [
      bet(u, 'A', 0, { drop: true, total: 10, data: { bets: [{ bet_index: '1', bet_type: 'B', bet_amount: 10 }] } }),
      bet(u, 'B', 200, { total: 25, data: { bets: [{ bet_index: '2', bet_type: 'P', bet_amount: 25 }] } }),
      bet(u, 'A', 600, { total: 10, data: { bets: [{ bet_index: '1', bet_type: 'B', bet_amount: 10 }] } }),
      settle(u, 's1', 700, { total: 35 }),
    ],
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'bet answered R1; the same type and amount added under another bet_index; the R1 one resent',
    status: 'pass',
    now: 100 * S,
    journal: [
      bet(u, 'A', 0, { code: 'R1', total: 10, data: { bets: [{ bet_index: '1', bet_type: 'B', bet_amount: 10 }] } }),
      bet(u, 'B', 200, { total: 10, data: { bets: [{ bet_index: '2', bet_type: 'B', bet_amount: 10 }] } }),
      bet(u, 'A', 800, { total: 10, data: { bets: [{ bet_index: '1', bet_type: 'B', bet_amount: 10 }] } }),
    ],
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'lost bet rebuilt under a new id (same bets, same bet_index)',
    status: 'fail',
    now: 100 * S,
    journal: [
      bet(u, 'A', 0, { drop: true, total: 10, data: { bets: [{ bet_index: '1', bet_type: 'B', bet_amount: 10 }] } }),
      bet(u, 'A2', 700, { total: 10, data: { bets: [{ bet_index: '1', bet_type: 'B', bet_amount: 10 }] } }),
    ],
    ids: [1, 2],
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'lost bet resent, then another bet on the round',
    status: 'pass',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S), bet(u, 'b2', 2 * S)],
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'timed-out bet: new bets of other rounds are fine',
    status: 'pass',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 12 * S, gone: true }), bet(u, 'b2', 11 * S, { game: 'G2' }), bet(u, 'b1', 12 * S)],
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'lost bet not resent yet',
    status: 'pending',
    now: 5 * S,
    journal: [bet(u, 'b1', 0, { drop: true })],
  },
  {
    check: 'RETRY_SAME_TRANSACTION',
    name: 'every reply read',
    status: 'not_exercised',
    now: 100 * S,
    journal: [bet(u, 'b1', 0), bet(u, 'b2', S)],
  },

  // RETRY_UNCHANGED
  {
    check: 'RETRY_UNCHANGED',
    name: 'resend with another amount',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S, { total: 20 })],
    ids: [1, 2],
  },
  {
    check: 'RETRY_UNCHANGED',
    name: 'resend with a new timestamp only',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S, { extra: { timestamp: 1_767_225_601 } })],
  },
  {
    check: 'RETRY_UNCHANGED',
    name: 'judged at once, also while the resend is answered (no window)',
    status: 'fail',
    now: S + 10,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S, { ms: null, data: { table_no: 'T2' } })],
  },
  { check: 'RETRY_UNCHANGED', name: 'nothing resent', status: 'not_exercised', now: 10 * S, journal: [bet(u, 'b1', 0)] },
  // Grading keeps digests, not bodies (issue 35, item 10): large bodies are judged exactly all the same.
  {
    check: 'RETRY_UNCHANGED',
    name: 'resend of a 4 KB feedback_data, identical',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true, extra: { feedback_data: FEEDBACK } }), bet(u, 'b1', S, { extra: { feedback_data: FEEDBACK } })],
  },
  {
    check: 'RETRY_UNCHANGED',
    name: 'resend of a 4 KB feedback_data, its last character changed',
    status: 'fail',
    now: 10 * S,
    journal: [
      bet(u, 'b1', 0, { drop: true, extra: { feedback_data: FEEDBACK } }),
      bet(u, 'b1', S, { extra: { feedback_data: `${FEEDBACK.slice(0, -1)}!` } }),
    ],
    ids: [1, 2],
  },
  {
    check: 'RETRY_UNCHANGED',
    name: 'resend of 300 bets (20 KB), identical but for key order and timestamp',
    status: 'pass',
    now: 10 * S,
    journal: [
      bet(u, 'b1', 0, { drop: true, data: { bets: MANY_BETS } }),
      bet(u, 'b1', S, {
        data: { bets: MANY_BETS.map((b) => ({ bet_amount: b.bet_amount, bet_type: b.bet_type })) },
        extra: { timestamp: 1 },
      }),
    ],
  },
  {
    check: 'RETRY_UNCHANGED',
    name: 'resend of 300 bets (20 KB), one amount changed',
    status: 'fail',
    now: 10 * S,
    journal: [
      bet(u, 'b1', 0, { drop: true, data: { bets: MANY_BETS } }),
      bet(u, 'b1', S, { data: { bets: MANY_BETS.map((b, i) => (i === 150 ? { ...b, bet_amount: 2 } : b)) } }),
    ],
  },
  {
    check: 'RETRY_UNCHANGED',
    name: 'resend with one field more',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S, { extra: { note: 'x' } })],
  },

  // FAILED_SETTLEMENT_RETRIED
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    name: 'R1 settlement never resent',
    status: 'fail',
    now: 100 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' })],
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    name: 'resends stop at R1',
    status: 'fail',
    now: 200 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's1', 2 * S, { code: 'R1' })],
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    name: 'R1, then resent until R0',
    status: 'pass',
    now: 200 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's1', 2 * S, { code: 'R1' }), settle(u, 's1', 4 * S)],
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    name: 'R1, then a definite R3 ends it',
    status: 'pass',
    now: 200 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's1', 2 * S, { code: 'R3' })],
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    name: 'R1, then a resend whose R0 was written 10.05 s after it arrived (it may have been read), not resent again',
    status: 'pass',
    now: 200 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's1', 2 * S, { ms: 10 * S + 50 })],
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    name: 'R1, then a resend whose R0 was written 10.6 s after it arrived, not resent again',
    status: 'fail',
    now: 200 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' }), settle(u, 's1', 2 * S, { ms: 10 * S + 600 })],
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    name: 'R1, window still open',
    status: 'pending',
    now: 30 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R1' })],
  },
  {
    check: 'FAILED_SETTLEMENT_RETRIED',
    name: 'no R1 settlement (an R1 bet does not count)',
    status: 'not_exercised',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { code: 'R1' }), settle(u, 's1', S)],
  },

  // NO_RETRY_AFTER_REFUSAL
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'bet refused R4, resent',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4', balance: 5 }), bet(u, 'b1', S, { code: 'R4', balance: 5 })],
    ids: [1, 2],
  },
  {
    // A reviewer's case: a win settled meanwhile; the player bets the same again on what it was told.
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'bet refused R4, the same bet under a new id after a reply reported enough balance',
    status: 'pass',
    now: 10 * S,
    journal: [
      bet(u, 'b1', 0, { game: 'G2', code: 'R4', balance: 5 }),
      settle(u, 's1', 100, { balance: 505 }),
      bet(u, 'b2', 800, { game: 'G2', balance: 495 }),
    ],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'bet refused R4, the same bet under a new id after a reply reported less than it',
    status: 'fail',
    now: 10 * S,
    journal: [
      bet(u, 'b1', 0, { game: 'G2', code: 'R4', balance: 5 }),
      login(u, 'l1', 100, { balance: 8 }),
      bet(u, 'b2', 800, { game: 'G2' }),
    ],
    ids: [1, 3],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'login refused R2, resent',
    status: 'fail',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { code: 'R2' }), login(u, 'l1', S)],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: '300 bets refused R4, the same 300 sent again under a new transaction_id',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4', balance: 5, data: { bets: MANY_BETS } }), bet(u, 'b2', S, { data: { bets: MANY_BETS } })],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: '300 bets refused R4, then 300 with one type changed',
    status: 'pass',
    now: 10 * S,
    journal: [
      bet(u, 'b1', 0, { code: 'R4', balance: 5, data: { bets: MANY_BETS } }),
      bet(u, 'b2', S, { data: { bets: MANY_BETS.map((b, i) => (i === 7 ? { ...b, bet_type: 'B' } : b)) } }),
    ],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'R4, then a new smaller bet',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4', balance: 5 }), bet(u, 'b2', S, { total: 5 })],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'R4 the provider never read (dropped) may be resent',
    status: 'not_exercised',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true, applied: 'R4' }), bet(u, 'b1', S, { code: 'R0' })],
  },
  {
    check: 'NO_RETRY_AFTER_REFUSAL',
    name: 'judged at once, also while answering (no window)',
    status: 'fail',
    now: S + 10,
    journal: [bet(u, 'b1', 0, { code: 'R3' }), bet(u, 'b1', S, { ms: null })],
  },

  // NO_SETTLEMENT_OF_REFUSED_BET
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'settles a round whose bet got R4',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4' }), settle(u, 's1', S, { code: 'R3' })],
    ids: [1, 2],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'settles a round whose lost bet was never resent',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), settle(u, 's1', S)],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'settles a round whose bet got R1',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R1' }), settle(u, 's1', S, { code: 'R3' })],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'R4 round left alone',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4' })],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'lost bet resent (R0 replay), then settled (exercised: a bet was lost)',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', S), settle(u, 's1', 2 * S)],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'one bet R4, another R0: the round may be settled (exercised: a bet was refused)',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4' }), bet(u, 'b2', S), settle(u, 's1', 2 * S)],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'bet refused with R4, resent under its id and applied (R0), then settled: the round had an applied bet',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4' }), bet(u, 'b1', S), settle(u, 's1', 2 * S)],
  },
  {
    check: 'NO_SETTLEMENT_OF_REFUSED_BET',
    name: 'bet still being answered: not this check',
    status: 'not_exercised',
    now: 2 * S,
    journal: [bet(u, 'b1', 0, { ms: null }), settle(u, 's1', S)],
  },

  // NO_SETTLEMENT_BEFORE_BET_REPLY
  {
    check: 'NO_SETTLEMENT_BEFORE_BET_REPLY',
    name: 'settles while the bet is delayed',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { ms: 3 * S }), settle(u, 's1', S)],
    ids: [1, 2],
  },
  {
    check: 'NO_SETTLEMENT_BEFORE_BET_REPLY',
    name: 'settles while the bet is still in flight (graded mid-delay)',
    status: 'fail',
    now: 2 * S,
    journal: [bet(u, 'b1', 0, { ms: null }), settle(u, 's1', S)],
  },
  {
    check: 'NO_SETTLEMENT_BEFORE_BET_REPLY',
    name: 'settles after the bet reply',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S)],
  },
  {
    check: 'NO_SETTLEMENT_BEFORE_BET_REPLY',
    name: 'timed-out bet resent and answered; its late first reply still pending',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { ms: 1500, gone: true }), bet(u, 'b1', 1100), settle(u, 's1', 1200)],
    t: { client_timeout_s: 1 },
  },
  {
    check: 'NO_SETTLEMENT_BEFORE_BET_REPLY',
    name: 'a bet with no settlement',
    status: 'not_exercised',
    now: 10 * S,
    journal: [bet(u, 'b1', 0)],
  },

  // NO_PREMATURE_RETRY
  {
    check: 'NO_PREMATURE_RETRY',
    name: 'resent while the first attempt is delayed, before the time-out',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { ms: 5 * S }), bet(u, 'b1', 2 * S)],
    ids: [1, 2],
  },
  {
    check: 'NO_PREMATURE_RETRY',
    name: 'resent right after a dropped connection (never premature: no chance)',
    status: 'not_exercised',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', 10)],
  },
  {
    check: 'NO_PREMATURE_RETRY',
    name: 'resent after an R1 was read (never premature: no chance)',
    status: 'not_exercised',
    now: 10 * S,
    journal: [settle(u, 's1', 0, { code: 'R1' }), settle(u, 's1', 600)],
  },
  {
    check: 'NO_PREMATURE_RETRY',
    name: 'resent after its time-out while the first is still delayed',
    status: 'pass',
    now: 20 * S,
    journal: [bet(u, 'b1', 0, { ms: 12 * S, gone: true }), bet(u, 'b1', 10500)],
  },
  {
    check: 'NO_PREMATURE_RETRY',
    name: 'judged while the first attempt is still in flight',
    status: 'fail',
    now: 3 * S,
    journal: [bet(u, 'b1', 0, { ms: null }), bet(u, 'b1', 2 * S, { ms: null })],
  },
  { check: 'NO_PREMATURE_RETRY', name: 'nothing resent', status: 'not_exercised', now: 10 * S, journal: [bet(u, 'b1', 0)] },

  // RETRY_BACKOFF
  {
    check: 'RETRY_BACKOFF',
    name: 'resent 100 ms after the first attempt',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', 100)],
    ids: [1, 2],
  },
  {
    check: 'RETRY_BACKOFF',
    name: 'waits shrink: 2 s then 1 s',
    status: 'fail',
    now: 10 * S,
    journal: [settle(u, 's1', 0, { code: 'R1' }), settle(u, 's1', 2 * S, { code: 'R1' }), settle(u, 's1', 3 * S)],
  },
  {
    check: 'RETRY_BACKOFF',
    name: 'more than max_attempts',
    status: 'fail',
    now: 100 * S,
    t: { max_attempts: 3 },
    journal: [0, 1, 3, 7].map((s) => settle(u, 's1', s * S, { code: 'R1' })),
  },
  {
    check: 'RETRY_BACKOFF',
    name: 'doubling waits',
    status: 'pass',
    now: 100 * S,
    journal: [0, 0.6, 1.8, 4.2].map((s) => settle(u, 's1', s * S, { code: 'R1' })),
  },
  {
    check: 'RETRY_BACKOFF',
    name: 'a constant interval with jitter',
    status: 'pass',
    now: 100 * S,
    journal: [0, 1000, 2000, 2995, 3990].map((ms) => settle(u, 's1', ms, { code: 'R1' })),
  },
  {
    check: 'RETRY_BACKOFF',
    name: 'waits are counted from the time-out, not from arrival',
    status: 'pass',
    now: 100 * S,
    journal: [bet(u, 'b1', 0, { ms: 12 * S, gone: true }), bet(u, 'b1', 11 * S, { drop: true }), bet(u, 'b1', 12_200)],
  },
  {
    check: 'RETRY_BACKOFF',
    name: 'judged at once, also while the resend is answered (no window)',
    status: 'fail',
    now: 50,
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', 20, { ms: null })],
  },
  { check: 'RETRY_BACKOFF', name: 'nothing resent', status: 'not_exercised', now: 10 * S, journal: [bet(u, 'b1', 0)] },

  // ROUNDS_SETTLED
  { check: 'ROUNDS_SETTLED', name: 'round open past round_max_age_s', status: 'fail', now: 301 * S, journal: [bet(u, 'b1', 0)], ids: [1] },
  {
    check: 'ROUNDS_SETTLED',
    name: 'round opened by a dropped (applied) bet, never settled',
    status: 'fail',
    now: 400 * S,
    journal: [bet(u, 'b1', 0, { drop: true })],
  },
  { check: 'ROUNDS_SETTLED', name: 'round settled', status: 'pass', now: 400 * S, journal: [bet(u, 'b1', 0), settle(u, 's1', S)] },
  { check: 'ROUNDS_SETTLED', name: 'open round younger than round_max_age_s', status: 'pending', now: 100 * S, journal: [bet(u, 'b1', 0)] },
  {
    check: 'ROUNDS_SETTLED',
    name: 'every bet answered past the time-out: resent up to max_attempts, then given up (escalated)',
    status: 'pass',
    now: 60 * S,
    t: DEAD,
    journal: [login(u, 'l1', 0), ...[100, 1700, 3600].map((at) => bet(u, 'b1', at, { ms: 3 * S, gone: true }))],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'every bet answered past the time-out: given up before max_attempts',
    status: 'fail',
    now: 60 * S,
    t: DEAD,
    journal: [login(u, 'l1', 0), ...[100, 1700].map((at) => bet(u, 'b1', at, { ms: 3 * S, gone: true }))],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'its settlement answered R1 up to max_attempts, then given up (escalated): excused',
    status: 'pass',
    now: 60 * S,
    t: DEAD,
    journal: [bet(u, 'b1', 0), ...[1000, 3000, 7000].map((at) => settle(u, 's1', at, { code: 'R1' }))],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'its settlement answered R1, given up before max_attempts',
    status: 'fail',
    now: 60 * S,
    t: DEAD,
    journal: [bet(u, 'b1', 0), ...[1000, 3000].map((at) => settle(u, 's1', at, { code: 'R1' }))],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'settlement sent in time, its R0 read after round_max_age_s through R1s',
    status: 'pass',
    now: 60 * S,
    t: DEAD,
    journal: [bet(u, 'b1', 0), settle(u, 's1', 20 * S, { code: 'R1' }), settle(u, 's1', 23 * S, { code: 'R1' }), settle(u, 's1', 27 * S)],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'settlement sent in time, still being resent past round_max_age_s',
    status: 'pending',
    now: 27 * S,
    t: DEAD,
    journal: [bet(u, 'b1', 0), settle(u, 's1', 20 * S, { code: 'R1' }), settle(u, 's1', 24 * S, { code: 'R1' })],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'settlement first sent after round_max_age_s',
    status: 'fail',
    now: 60 * S,
    t: DEAD,
    journal: [bet(u, 'b1', 0), settle(u, 's1', 26 * S, { code: 'R1' }), settle(u, 's1', 28 * S)],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'one bet of the round R0, another lost up to max_attempts (the stake unknown): excused',
    status: 'pass',
    now: 60 * S,
    t: DEAD,
    journal: [bet(u, 'b1', 0), ...[1000, 2500, 5000].map((at) => bet(u, 'b2', at, { drop: true }))],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'one bet of the round R0, another lost and given up before max_attempts',
    status: 'fail',
    now: 60 * S,
    t: DEAD,
    journal: [bet(u, 'b1', 0), ...[1000, 2500].map((at) => bet(u, 'b2', at, { drop: true }))],
  },
  {
    // A reviewer's case: the bet's replies lost until its last attempt, the round settled at once after that R0.
    check: 'ROUNDS_SETTLED',
    name: "the bet's R0 read only after round_max_age_s (its replies lost), settled at once: the age counts from that R0",
    status: 'pass',
    now: 60 * S,
    t: { ...DEAD, max_attempts: 10, retry_window_s: 10 },
    journal: [...[0, 5, 12, 20].map((s) => bet(u, 'b1', s * S, { drop: true })), bet(u, 'b1', 26 * S), settle(u, 's1', 26 * S + 10)],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: "the bet's R0 read late, the settlement round_max_age_s after that",
    status: 'fail',
    now: 90 * S,
    t: { ...DEAD, max_attempts: 10, retry_window_s: 30 },
    journal: [bet(u, 'b1', 0, { drop: true }), bet(u, 'b1', 26 * S), settle(u, 's1', 52 * S)],
    ids: [1, 3],
  },
  {
    check: 'ROUNDS_SETTLED',
    name: 'a refused bet opens no round',
    status: 'not_exercised',
    now: 400 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4' })],
  },

  // ONE_SETTLEMENT_PER_ROUND
  {
    check: 'ONE_SETTLEMENT_PER_ROUND',
    name: 'settled round settled again under a new id',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S), settle(u, 's2', 2 * S, { code: 'R3' })],
    ids: [2, 3],
  },
  {
    check: 'ONE_SETTLEMENT_PER_ROUND',
    name: 'settlement resent under its own id (replay)',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { drop: true }), settle(u, 's1', 2 * S)],
  },
  {
    check: 'ONE_SETTLEMENT_PER_ROUND',
    name: 'a refused settlement, then the right one',
    status: 'pass',
    now: 10 * S,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S, { code: 'R3' }), settle(u, 's2', 2 * S)],
  },
  {
    check: 'ONE_SETTLEMENT_PER_ROUND',
    name: 'judged at once, also while the second settlement is answered',
    status: 'fail',
    now: 2500,
    journal: [bet(u, 'b1', 0), settle(u, 's1', S), settle(u, 's2', 2 * S, { ms: null })],
  },
  { check: 'ONE_SETTLEMENT_PER_ROUND', name: 'no settled round', status: 'not_exercised', now: 10 * S, journal: [bet(u, 'b1', 0)] },

  // NO_BET_AFTER_LOGIN_REFUSED
  {
    check: 'NO_BET_AFTER_LOGIN_REFUSED',
    name: 'bets after a login refused R2',
    status: 'fail',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { code: 'R2' }), bet(u, 'b1', S)],
    ids: [1, 2],
  },
  {
    check: 'NO_BET_AFTER_LOGIN_REFUSED',
    name: 'logs in again (R0), then bets',
    status: 'pass',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { code: 'R3' }), login(u, 'l2', S), bet(u, 'b1', 2 * S)],
  },
  {
    // A reviewer's case: two logins at once, the newer answered R0 first, the older's R2 (held) read after it.
    check: 'NO_BET_AFTER_LOGIN_REFUSED',
    name: "two logins at once, the older's refusal read after the newer's R0, then a bet",
    status: 'pass',
    now: 10 * S,
    journal: [login(u, 'l1', 135, { code: 'R2', ms: 813 }), login(u, 'l2', 195, { ms: 11 }), bet(u, 'b1', 1050)],
  },
  {
    check: 'NO_BET_AFTER_LOGIN_REFUSED',
    name: 'logs in (R0), then again, refused R2, then bets',
    status: 'fail',
    now: 10 * S,
    journal: [login(u, 'l1', 0), login(u, 'l2', S, { code: 'R2' }), bet(u, 'b1', 2 * S)],
    ids: [2, 3],
  },
  {
    check: 'NO_BET_AFTER_LOGIN_REFUSED',
    name: 'another player bets',
    status: 'pass',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { code: 'R2' }), login('p2', 'l2', 0), bet('p2', 'b1', S)],
  },
  {
    check: 'NO_BET_AFTER_LOGIN_REFUSED',
    name: 'judged at once, also while the bet is answered',
    status: 'fail',
    now: 1500,
    journal: [login(u, 'l1', 0, { code: 'R2' }), bet(u, 'b1', S, { ms: null })],
  },
  {
    check: 'NO_BET_AFTER_LOGIN_REFUSED',
    name: 'no refused login',
    status: 'not_exercised',
    now: 10 * S,
    journal: [login(u, 'l1', 0), bet(u, 'b1', S)],
  },

  // BET_WITHIN_REPORTED_BALANCE
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'five bets sent at once on a balance of 30: none judged by a reply written after it arrived',
    status: 'pass',
    now: 10 * S,
    journal: [
      login(u, 'l1', 0, { balance: 30 }),
      bet(u, 'b1', S, { game: 'G1', ms: 50, balance: 20 }),
      bet(u, 'b2', S + 1, { game: 'G2', ms: 50, balance: 10 }),
      bet(u, 'b3', S + 2, { game: 'G3', ms: 50, balance: 0 }),
      bet(u, 'b4', S + 3, { game: 'G4', ms: 50, code: 'R4', balance: 0 }),
      bet(u, 'b5', S + 4, { game: 'G5', ms: 50, code: 'R4', balance: 0 }),
    ],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'two bets sent at once, the second stamped 1 ms after the first one’s reply (R0 300) was written',
    status: 'pass',
    now: 10 * S,
    journal: [
      login(u, 'l1', 0, { balance: 1000 }),
      bet(u, 'b1', S, { game: 'G1', total: 700, ms: 1, balance: 300 }),
      bet(u, 'b2', S + 2, { game: 'G2', total: 700, code: 'R4', balance: 300 }),
    ],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'a bet within a win reported 200 ms before it arrived (maybe read), above the older balance',
    status: 'pass',
    now: 10 * S,
    journal: [
      login(u, 'l1', 0, { balance: 1000 }),
      bet(u, 'b1', 100, { game: 'G1', total: 700, ms: 1, balance: 300 }),
      settle(u, 's1', 800, { game: 'G1', total: 700, ms: 5, balance: 1700 }),
      bet(u, 'b2', 1005, { game: 'G2', total: 700 }),
    ],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'a bet 600 ms after the reply it ignores (past the margin)',
    status: 'fail',
    now: 10 * S,
    journal: [
      login(u, 'l1', 0, { balance: 1000 }),
      bet(u, 'b1', S, { game: 'G1', total: 700, ms: 1, balance: 300 }),
      bet(u, 'b2', S + 601, { game: 'G2', total: 700, code: 'R4', balance: 300 }),
    ],
    ids: [2, 3],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: "a bet within a win settled while an earlier bet's reply was held (the win applied last, answered first)",
    status: 'pass',
    now: 10 * S,
    journal: [
      login(u, 'l1', 0, { balance: 1000 }),
      bet(u, 'b1', 100, { game: 'G0', total: 100, ms: 1, balance: 900 }),
      bet(u, 'b2', 200, { game: 'G1', total: 100, ms: 700, balance: 800 }),
      settle(u, 's1', 300, { game: 'G0', total: 100, ms: 5, balance: 1400 }),
      bet(u, 'b3', 3 * S, { game: 'G2', total: 1000, balance: 400 }),
    ],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'a bet sent after those replies were written is judged by the latest of them',
    status: 'fail',
    now: 10 * S,
    journal: [
      login(u, 'l1', 0, { balance: 30 }),
      bet(u, 'b1', S, { game: 'G1', ms: 50, balance: 20 }),
      bet(u, 'b2', S + 1, { game: 'G2', ms: 50, balance: 10 }),
      bet(u, 'b3', S + 2, { game: 'G3', ms: 50, balance: 0 }),
      bet(u, 'b4', 2 * S, { game: 'G4', code: 'R4', balance: 0 }),
    ],
    ids: [4, 5],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'bets 10 after R4 reported 5',
    status: 'fail',
    now: 10 * S,
    journal: [bet(u, 'b1', 0, { code: 'R4', balance: 5 }), bet(u, 'b2', S, { total: 10, code: 'R4', balance: 5 })],
    ids: [1, 2],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'bets above the login balance',
    status: 'fail',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { balance: 5 }), bet(u, 'b1', S, { total: 5.01 })],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'bets the exact balance (decimals)',
    status: 'pass',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { balance: 0.3 }), bet(u, 'b1', S, { total: 0.3 })],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'a balance the provider never read does not count',
    status: 'not_exercised',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { balance: 5, drop: true }), bet(u, 'b1', S, { total: 10 })],
  },
  {
    check: 'BET_WITHIN_REPORTED_BALANCE',
    name: 'judged at once, also while the bet is answered',
    status: 'fail',
    now: 1500,
    journal: [login(u, 'l1', 0, { balance: 5 }), bet(u, 'b1', S, { ms: null, total: 10 })],
  },

  // LOGIN_BEFORE_BET
  { check: 'LOGIN_BEFORE_BET', name: 'bets without a login', status: 'fail', now: 10 * S, journal: [bet(u, 'b1', 0)], ids: [1] },
  {
    check: 'LOGIN_BEFORE_BET',
    name: 'bets after a refused login only',
    status: 'fail',
    now: 10 * S,
    journal: [login(u, 'l1', 0, { code: 'R2' }), bet(u, 'b1', S)],
  },
  { check: 'LOGIN_BEFORE_BET', name: 'logs in, then bets', status: 'pass', now: 10 * S, journal: [login(u, 'l1', 0), bet(u, 'b1', S)] },
  {
    check: 'LOGIN_BEFORE_BET',
    name: 'judged at once, also while the bet is answered',
    status: 'fail',
    now: 10,
    journal: [bet(u, 'b1', 0, { ms: null })],
  },
  { check: 'LOGIN_BEFORE_BET', name: 'no bet', status: 'not_exercised', now: 10 * S, journal: [login(u, 'l1', 0)] },
];

const report = (c: Pick<Case, 'journal' | 'now' | 't'>) =>
  grade(journal(...c.journal), { ...DEFAULT_THRESHOLDS, ...c.t }, new Date(T0 + c.now), 'test');

t.test('every check has a failing, a passing and an unexercised case in the table', async (t) => {
  for (const { id } of CHECKS) {
    for (const status of ['fail', 'pass', 'not_exercised'] as const)
      t.ok(
        CASES.some((c) => c.check === id && c.status === status),
        `${id}: ${status}`,
      );
  }
});

for (const c of CASES) {
  t.test(`${c.check}: ${c.name} → ${c.status}`, async (t) => {
    const check = report(c).checks.find((x) => x.id === c.check)!;
    t.equal(check.status, c.status, check.detail ?? '');
    if (c.status === 'not_exercised') t.equal(check.exercised, 0);
    else t.ok(check.exercised > 0, `exercised ${check.exercised}`);
    t.equal(check.violations.length > 0, c.status === 'fail', 'violations exactly when it fails');
    for (const v of check.violations) {
      t.ok(v.message.length > 10 && v.journal_ids.length > 0, v.message);
      t.equal(v.user_id, u, 'the player of the violation');
    }
    if (c.ids) t.same(check.violations[0]!.journal_ids, c.ids, 'the evidence');
  });
}

// Checks without a window are judged as soon as the callback arrives; the others are pending while it is open.
const WINDOWED: CheckId[] = ['LOST_REPLY_RETRIED', 'RETRY_SAME_TRANSACTION', 'FAILED_SETTLEMENT_RETRIED', 'ROUNDS_SETTLED'];
t.test('windowed checks have a pending case; the others are never pending', async (t) => {
  for (const id of WINDOWED)
    t.ok(
      CASES.some((c) => c.check === id && c.status === 'pending'),
      `${id}: pending`,
    );
  for (const c of CASES)
    for (const check of report(c).checks) if (!WINDOWED.includes(check.id)) t.not(check.status, 'pending', `${check.id} in "${c.name}"`);
});

t.test('the same window turns from pending to fail when the clock passes it', async (t) => {
  const lost = [bet(u, 'b1', 0, { drop: true })];
  const at = (now: number) => report({ journal: lost, now }).checks.find((x) => x.id === 'LOST_REPLY_RETRIED')!.status;
  t.same([at(S), at(60 * S), at(60 * S + 6), at(61 * S)], ['pending', 'pending', 'fail', 'fail'], 'deadline = drop (5 ms) + 60 s');
  const tight = report({ journal: lost, now: 2 * S, t: { retry_window_s: 1 } }).checks[0]!;
  t.equal(tight.status, 'fail', 'a scenario window of 1 s');
});

t.test('the report: every check always listed, summary, open rounds, findings, user', async (t) => {
  const r = grade(
    journal(
      login(u, 'l1', 0, { findings: [{ code: 'CALLBACK_URL_MISSING', severity: 'warning', message: 'm' }] }),
      bet(u, 'b1', S, {
        total: 10,
        findings: [
          { code: 'CALLBACK_URL_MISSING', severity: 'warning', message: 'm' },
          { code: 'TIMESTAMP_SKEWED', severity: 'warning', message: 'm' },
        ],
      }),
      bet(u, 'b2', 2 * S, { total: 2.5 }),
      bet('p2', 'b3', 3 * S, { game: 'G9', code: 'R4' }),
    ),
    DEFAULT_THRESHOLDS,
    new Date(T0 + 43 * S),
    'certification',
    u,
  );
  t.same(
    r.checks.map((c) => c.id),
    CHECKS.map((c) => c.id),
    'all 14, in table order',
  );
  t.equal(r.checks.length, 14);
  t.equal(r.summary.pass + r.summary.fail + r.summary.pending + r.summary.not_exercised, 14);
  t.match(r, { generated_at: new Date(T0 + 43 * S).toISOString(), scenario: 'certification', user_id: u, thresholds: DEFAULT_THRESHOLDS });
  t.same(r.open_rounds, [{ user_id: u, game_no: 'G1', stake: 12.5, opened_at: new Date(T0 + S).toISOString(), age_s: 42 }]);
  t.same(r.findings, { CALLBACK_URL_MISSING: 2, TIMESTAMP_SKEWED: 1 });
  for (const c of r.checks) t.ok(c.title && c.fix && c.detail, `${c.id} says what and why`);
  t.match(r.checks.find((c) => c.id === 'RETRY_UNCHANGED')!.detail, /^not exercised: /);
});

t.test('a well-behaved session fails nothing', async (t) => {
  const r = report({
    now: 100 * S,
    t: { client_timeout_s: 1 },
    journal: [
      login(u, 'l1', 0),
      bet(u, 'b1', 100, { drop: true }),
      bet(u, 'b1', 800),
      settle(u, 's1', 900, { code: 'R1' }),
      settle(u, 's1', 1600, { drop: true }),
      settle(u, 's1', 2900),
      login('slow', 'l2', 0),
      bet('slow', 'b2', 100, { ms: 1500, gone: true }),
      bet('slow', 'b2', 1500), // after its 1 s time-out, before the late reply (a resend that could have been premature)
      settle('slow', 's2', 1800),
      login('broke', 'l3', 0),
      bet('broke', 'b3', 100, { total: 10, code: 'R4', balance: 5 }),
      bet('broke', 'b4', 700, { total: 5, game: 'G2' }), // with the R4's balance in hand (past the margin)
      settle('broke', 's4', 800, { game: 'G2' }),
      login('locked', 'l4', 0, { code: 'R2' }),
      login('locked', 'l5', 100),
      bet('locked', 'b5', 200),
      settle('locked', 's5', 300),
    ],
  });
  t.same(
    r.checks.filter((c) => c.status === 'fail').map((c) => c.id),
    [],
  );
  t.same(
    r.checks.filter((c) => c.status === 'not_exercised').map((c) => c.id),
    [],
    'and exercises every check',
  );
});

t.test('grading a 10,000-entry journal', async (t) => {
  const cbs: Cb[] = [];
  for (let i = 0; cbs.length < 10_000; i++) {
    const user = `p${i % 200}`;
    const at = i * 40;
    cbs.push(login(user, `l${i}`, at), bet(user, `b${i}`, at + 5, { game: `G${i}`, drop: i % 10 === 0 }));
    if (i % 10 === 0) cbs.push(bet(user, `b${i}`, at + 700, { game: `G${i}` }));
    cbs.push(settle(user, `s${i}`, at + 800, { game: `G${i}`, code: i % 7 === 0 ? 'R1' : 'R0' }));
    if (i % 7 === 0) cbs.push(settle(user, `s${i}`, at + 1500, { game: `G${i}` }));
  }
  const entries = journal(...cbs.slice(0, 10_000));
  const now = new Date(T0 + 500 * S);
  grade(entries, DEFAULT_THRESHOLDS, now, 'bench'); // warm-up
  const runs = 5;
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < runs; i++) grade(entries, DEFAULT_THRESHOLDS, now, 'bench');
  const ms = (performance.now() - started) / runs;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000 / runs;
  t.comment(`graded 10,000 entries in ${ms.toFixed(1)} ms wall, ${cpuMs.toFixed(1)} ms CPU (mean of ${runs})`);
  // Bound on the CPU time, not the wall clock: on a shared machine the wall clock also counts other
  // processes' turns (2322 ms wall for 420 ms of CPU under load failed a 2000 ms bound on the wall).
  t.ok(cpuMs < 2000, `well within a generous bound (${cpuMs.toFixed(0)} ms of CPU)`);
});
