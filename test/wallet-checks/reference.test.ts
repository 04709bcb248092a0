// The wallet side judged against the reference (wallet-sim's own wallet as a shadow ledger), as
// tables: each defect fails exactly the check that owns it, citing both answers and the rule; a
// correct wallet fails nothing, one callback at a time or many at once.
import t from 'tap';
import type { WalletCheckId, WalletExchange } from '../../src/grading/wallet/exchange.js';
import { again, bet, ex, failing, grade, login, none, reply, settle, type Step, step } from './exchanges.js';

const betData = (stake: number, o: { total?: number; currency?: string; game?: string } = {}) => ({
  currency: o.currency ?? 'USD',
  game_type: 'b',
  table_no: 't',
  game_no: o.game ?? 'g1',
  total_bet_amount: o.total ?? stake,
  bets: [{ bet_index: '1', bet_type: 'p', bet_amount: stake }],
});
/** Callbacks sent together, then answered in the order given. */
function together(xs: WalletExchange[], answers: [number, Parameters<typeof reply>[1] | 'none'][]): Step[] {
  return [
    ...xs.map((x) => ({ send: x })),
    ...answers.map(([i, o]) => ({ answer: xs[i]!.id, reply: o === 'none' ? none(xs[i]!) : reply(xs[i]!, o) })),
  ];
}

t.test('one callback at a time: the check that owns each kind of difference fails, and only it', async (t) => {
  // Graded as probe grades (a closed world: every round seen from its first bet).
  const rows: [string, () => Step[], WalletCheckId[], RegExp?][] = [
    [
      'totals that disagree, debited as total_bet_amount',
      () => [step(login('p'), { balance: '100' }), step(ex('bet', 'b1', 'p', betData(10, { total: 20 })), { balance: '80' })],
      ['WALLET_REFUSES_INVALID'],
      /R0 where the wallet rules answer R3 \(TOTAL_MISMATCH: total_bet_amount 20 != sum of bets\[\]\.bet_amount 10\)/,
    ],
    [
      'a round settled twice under a new transaction_id',
      () => [
        step(login('p'), { balance: '100' }),
        step(bet('p', 'b1', 10), { balance: '90' }),
        step(settle('p', 's1', 10, 5), { balance: '105' }),
        step(settle('p', 's2', 10, 5), { balance: '120' }),
      ],
      ['WALLET_ROUND_RULES'],
      /ROUND_SETTLED/,
    ],
    [
      'a settlement of a round never bet',
      () => [step(login('p'), { balance: '100' }), step(settle('p', 's1', 10, 5, 'never'), { balance: '115' })],
      ['WALLET_ROUND_RULES'],
      /ROUND_UNKNOWN/,
    ],
    [
      'a bet on a settled round',
      () => [
        step(login('p'), { balance: '100' }),
        step(bet('p', 'b1', 10), { balance: '90' }),
        step(settle('p', 's1', 10, -10), { balance: '90' }),
        step(bet('p', 'b2', 5), { balance: '85' }),
      ],
      ['WALLET_ROUND_RULES'],
      /ROUND_SETTLED/,
    ],
    [
      "a bet in another currency than the player's",
      () => [
        step(login('p'), { balance: '100' }),
        step(bet('p', 'b1', 10), { balance: '90' }),
        step(ex('bet', 'b2', 'p', betData(5, { currency: 'EUR', game: 'g2' })), { balance: '85' }),
      ],
      ['WALLET_ROUND_RULES'],
      /CURRENCY_MISMATCH/,
    ],
    [
      'a transaction_id reused with another body',
      () => [
        step(login('p'), { balance: '100' }),
        step(bet('p', 'b1', 10), { balance: '90' }),
        step(bet('p', 'b1', 20, 'g2'), { balance: '70' }),
      ],
      ['WALLET_ROUND_RULES'],
      /TRANSACTION_REUSED/,
    ],
    (() => {
      const b = bet('p', 'b1', 10);
      return [
        'an identical resend refused, then the transaction_id reused with another body and applied',
        () => [
          step(login('p'), { balance: '100' }),
          step(b, { balance: '90' }),
          step(again(b), { code: 'R3', balance: '90' }),
          step(bet('p', 'b1', 20, 'g2'), { balance: '70' }),
        ],
        ['WALLET_IDEMPOTENT', 'WALLET_ROUND_RULES'],
        /R3 to an identical resend/,
      ] as const;
    })(),
    (() => {
      const b = bet('p', 'b1', 10);
      return [
        'an identical resend applied again, then the transaction_id reused: one root cause',
        () => [
          step(login('p'), { balance: '100' }),
          step(b, { balance: '90' }),
          step(again(b), { balance: '80' }),
          step(bet('p', 'b1', 20, 'g2'), { balance: '60' }),
        ],
        ['WALLET_IDEMPOTENT'],
        /applied again/,
      ] as const;
    })(),
    [
      'more fraction digits than the currency has',
      () => [step(login('p'), { balance: '100' }), step(bet('p', 'b1', 0.001), { balance: '99.999' })],
      ['WALLET_REFUSES_INVALID'],
      /AMOUNT_SCALE/,
    ],
  ];
  for (const [name, steps, want, message] of rows) {
    const r = grade(steps(), 10_000, true);
    t.same(failing(r), want, name);
    if (message) t.match(r.get(want[0]!)!.violations[0]!.message, message, `${name}: the rule is cited`);
  }
});

t.test('proxy mode: a round may have begun before the session, so what rests on its earlier bets is not judged', async (t) => {
  const steps = () => [
    step(login('p'), { balance: '100' }),
    step(settle('p', 's0', 10, 5, 'before'), { balance: '115' }), // its bet came before the session
    step(bet('p', 'b1', 10, 'half'), { balance: '105' }),
    step(settle('p', 's1', 30, 0, 'half'), { balance: '135' }), // 20 of its stake was bet before the session
    step(settle('p', 's2', 10, 5, 'before'), { balance: '150' }), // settled again: that the session saw
  ];
  const r = grade(steps());
  t.same(failing(r), ['WALLET_ROUND_RULES']);
  t.equal(r.get('WALLET_ROUND_RULES')!.violations.length, 1, 'only the second settlement');
  t.match(r.get('WALLET_ROUND_RULES')!.violations[0]!.message, /s2 .*ROUND_SETTLED/);
});

t.test("a player's currency: named by the first bet the wallet applies, not by one it refused", async (t) => {
  const r = grade([
    step(login('p'), { balance: '100' }),
    step(ex('bet', 'b0', 'p', betData(5, { currency: 'EUR', game: 'g0' })), { code: 'R3', balance: null }),
    step(bet('p', 'b1', 10), { balance: '90' }),
    step(ex('bet', 'b2', 'p', betData(5, { currency: 'EUR', game: 'g2' })), { code: 'R3', balance: null }),
  ]);
  t.same(failing(r), []);
  t.equal(r.get('WALLET_ROUND_RULES')!.status, 'pass', 'the EUR bet after the USD one is a currency rule, refused');
});

t.test('a correct wallet refuses what the reference refuses: exercised, nothing fails', async (t) => {
  const r = grade(
    [
      step(login('p'), { balance: '100' }),
      step(ex('bet', 'b0', 'p', betData(10, { total: 20 })), { code: 'R3', balance: '100' }),
      step(bet('p', 'b1', 10), { balance: '90' }),
      step(settle('p', 's1', 10, 5), { balance: '105' }),
      step(settle('p', 's2', 10, 5), { code: 'R3', balance: null }),
      step(settle('p', 's3', 10, 5, 'never'), { code: 'R3', balance: null }),
      step(ex('bet', 'b2', 'p', betData(5, { currency: 'EUR', game: 'g2' })), { code: 'R3', balance: null }),
      step(login('p'), { balance: '105' }),
    ],
    10_000,
    true,
  );
  t.same(failing(r), []);
  t.equal(r.get('WALLET_ROUND_RULES')!.status, 'pass');
  t.equal(r.get('WALLET_ROUND_RULES')!.exercised, 3);
  t.equal(r.get('WALLET_REFUSES_INVALID')!.status, 'pass');
  t.equal(r.get('WALLET_CONCURRENCY_SAFE')!.status, 'not_exercised');
});

t.test('a player first seen on a bet: seeded from what it reports, judged from then on', async (t) => {
  const r = grade([step(bet('q', 'b1', 10), { balance: '990' }), step(settle('q', 's1', 10, 10), { balance: '1010' })]);
  t.same(failing(r), []);
  t.equal(r.get('WALLET_BALANCE_EXACT')!.exercised, 1, 'the settlement, from the balance the bet reported');
});

t.test('overlapping callbacks are judged as a history', async (t) => {
  const five = () => Array.from({ length: 5 }, (_, i) => bet('p', `c${i}`, 10, `gc${i}`));
  const rows: [string, () => Step[], WalletCheckId[]][] = [
    [
      'five bets of 10 on 30, applied one after another (answers in any order): three R0, two R4',
      () => {
        const xs = five();
        return [
          step(login('p'), { balance: '30' }),
          ...together(xs, [
            [3, { code: 'R4', balance: '0' }],
            [1, { balance: '10' }],
            [0, { balance: '20' }],
            [4, { code: 'R4', balance: '0' }],
            [2, { balance: '0' }],
          ]),
          step(login('p'), { balance: '0' }),
        ];
      },
      [],
    ],
    [
      'a check-then-debit race: every bet passes on the balance of 30, the balance goes below zero',
      () => {
        const xs = five();
        return [
          step(login('p'), { balance: '30' }),
          ...together(xs, [
            [0, { balance: '20' }],
            [1, { balance: '10' }],
            [2, { balance: '0' }],
            [3, { balance: '-10' }],
            [4, { code: 'R4', balance: '-10' }],
          ]),
          step(login('p'), { balance: '-10' }),
        ];
      },
      ['WALLET_CONCURRENCY_SAFE'],
    ],
    [
      'a lost update: four R0, each reporting 30 - 10',
      () => {
        const xs = five().slice(0, 4);
        return [
          step(login('p'), { balance: '30' }),
          ...together(
            xs,
            xs.map((_, i) => [i, { balance: '20' }]),
          ),
        ];
      },
      ['WALLET_CONCURRENCY_SAFE'],
    ],
    [
      'a lost reply among them: applied or not, both explain the rest',
      () => {
        const xs = five().slice(0, 3);
        return [
          step(login('p'), { balance: '100' }),
          ...together(xs, [
            [0, 'none'],
            [1, { balance: '80' }],
            [2, { balance: '70' }],
          ]),
          step(again(xs[0]!), { balance: '70' }),
          step(login('p'), { balance: '70' }),
        ];
      },
      [],
    ],
    [
      'a resend answered with a balance that no order gives',
      () => {
        const b = bet('p', 'b1', 10);
        const l = login('p');
        return [
          step(login('p'), { balance: '100' }),
          step(b, { balance: '90' }),
          { send: l },
          { ex: again(b), reply: reply(b, { balance: '777' }) },
          { answer: l.id, reply: reply(l, { balance: '90' }) },
        ];
      },
      ['WALLET_CONCURRENCY_SAFE'],
    ],
  ];
  for (const [name, steps, want] of rows) {
    const r = grade(steps());
    t.same(
      failing(r).filter((id) => id !== 'WALLET_ANSWERS_IN_TIME'),
      want,
      name,
    );
    if (want.length) {
      const v = r.get('WALLET_CONCURRENCY_SAFE')!.violations[0]!;
      t.ok(v.journal_ids.length >= 2, `${name}: the violation cites every callback of the history`);
    } else t.equal(r.get('WALLET_CONCURRENCY_SAFE')!.status, 'pass', `${name}: exercised and passed`);
  }
});

t.test('past the bound: "could not judge", never a failure', async (t) => {
  const xs = Array.from({ length: 40 }, (_, i) => bet('p', `m${i}`, 1, `gm${i}`));
  const r = grade([
    step(login('p'), { balance: '100' }),
    ...together(
      xs,
      xs.map((_, i) => [i, { balance: String(99 - i) }]),
    ),
  ]);
  const safe = r.get('WALLET_CONCURRENCY_SAFE')!;
  t.equal(safe.status, 'not_exercised');
  t.match(safe.detail, /could not be judged/);
  t.same(failing(r), []);
});
