import { createHash } from 'node:crypto';
import t from 'tap';
import type { CallbackRequest, Rule } from '../src/protocol/types.generated.js';
import { drawOf, wins } from '../src/core/scenario/draw.js';
import '../src/protocol/seed/index.js'; // the built-in events (the app registers them with the protocol it picks)
import { RuleEngine } from '../src/core/scenario/rules.js';
import { compileScenario, ScenarioError } from '../src/core/scenario/scenario.js';

const call = (event_type: 'login' | 'bet', user_id: string) =>
  (event_type === 'login'
    ? { transaction_id: 'x', event_type, timestamp: 1, feedback_data: '', user_id }
    : {
        transaction_id: 'x',
        event_type,
        timestamp: 1,
        feedback_data: '',
        user_id,
        data: {
          currency: 'USD',
          game_type: 'BAC',
          table_no: 'T1',
          game_no: 'G1',
          total_bet_amount: 1,
          bets: [{ bet_index: '1', bet_type: 'P', bet_amount: 1 }],
        },
      }) as CallbackRequest;

t.test('the draw is the documented hash: first 52 bits of SHA-256 of [seed, name, user_id, count] over 2^52', async (t) => {
  const cases: [number, string, string, number][] = [
    [0, 'lost-bet', 'player-1', 1],
    [42, 'lost-bet', 'player-1', 1],
    [42, 'lost-bet', 'player-1', 2],
    [42, 'r1-settlement', 'p', 7],
    [9007199254740991, 'x', '__proto__', 123456],
  ];
  for (const [seed, name, user, count] of cases) {
    const hex = createHash('sha256')
      .update(JSON.stringify([seed, name, user, count]))
      .digest('hex');
    const expected = Number(BigInt(`0x${hex.slice(0, 13)}`)) / 2 ** 52;
    t.equal(drawOf(seed, name, user, count), expected, `${seed} ${name} ${user} ${count}`);
    t.ok(expected >= 0 && expected < 1);
  }
  t.equal(wins(1, 5, 'any', 'p', 1), true, 'p = 1 always fires');
});

t.test('same seed + same per-player sequence → the same faults; another seed → others', async (t) => {
  const rules: Rule[] = [
    { name: 'drop-bet', when: { event_type: 'bet' }, then: { drop_connection: true }, probability: 0.3 },
    { name: 'r2-login', when: { event_type: 'login' }, then: { code: 'R2' }, probability: 0.3 },
  ];
  const sequence = Array.from({ length: 200 }, (_, i) => call(i % 5 ? 'bet' : 'login', `p${i % 3}`));
  const play = (seed: number) => {
    const engine = new RuleEngine(rules, seed);
    const counts = new Map<string, number>();
    return sequence.map((r) => {
      const n = (counts.get(r.user_id) ?? 0) + 1;
      counts.set(r.user_id, n);
      return engine.choose(r, n)?.name ?? null;
    });
  };
  const first = play(7);
  t.same(play(7), first, 'replayed fault for fault');
  t.not(JSON.stringify(play(8)), JSON.stringify(first), 'another seed meets other faults');
  t.ok(first.includes('drop-bet') && first.includes('r2-login') && first.includes(null), 'faults and clean callbacks both occur');
});

t.test('rates stay within statistical bounds over 10,000 draws', async (t) => {
  for (const p of [0.01, 0.05, 0.2, 0.5]) {
    let fired = 0;
    const n = 10_000;
    for (let count = 1; count <= n; count++) if (wins(p, 12345, 'rate', `player-${count % 7}`, count)) fired++;
    // 5 standard deviations: a false alarm about once in 3.5 million runs (and the draw is fixed: never flaky).
    const sd = Math.sqrt(n * p * (1 - p));
    t.ok(Math.abs(fired - n * p) <= 5 * sd, `p = ${p}: ${fired} of ${n} (expected ${n * p} ± ${Math.round(5 * sd)})`);
  }
});

t.test('a lost draw: the rule did not fire, its times is not used up, the next matching rule may fire', async (t) => {
  const seed = 3;
  // Find a count whose draw loses at p = 0.5 and one that wins, for this seed and player.
  const loses = [1, 2, 3, 4, 5, 6, 7, 8].find((c) => !wins(0.5, seed, 'maybe', 'a', c))!;
  const winsAt = [1, 2, 3, 4, 5, 6, 7, 8].find((c) => wins(0.5, seed, 'maybe', 'a', c))!;
  const engine = new RuleEngine(
    [
      { name: 'maybe', when: { event_type: 'bet' }, then: { code: 'R1' }, probability: 0.5, times: 1 },
      { name: 'fallback', when: { event_type: 'bet' }, then: { code: 'R4' } },
    ],
    seed,
  );
  t.equal(engine.choose(call('bet', 'a'), loses)?.name, 'fallback', 'lost draw: the next rule fires');
  t.match(engine.hits()[0], { matched: 1, fired: 0, exhausted: false }, 'matched, not fired, times left');
  t.equal(engine.choose(call('bet', 'a'), winsAt)?.name, 'maybe', 'a winning draw fires it');
  t.match(engine.hits()[0], { matched: 2, fired: 1, exhausted: true });
});

t.test('a retry draws afresh: its count is higher', async (t) => {
  // The same transaction resent is the player's next callback: a different input, an independent draw.
  const draws = Array.from({ length: 50 }, (_, i) => drawOf(1, 'lost-settlement', 'p', i + 1));
  t.equal(new Set(draws).size, draws.length, 'every count draws a different number');
  const fires = draws.map((u) => u < 0.5);
  t.ok(fires.includes(true) && fires.includes(false), 'a fault on one attempt says nothing about the next');
});

t.test('nth is matched first, then the draw', async (t) => {
  const engine = new RuleEngine([{ name: 'third', when: { event_type: 'bet', nth: 3 }, then: { code: 'R1' }, probability: 1 }], 9);
  t.same(
    [1, 2, 3, 4].map((n) => engine.choose(call('bet', 'a'), n)?.name ?? null),
    [null, null, 'third', null],
  );
});

t.test('validation: a probability needs a name, is 0 < p <= 1; the seed is a whole number', async (t) => {
  const base = { name: 's', credentials: { api_id: 'a', api_key: 'k' } };
  const cases: [string, unknown, string][] = [
    ['no name', { ...base, rules: [{ when: {}, then: { code: 'R1' }, probability: 0.1 }] }, '/rules/0/name is required'],
    ['p = 0', { ...base, rules: [{ name: 'z', when: {}, then: { code: 'R1' }, probability: 0 }] }, '/rules/0/probability'],
    ['p > 1', { ...base, rules: [{ name: 'z', when: {}, then: { code: 'R1' }, probability: 1.5 }] }, '/rules/0/probability'],
    ['seed 1.5', { ...base, seed: 1.5 }, '/seed'],
    ['seed -1', { ...base, seed: -1 }, '/seed'],
  ];
  for (const [label, doc, message] of cases) {
    t.throws(() => compileScenario(doc, 'x.json'), ScenarioError, label);
    try {
      compileScenario(doc, 'x.json');
    } catch (e) {
      t.match((e as Error).message, message, label);
    }
  }
  t.doesNotThrow(() => compileScenario({ ...base, seed: 42, rules: [{ name: 'z', when: {}, then: { code: 'R1' }, probability: 1 }] }));
});
