import t from 'tap';
import type { CallbackRequest, Rule } from '../src/protocol/types.generated.js';
import '../src/protocol/seed/index.js'; // the built-in events (the app registers them with the protocol it picks)
import { RuleEngine } from '../src/core/scenario/rules.js';

const login = (user_id: string) =>
  ({ transaction_id: 'x', event_type: 'login', timestamp: 1, feedback_data: '', user_id }) as CallbackRequest;
const bet = (
  user_id: string,
  amount: number,
  extra: Partial<{ game_no: string; table_no: string; game_type: string; currency: string }> = {},
) =>
  ({
    transaction_id: 'x',
    event_type: 'bet',
    timestamp: 1,
    feedback_data: '',
    user_id,
    data: {
      currency: 'USD',
      game_type: 'BAC',
      table_no: 'T1',
      game_no: 'G1',
      ...extra,
      total_bet_amount: amount,
      bets: [{ bet_index: '1', bet_type: 'P', bet_amount: amount }],
    },
  }) as CallbackRequest;

/** Which rule (by name) fires for each request in turn. */
const run = (rules: Rule[], requests: CallbackRequest[]) => {
  const engine = new RuleEngine(rules);
  return requests.map((r) => engine.choose(r)?.name ?? null);
};

t.test('conditions', async (t) => {
  const cases: [string, Rule['when'], CallbackRequest, boolean][] = [
    ['empty when matches anything', {}, login('a'), true],
    ['event_type', { event_type: 'bet' }, login('a'), false],
    ['event_type match', { event_type: 'bet' }, bet('a', 5), true],
    ['user_id', { user_id: 'b' }, bet('a', 5), false],
    ['game_no', { game_no: 'G2' }, bet('a', 5), false],
    ['game_no match', { game_no: 'G2' }, bet('a', 5, { game_no: 'G2' }), true],
    ['table_no', { table_no: 'T9' }, bet('a', 5), false],
    ['game_type', { game_type: 'BAC' }, bet('a', 5), true],
    ['currency', { currency: 'KRW' }, bet('a', 5), false],
    ['data fields never match a login', { game_no: 'G1' }, login('a'), false],
    ['min_amount below', { min_amount: 10 }, bet('a', 9.99), false],
    ['min_amount equal (inclusive)', { min_amount: 10 }, bet('a', 10), true],
    ['max_amount above', { max_amount: 10 }, bet('a', 10.01), false],
    ['max_amount equal (inclusive)', { max_amount: 0.3 }, bet('a', 0.3), true],
    ['amount bounds never match a login', { min_amount: 0 }, login('a'), false],
  ];
  for (const [name, when, req, fires] of cases) {
    t.equal(run([{ name: 'r', when, then: { code: 'R1' } }], [req])[0], fires ? 'r' : null, name);
  }
});

t.test('first match wins; an exhausted rule is skipped so the next may fire', async (t) => {
  const rules: Rule[] = [
    { name: 'once', when: { event_type: 'bet' }, then: { code: 'R1' }, times: 1 },
    { name: 'always', when: { event_type: 'bet' }, then: { code: 'R4' } },
  ];
  t.same(run(rules, [bet('a', 1), bet('a', 1), bet('a', 1)]), ['once', 'always', 'always']);
});

t.test('nth fires on the nth matching callback only, counting callbacks other rules took', async (t) => {
  const rules: Rule[] = [
    { name: 'first bet of a', when: { event_type: 'bet', user_id: 'a' }, then: { delay_ms: 1 }, times: 1 },
    { name: 'third bet of a', when: { event_type: 'bet', user_id: 'a', nth: 3 }, then: { code: 'R4' } },
  ];
  t.same(run(rules, [bet('a', 1), bet('b', 1), bet('a', 1), login('a'), bet('a', 1), bet('a', 1)]), [
    'first bet of a',
    null,
    null,
    null,
    'third bet of a',
    null,
  ]);
});

t.test('every fires on each k-th match; times caps it', async (t) => {
  t.same(
    run(
      [{ name: 'e', when: { every: 3 }, then: { code: 'R1' } }],
      Array.from({ length: 7 }, () => bet('a', 1)),
    ),
    [null, null, 'e', null, null, 'e', null],
  );
  t.same(
    run(
      [{ name: 'e', when: { every: 2 }, then: { code: 'R1' }, times: 1 }],
      Array.from({ length: 6 }, () => bet('a', 1)),
    ),
    [null, 'e', null, null, null, null],
  );
});

t.test('hit counters and reset', async (t) => {
  const engine = new RuleEngine([
    { when: { event_type: 'bet' }, then: { code: 'R1' }, times: 2 },
    { name: 'logins', when: { event_type: 'login' }, then: { delay_ms: 0 } },
  ]);
  for (let i = 0; i < 3; i++) engine.choose(bet('a', 1));
  engine.choose(login('a'));
  t.same(engine.hits(), [
    { index: 0, name: 'rule 0', matched: 3, fired: 2, exhausted: true },
    { index: 1, name: 'logins', matched: 1, fired: 1, exhausted: false },
  ]);
  engine.reset();
  t.same(
    engine.hits().map((h) => [h.matched, h.fired, h.exhausted]),
    [
      [0, 0, false],
      [0, 0, false],
    ],
  );
  t.equal(engine.choose(bet('a', 1))?.index, 0, 'fires again after reset');
});
