// Generated sessions for the grading property tests: short sequences of callbacks from a small
// alphabet (logins, bets, settlements, resends — unchanged or changed — and the same bet under a
// new id), with faults from scenario rules, and the part of a report that must not depend on
// where the journal or the process stood.
import fc from 'fast-check';
import type { Report } from '../../src/protocol/types.generated.js';
import { bet, login, result } from '../helpers/app.js';

export const RULES = [
  { name: 'lost', when: { event_type: 'bet' as const, user_id: 'p-lost', every: 2 }, then: { drop_connection: true } },
  { name: 'r4', when: { event_type: 'bet' as const, user_id: 'p-broke' }, then: { code: 'R4' as const, latest_balance: 5 } },
  { name: 'r1', when: { event_type: 'bet_result' as const, user_id: 'p-r1', every: 2 }, then: { code: 'R1' as const } },
];
const PLAYERS = ['p-ok', 'p-lost', 'p-broke', 'p-r1'];

export type Step = { op: 'login' | 'bet' | 'settle' | 'resend' | 'changed' | 'newid'; player: number; game: number; amount: number };

export const steps = fc.array(
  fc.record({
    op: fc.constantFrom<Step['op']>('login', 'bet', 'settle', 'resend', 'changed', 'newid'),
    player: fc.nat(PLAYERS.length - 1),
    game: fc.nat(2),
    amount: fc.integer({ min: 1, max: 20 }),
  }),
  { minLength: 1, maxLength: 25 },
);

/** The bodies a sequence of steps sends, in order (the same ids every time it is played). */
export function bodies(run: Step[], tag: string): object[] {
  let last: Record<string, any> | undefined;
  return run.map((s, i) => {
    const user = PLAYERS[s.player]!;
    const game = `${tag}-G${s.game}`;
    const id = `${tag}-${i}`;
    let body: Record<string, any>;
    if (s.op === 'login') body = { ...login(user), transaction_id: id };
    else if (s.op === 'bet') body = { ...bet(user, game, [['1', 'P', s.amount]], { currency: 'USD' }), transaction_id: id };
    else if (s.op === 'settle') body = { ...result(user, game, [['1', 'P', s.amount, s.amount]], { currency: 'USD' }), transaction_id: id };
    else if (!last) body = { ...login(user), transaction_id: id };
    else if (s.op === 'resend') body = last;
    else if (s.op === 'changed') body = { ...last, feedback_data: `changed-${i}` };
    else body = { ...last, transaction_id: id };
    last = body;
    return body;
  });
}

/** What must be the same: every check's status, chances and number of violations, and the findings. */
export const verdict = (r: Report) =>
  JSON.stringify([
    r.checks.map((c) => [c.id, c.status, c.exercised, c.violations.length]),
    r.findings,
    r.open_rounds.map((o) => o.game_no),
  ]);
