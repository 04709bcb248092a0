// A grader's events built by hand (no journal): an arrival of player p1 on round G1, a reply written.
// The tables of test/grading/ that feed a grader directly share these.
import type { Grader } from '../../src/grading/grader.js';
import { T0 } from './journal-builder.js';

export const USER = 'p1';

/** Callback `id` of p1 on round G1 (a stake of 10), arrived `at` ms after T0. */
export const cb = (id: number, at: number, event: string, tx: string, applied: boolean) => ({
  id,
  at: T0 + at,
  user: USER,
  event,
  tx,
  game: 'G1',
  total: 10,
  body: { transaction_id: tx, event_type: event, user_id: USER, data: { currency: 'USD', game_no: 'G1', total_bet_amount: 10 } },
  applied,
  lag: 0,
});

/** A reply with `code` written `at` ms after T0 (`clientGone`: the caller had left). */
export const ok = (at: number, code = 'R0', clientGone = false) => ({
  end: T0 + at,
  status: 200,
  body: { code, latest_balance: 990 },
  dropped: false,
  clientGone,
});

/** p1 logs in at T0. */
export const login = (g: Grader) =>
  g.complete(g.arrive({ id: 1000, at: T0, user: USER, event: 'login', tx: 'l1', body: {}, applied: true, lag: 0 }), ok(5));
