// Counts and their phrases: one helper (src/text/plural.ts) for every "why" line and message, whole
// phrases per count, never an "s" appended to a phrase.
import t from 'tap';
import { CHECKS } from '../src/grading/grade.js';
import { count, noun } from '../src/text/plural.js';

t.test('count chooses the whole phrase for the count', async (t) => {
  const rows: [number, string][] = [
    [0, '0 callbacks'],
    [1, '1 callback'],
    [2, '2 callbacks'],
  ];
  for (const [n, want] of rows) t.equal(count(n, noun('callback')), want);
  t.equal(count(1, { one: 'warning fails', other: 'warnings fail' }), '1 warning fails');
  t.equal(count(3, { one: 'warning fails', other: 'warnings fail' }), '3 warnings fail');
});

t.test("every check's unit reads right for one chance and for many", async (t) => {
  const many: Record<string, string> = {
    LOST_REPLY_RETRIED: '3 bet/bet_result transactions with a lost reply',
    NO_RETRY_AFTER_REFUSAL: '3 transactions refused with R2, R3 or R4',
    NO_SETTLEMENT_BEFORE_BET_REPLY: '3 settlements of a round with bets',
    ROUNDS_SETTLED: '3 rounds opened',
    NO_PREMATURE_RETRY: '3 resends while the attempt before was unanswered',
  };
  for (const c of CHECKS) {
    t.not(count(1, c.unit), count(3, c.unit), `${c.id}: one and many differ`);
    t.notMatch(count(3, c.unit), /ss\b|ys\b|R4s|deds\b/, `${c.id}: ${count(3, c.unit)}`);
    if (many[c.id]) t.equal(count(3, c.unit), many[c.id]);
  }
});
