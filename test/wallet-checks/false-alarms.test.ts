// Correct wallets that the wallet-side checks once failed, and defects once blamed on the wrong
// check, as a table: each history graded as proxy mode grades it (a round may have begun before the
// session) and as probe does (every round seen from its first bet), with the checks that fail.
import t from 'tap';
import type { WalletCheckId } from '../../src/grading/wallet/exchange.js';
import { again, bet, ex, failing, grade, login, none, reply, settle, type Step, step } from './exchanges.js';

type Row = [name: string, build: (u: string) => Step[], proxy: WalletCheckId[], probe: WalletCheckId[]];

/** A bet whose total_bet_amount (20) is not the sum of its bets (10): the schemas' totals refuse it. */
const badTotals = (u: string, tx: string, game: string) =>
  ex('bet', tx, u, {
    currency: 'USD',
    game_type: 'b',
    table_no: 't',
    game_no: game,
    total_bet_amount: 20,
    bets: [{ bet_index: '1', bet_type: 'p', bet_amount: 10 }],
  });

/** A bet with no reply, a login that reports `seen`, then the bet's resend answered R0 with `resent`. */
const unseenThenLogin = (seen: string, resent: string) => (u: string) => {
  const b1 = bet(u, `${u}-b1`, 10, 'g1');
  return [
    step(login(u), { balance: '1000' }),
    { ex: b1, reply: none(b1) },
    step(login(u), { balance: seen }),
    step(again(b1), { balance: resent }),
  ];
};
/** b1 990 and b3 980 applied, b2 answered R1 (applied or not), then b1's resend answered R0 with `resent`. */
const resendAfterR1 = (resent: string) => (u: string) => {
  const b1 = bet(u, `${u}-b1`, 10, 'g1');
  return [
    step(login(u), { balance: '1000' }),
    step(b1, { balance: '990' }),
    step(bet(u, `${u}-b3`, 10, 'g3'), { balance: '980' }),
    step(bet(u, `${u}-b2`, 10, 'g2'), { code: 'R1', balance: null }),
    step(again(b1), { balance: resent }),
  ];
};

const ROWS: Row[] = [
  [
    'overlapping: the settlement of a round begun before the session, and a bet (a correct wallet)',
    (u) => {
      const s = settle(u, `${u}-s-old`, 10, 5, 'g-old');
      const b = bet(u, `${u}-b2`, 10, 'g2');
      return [
        step(login(u), { balance: '1000' }),
        { send: s },
        { send: b },
        { answer: s.id, reply: reply(s, { balance: '1015' }) },
        { answer: b.id, reply: reply(b, { balance: '1005' }) },
      ];
    },
    [],
    ['WALLET_ROUND_RULES'], // probe plays every round itself: a round it never bet is the wallet's fault
  ],
  ['a resend replayed with the current balance while the balance was unknown (after an R1)', resendAfterR1('980'), [], []],
  [
    'a first attempt with no reply (the wallet applied it), another bet, then its resend replayed',
    (u) => {
      const b1 = bet(u, `${u}-b1`, 10, 'g1');
      return [
        step(login(u), { balance: '1000' }),
        { ex: b1, reply: none(b1) },
        step(bet(u, `${u}-b2`, 10, 'g2'), { balance: '980' }),
        step(again(b1), { balance: '980' }),
      ];
    },
    ['WALLET_ANSWERS_IN_TIME'],
    ['WALLET_ANSWERS_IN_TIME'],
  ],
  [
    'a first attempt with no reply (the wallet applied it), a login, then its resend replayed',
    unseenThenLogin('990', '990'),
    ['WALLET_ANSWERS_IN_TIME'],
    ['WALLET_ANSWERS_IN_TIME'],
  ],
  [
    'a first attempt with no reply and a resend that applies it then (a correct wallet that had not)',
    (u) => {
      const b1 = bet(u, `${u}-b1`, 10, 'g1');
      return [
        step(login(u), { balance: '1000' }),
        { ex: b1, reply: none(b1) },
        step(again(b1), { balance: '990' }),
        step(bet(u, `${u}-b2`, 10, 'g2'), { balance: '980' }),
      ];
    },
    ['WALLET_ANSWERS_IN_TIME'],
    ['WALLET_ANSWERS_IN_TIME'],
  ],
  [
    'overlapping: a second settlement of a settled round answered R0, and a bet (a round rule, not a race)',
    (u) => {
      const s2 = settle(u, `${u}-s1b`, 10, 5, 'g1');
      const b2 = bet(u, `${u}-b2`, 10, 'g2');
      return [
        step(login(u), { balance: '1000' }),
        step(bet(u, `${u}-b1`, 10, 'g1'), { balance: '990' }),
        step(settle(u, `${u}-s1`, 10, 5, 'g1'), { balance: '1005' }),
        { send: s2 },
        { send: b2 },
        { answer: s2.id, reply: reply(s2, { balance: '1020' }) },
        { answer: b2.id, reply: reply(b2, { balance: '1010' }) },
      ];
    },
    ['WALLET_ROUND_RULES'],
    ['WALLET_ROUND_RULES'],
  ],
  [
    'overlapping: a bet with wrong totals answered R0, and a bet (the body, not a race)',
    (u) => {
      const bad = badTotals(u, `${u}-bad`, 'g1');
      const b2 = bet(u, `${u}-b2`, 10, 'g2');
      return [
        step(login(u), { balance: '1000' }),
        { send: bad },
        { send: b2 },
        { answer: bad.id, reply: reply(bad, { balance: '980' }) },
        { answer: b2.id, reply: reply(b2, { balance: '970' }) },
      ];
    },
    ['WALLET_REFUSES_INVALID'],
    ['WALLET_REFUSES_INVALID'],
  ],
  // Defects these allowances must not let pass.
  [
    'a first attempt with no reply, a login showing it was not applied, and its resend answered R0 without a debit',
    unseenThenLogin('1000', '1000'),
    ['WALLET_ANSWERS_IN_TIME', 'WALLET_BALANCE_EXACT'],
    ['WALLET_ANSWERS_IN_TIME', 'WALLET_BALANCE_EXACT'],
  ],
  [
    'a first attempt with no reply, a login showing it applied, and its resend debited again',
    unseenThenLogin('990', '980'),
    ['WALLET_ANSWERS_IN_TIME', 'WALLET_BALANCE_EXACT'],
    ['WALLET_ANSWERS_IN_TIME', 'WALLET_BALANCE_EXACT'],
  ],
  [
    'a first attempt with no reply (not applied, as a login shows), then its resend and a bet overlapping, one debit lost',
    (u) => {
      const b1 = bet(u, `${u}-b1`, 10, 'g1');
      const resend = again(b1);
      const b2 = bet(u, `${u}-b2`, 10, 'g2');
      return [
        step(login(u), { balance: '1000' }),
        { ex: b1, reply: none(b1) },
        step(login(u), { balance: '1000' }),
        { send: resend },
        { send: b2 },
        { answer: resend.id, reply: reply(resend, { balance: '990' }) },
        { answer: b2.id, reply: reply(b2, { balance: '990' }) },
      ];
    },
    ['WALLET_ANSWERS_IN_TIME', 'WALLET_CONCURRENCY_SAFE'],
    ['WALLET_ANSWERS_IN_TIME', 'WALLET_CONCURRENCY_SAFE'],
  ],
  [
    'a resend applied again while the balance was unknown (after an R1): a balance it could not have',
    resendAfterR1('960'),
    ['WALLET_IDEMPOTENT'],
    ['WALLET_IDEMPOTENT'],
  ],
  ['a resend replayed after an R1 that the wallet had applied (the balance one debit lower)', resendAfterR1('970'), [], []],
  [
    'overlapping: two bets and a second settlement of a settled round, all read the same balance (a lost update behind a round fault)',
    (u) => {
      const b1 = bet(u, `${u}-b1`, 10, 'g2');
      const b2 = bet(u, `${u}-b2`, 10, 'g3');
      const again1 = settle(u, `${u}-s1b`, 10, -10, 'g1');
      return [
        step(login(u), { balance: '1000' }),
        step(bet(u, `${u}-b0`, 10, 'g1'), { balance: '990' }),
        step(settle(u, `${u}-s1`, 10, 0, 'g1'), { balance: '1000' }),
        { send: b1 },
        { send: b2 },
        { send: again1 },
        { answer: b1.id, reply: reply(b1, { balance: '990' }) },
        { answer: b2.id, reply: reply(b2, { balance: '990' }) },
        { answer: again1.id, reply: reply(again1, { balance: '1000' }) },
      ];
    },
    ['WALLET_CONCURRENCY_SAFE'],
    ['WALLET_CONCURRENCY_SAFE'],
  ],
  [
    'overlapping: a bet, the settlement of a round begun before the session, and a bet, one debit lost',
    (u) => {
      const b1 = bet(u, `${u}-b1`, 10, 'g1');
      const s = settle(u, `${u}-s-old`, 10, 5, 'g-old');
      const b2 = bet(u, `${u}-b2`, 10, 'g2');
      return [
        step(login(u), { balance: '1000' }),
        { send: b1 },
        { send: s },
        { send: b2 },
        { answer: b1.id, reply: reply(b1, { balance: '990' }) },
        { answer: s.id, reply: reply(s, { balance: '1015' }) },
        { answer: b2.id, reply: reply(b2, { balance: '1005' }) },
      ];
    },
    ['WALLET_CONCURRENCY_SAFE'],
    ['WALLET_CONCURRENCY_SAFE'],
  ],
  [
    'overlapping: two bets, one debited twice (a race still caught)',
    (u) => {
      const b1 = bet(u, `${u}-b1`, 10, 'g1');
      const b2 = bet(u, `${u}-b2`, 10, 'g2');
      return [
        step(login(u), { balance: '1000' }),
        { send: b1 },
        { send: b2 },
        { answer: b1.id, reply: reply(b1, { balance: '990' }) },
        { answer: b2.id, reply: reply(b2, { balance: '990' }) },
      ];
    },
    ['WALLET_CONCURRENCY_SAFE'],
    ['WALLET_CONCURRENCY_SAFE'],
  ],
];

t.test('the table', async (t) => {
  let n = 0;
  for (const [name, build, proxy, probe] of ROWS) {
    t.same(failing(grade(build(`p${++n}`), 10_000, false)).sort(), [...proxy].sort(), `proxy mode: ${name}`);
    t.same(failing(grade(build(`p${++n}`), 10_000, true)).sort(), [...probe].sort(), `probe: ${name}`);
  }
});
