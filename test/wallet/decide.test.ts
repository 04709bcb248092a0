// The money rules as a pure function: a view of the records in, code + changes + findings out.
// No Fastify, no store: each case builds the view it needs.
import t from 'tap';
import { money } from '../../src/kernel/money.js';
import type { CallbackRequest } from '../../src/protocol/types.generated.js';
import type { Player, Round } from '../../src/ledger/state.js';
import type { View } from '../../src/ledger/store.js';
import { decide, type WalletConfig } from '../../src/wallet/decide.js';
import { fingerprintOf } from '../../src/kernel/digest.js';

const config: WalletConfig = {
  scale: (c) => (c === 'KRW' ? 0 : 2),
  defaultCurrency: 'USD',
  defaultBalance: money(1000),
  autoCreatePlayers: true,
};
const alice: Player = { user_id: 'alice', balance: money(100), currency: 'USD' };
const openRound = (stake: number, bets: [string, string, number][]): Round => ({
  user_id: 'alice',
  game_no: 'g1',
  currency: 'USD',
  stake: money(stake),
  settled: false,
  bets: new Map(bets.map(([i, type, a]) => [i, { bet_type: type, bet_amount: money(a) }])),
});
const view = (v: Partial<View> = {}): View => ({
  player: alice,
  roundSettled: false,
  roundForgotten: false,
  transactionForgotten: false,
  ...v,
});
const base = { transaction_id: 't1', timestamp: 1763769612, feedback_data: 'fb', user_id: 'alice' };
const login = { ...base, event_type: 'login' } as const;
const bet = (total: number, bets: [string, string, number][], currency = 'USD'): CallbackRequest =>
  ({
    ...base,
    event_type: 'bet' as const,
    data: {
      currency,
      game_type: 'BAC',
      table_no: 'T',
      game_no: 'g1',
      total_bet_amount: total,
      bets: bets.map(([bet_index, bet_type, bet_amount]) => ({ bet_index, bet_type, bet_amount })),
    },
  }) as CallbackRequest;
const result = (total: number, winloss: number, results: [string, string, number, number][]): CallbackRequest =>
  ({
    ...base,
    event_type: 'bet_result' as const,
    data: {
      currency: 'USD',
      game_type: 'BAC',
      table_no: 'T',
      game_no: 'g1',
      total_bet_amount: total,
      total_winloss: winloss,
      result: 'P',
      result_detail: '{"pscore":8,"bscore":3,"pcards":["H8"],"bcards":["D2"]}',
      bet_results: results.map(([bet_index, bet_type, bet_amount, wl]) => ({ bet_index, bet_type, bet_amount, winloss: wl })),
    },
  }) as CallbackRequest;

/** The transaction record of login's transaction_id, with the fingerprint it was recorded with. */
const known = (fingerprint: string): View['transaction'] => ({ transaction_id: 't1', user_id: 'alice', event_type: 'login', fingerprint });
/** The whole sha256 (base64url) of login's canonical JSON without its timestamp, as the first version recorded it. */
const LEGACY_LOGIN = 'eJgWeozdtPeVsCovt6dsxLaFbT650e7aWHGpghmB4Bc';

interface Case {
  name: string;
  view: View;
  req: CallbackRequest;
  code: string;
  balance?: string;
  findings?: string[];
  ops?: string[];
}
const cases: Case[] = [
  {
    name: 'login of a known player: R0, nothing changes but the transaction',
    view: view(),
    req: login,
    code: 'R0',
    balance: '100',
    ops: ['txn'],
  },
  {
    name: 'login of a new player: created with the defaults',
    view: view({ player: undefined }),
    req: login,
    code: 'R0',
    balance: '1000',
    ops: ['player', 'txn'],
  },
  {
    name: 'bet: debited, bets added to the round',
    view: view(),
    req: bet(30, [
      ['1', 'P', 10],
      ['2', 'B', 20],
    ]),
    code: 'R0',
    balance: '70',
    ops: ['player', 'bets', 'txn'],
  },
  {
    name: 'bet: 0.1 + 0.2 is exactly 0.3',
    view: view(),
    req: bet(0.3, [
      ['1', 'P', 0.1],
      ['2', 'B', 0.2],
    ]),
    code: 'R0',
    balance: '99.7',
  },
  {
    name: 'bet over the balance: R4, nothing changes',
    view: view(),
    req: bet(100.01, [['1', 'P', 100.01]]),
    code: 'R4',
    balance: '100',
    ops: [],
  },
  { name: 'bet total != sum', view: view(), req: bet(30, [['1', 'P', 10]]), code: 'R3', findings: ['TOTAL_MISMATCH'], ops: [] },
  { name: 'bet in another currency', view: view(), req: bet(10, [['1', 'P', 10]], 'EUR'), code: 'R3', findings: ['CURRENCY_MISMATCH'] },
  {
    name: 'bet with 3 fraction digits',
    view: view(),
    req: bet(0.001, [['1', 'P', 0.001]]),
    code: 'R3',
    findings: ['AMOUNT_SCALE', 'AMOUNT_SCALE'],
  },
  {
    name: 'bet on a settled round',
    view: view({ roundSettled: true }),
    req: bet(10, [['1', 'P', 10]]),
    code: 'R3',
    findings: ['ROUND_SETTLED'],
  },
  {
    name: 'bet repeating a bet_index of the round',
    view: view({ round: openRound(10, [['1', 'P', 10]]) }),
    req: bet(10, [['1', 'P', 10]]),
    code: 'R3',
    findings: ['BET_INDEX_REPEATED'],
  },
  {
    name: 'bet of 1e40: too large, not short of balance',
    view: view(),
    req: bet(1e40, [['1', 'P', 1e40]]),
    code: 'R3',
    findings: ['AMOUNT_TOO_LARGE', 'AMOUNT_TOO_LARGE'],
  },
  {
    name: 'win: stake back plus net win',
    view: view({ round: openRound(10, [['1', 'P', 10]]) }),
    req: result(10, 10, [['1', 'P', 10, 10]]),
    code: 'R0',
    balance: '120',
    ops: ['player', 'round', 'txn'],
  },
  {
    name: 'full loss credits 0',
    view: view({ round: openRound(10, [['1', 'P', 10]]) }),
    req: result(10, -10, [['1', 'P', 10, -10]]),
    code: 'R0',
    balance: '100',
  },
  {
    name: 'settlement of an unknown round',
    view: view(),
    req: result(10, 10, [['1', 'P', 10, 10]]),
    code: 'R3',
    findings: ['ROUND_UNKNOWN'],
  },
  {
    name: 'settlement disagreeing with the stake',
    view: view({ round: openRound(20, [['1', 'P', 20]]) }),
    req: result(10, 10, [['1', 'P', 10, 10]]),
    code: 'R3',
    findings: ['STAKE_MISMATCH', 'BET_MISMATCH'],
  },
  {
    name: 'a win past the bound is refused',
    view: view({ player: { ...alice, balance: money('9999999999990') }, round: openRound(10, [['1', 'P', 10]]) }),
    req: result(10, 20, [['1', 'P', 10, 20]]),
    code: 'R3',
    findings: ['AMOUNT_TOO_LARGE'],
  },
  {
    name: 'same transaction, same body: replayed',
    view: view({ transaction: { transaction_id: 't1', user_id: 'alice', event_type: 'login', fingerprint: fingerprintOf(login) } }),
    req: { ...login, timestamp: 1 },
    code: 'R0',
    balance: '100',
    findings: ['TRANSACTION_REPLAYED'],
    ops: [],
  },
  {
    name: 'same transaction, other body: R3',
    view: view({ transaction: { transaction_id: 't1', user_id: 'alice', event_type: 'login', fingerprint: 'x' } }),
    req: login,
    code: 'R3',
    findings: ['TRANSACTION_REUSED'],
  },
  {
    name: 'same transaction, a record of another body in the current format: R3',
    view: view({ transaction: known(fingerprintOf({ ...login, feedback_data: 'other' })) }),
    req: login,
    code: 'R3',
    findings: ['TRANSACTION_REUSED'],
    ops: [],
  },
  // Records an older wallet-sim wrote (a file store's snapshot or log, Redis) hold the sha256 of the
  // canonical JSON: the first version its 43 characters, later ones the first 16. A retry after an
  // upgrade still replays; another body is still refused.
  ...[
    ['16', LEGACY_LOGIN.slice(0, 16)],
    ['43', LEGACY_LOGIN],
  ].flatMap(([length, fingerprint]): Case[] => [
    {
      name: `same transaction, same body, a record of an older version (${length}-character sha256): replayed`,
      view: view({ transaction: known(fingerprint!) }),
      req: { ...login, timestamp: 1 },
      code: 'R0',
      balance: '100',
      findings: ['TRANSACTION_REPLAYED'],
      ops: [],
    },
    {
      name: `same transaction, other body, a record of an older version (${length}-character sha256): R3`,
      view: view({ transaction: known(fingerprint!) }),
      req: { ...login, feedback_data: 'other' },
      code: 'R3',
      findings: ['TRANSACTION_REUSED'],
      ops: [],
    },
  ]),
  {
    name: 'same transaction, a record with an empty fingerprint (a damaged record): R3, never a replay of any body',
    view: view({ transaction: known('') }),
    req: login,
    code: 'R3',
    findings: ['TRANSACTION_REUSED'],
    ops: [],
  },
  {
    name: 'a forgotten transaction is never applied again',
    view: view({ transactionForgotten: true }),
    req: bet(10, [['1', 'P', 10]]),
    code: 'R3',
    findings: ['TRANSACTION_EXPIRED'],
    ops: [],
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const d = decide(c.view, c.req, config);
    t.equal(d.code, c.code);
    if (c.balance !== undefined) t.equal(d.balance?.toFixed(), c.balance);
    if (c.findings)
      t.same(
        d.findings.map((f) => f.code),
        c.findings,
      );
    if (c.ops)
      t.same(
        d.changes.map((ch) => ch.op),
        c.ops,
      );
  });
}

t.test('auto_create_players false: an unknown player is R3 PLAYER_UNKNOWN', async (t) => {
  const d = decide(view({ player: undefined }), login, { ...config, autoCreatePlayers: false });
  t.equal(d.code, 'R3');
  t.same(
    d.findings.map((f) => f.code),
    ['PLAYER_UNKNOWN'],
  );
  t.same(d.changes, []);
});
