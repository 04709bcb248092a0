// One defect, one failure, in a history too: a wallet whose arithmetic is wrong (balances in binary
// floats, a bet that reports the balance from before its debit) fails WALLET_BALANCE_EXACT once,
// whether its callbacks came one at a time (as probe sends them) or at once (as a provider's may,
// through the proxy); not WALLET_CONCURRENCY_SAFE, and not WALLET_IDEMPOTENT for a correct replay.
import t from 'tap';
import type { WalletExchange } from '../../src/grading/wallet/exchange.js';
import { again, bet, failing, grade, login, reply, settle, type Step, step } from './exchanges.js';

/** Callbacks sent together, then answered in order, each with the balance given. */
const together = (xs: WalletExchange[], balances: string[]): Step[] => [
  ...xs.map((x) => ({ send: x })),
  ...xs.map((x, i) => ({ answer: x.id, reply: reply(x, { balance: balances[i]! }) })),
];
const four = (tag: string) => Array.from({ length: 4 }, (_, i) => bet('p', `${tag}${i}`, 0.3, `${tag}g${i}`));
const without = (ids: string[]) => ids.filter((id) => id !== 'WALLET_ANSWERS_IN_TIME');

t.test('simultaneous bets answered by a float ledger: WALLET_BALANCE_EXACT, once', async (t) => {
  const floats = ['999.7', '999.4000000000001', '999.1000000000001', '998.8000000000002'];
  const r = grade([
    step(login('p'), { balance: '1000' }),
    ...together(four('f'), floats),
    ...together(four('h'), ['998.5000000000002', '998.2000000000003', '997.9000000000003', '997.6000000000004']),
  ]);
  t.same(without(failing(r)), ['WALLET_BALANCE_EXACT']);
  const exact = r.get('WALLET_BALANCE_EXACT')!;
  t.equal(exact.violations.length, 1, 'named once, not once per history');
  t.match(exact.violations[0]!.message, /999\.4000000000001, more fraction digits than USD has \(2\)/);
  t.match(r.get('WALLET_CONCURRENCY_SAFE')!.detail, /could not be judged \(see WALLET_BALANCE_EXACT\)/);
});

t.test('simultaneous bets each reporting the balance from before its debit: WALLET_BALANCE_EXACT only', async (t) => {
  const r = grade([step(login('p'), { balance: '1000' }), ...together(four('s'), ['1000', '999.7', '999.4', '999.1'])]);
  t.same(without(failing(r)), ['WALLET_BALANCE_EXACT']);
  t.match(r.get('WALLET_BALANCE_EXACT')!.violations[0]!.message, /latest_balance 1000, .* between 998\.8 and 999\.7/);
});

t.test('a stale balance on a bet, then a correct replay of it: WALLET_BALANCE_EXACT only', async (t) => {
  const b = bet('p', 'b1', 10);
  const r = grade([
    step(login('p'), { balance: '100' }),
    step(b, { balance: '100' }), // applied, but reports the balance before the debit
    step(again(b), { balance: '90' }), // the replay reports the current balance: the protocol allows it
  ]);
  t.same(failing(r), ['WALLET_BALANCE_EXACT']);
  t.equal(r.get('WALLET_IDEMPOTENT')!.exercised, 1, 'the resend was still met');
});

t.test('races whose balances are exact decimals within reach stay WALLET_CONCURRENCY_SAFE', async (t) => {
  const rows: [string, Step[]][] = [
    [
      'a lost update: four R0, each reporting 1000 - 0.3',
      [step(login('p'), { balance: '1000' }), ...together(four('l'), ['999.7', '999.7', '999.7', '999.7'])],
    ],
    [
      'two of four from the same read',
      [step(login('p'), { balance: '1000' }), ...together(four('d'), ['999.7', '999.4', '999.4', '999.1'])],
    ],
  ];
  for (const [name, steps] of rows) {
    const r = grade(steps);
    t.same(without(failing(r)), ['WALLET_CONCURRENCY_SAFE'], name);
    t.equal(r.get('WALLET_BALANCE_EXACT')!.violations.length, 0, `${name}: no arithmetic blamed`);
  }
});

t.test('a double debit of a resend is still WALLET_IDEMPOTENT for a player with exact balances', async (t) => {
  const b = bet('p', 'b2', 10);
  const r = grade([step(login('p'), { balance: '100' }), step(b, { balance: '90' }), step(again(b), { balance: '80' })]);
  t.same(failing(r), ['WALLET_IDEMPOTENT']);
});

t.test(
  'a settlement reply that misreports a balance its ledger has right: one violation, not one more for the next truthful reply',
  async (t) => {
    const rows: [string, Step[], number][] = [
      [
        'the lie, then a login reporting the true balance',
        [
          step(login('p'), { balance: '100' }),
          step(bet('p', 'b1', 10, 'g1'), { balance: '90' }),
          step(settle('p', 's1', 10, 5, 'g1'), { balance: '95.3' }), // 105 credited, 95.3 written
          step(login('p'), { balance: '105' }),
          step(bet('p', 'b2', 7, 'g2'), { balance: '98' }),
        ],
        1,
      ],
      [
        'the lie, then a bet moving from the true balance',
        [
          step(login('p'), { balance: '100' }),
          step(bet('p', 'b1', 10, 'g1'), { balance: '90' }),
          step(settle('p', 's1', 10, 5, 'g1'), { balance: '95' }),
          step(bet('p', 'b2', 7, 'g2'), { balance: '98' }),
        ],
        1,
      ],
      [
        'the lie kept (its ledger followed it): one violation',
        [
          step(login('p'), { balance: '100' }),
          step(bet('p', 'b1', 10, 'g1'), { balance: '90' }),
          step(settle('p', 's1', 10, 5, 'g1'), { balance: '95' }),
          step(bet('p', 'b2', 7, 'g2'), { balance: '88' }),
        ],
        1,
      ],
      [
        'two lies, each its own violation',
        [
          step(login('p'), { balance: '100' }),
          step(bet('p', 'b1', 10, 'g1'), { balance: '90' }),
          step(settle('p', 's1', 10, 5, 'g1'), { balance: '95' }),
          step(bet('p', 'b2', 7, 'g2'), { balance: '50' }),
        ],
        2,
      ],
    ];
    for (const [name, steps, n] of rows) {
      const r = grade(steps);
      t.same(failing(r), ['WALLET_BALANCE_EXACT'], name);
      t.equal(r.get('WALLET_BALANCE_EXACT')!.violations.length, n, name);
    }
  },
);
