// docs/design.md "Wallet rules", one block per rule, through the HTTP face (app.inject).
import t, { type Test } from 'tap';
import { eventually } from './helpers/spawn-cli.js';
import type { Scenario } from '../src/protocol/types.generated.js';
import {
  balanceOf,
  bet,
  buildTestApp,
  CREDENTIALS,
  DETAIL,
  example,
  HEADERS,
  journal,
  login,
  now,
  result,
  send,
  snapshot,
  type Sent,
  type TestApp,
} from './helpers/app.js';

/** A fresh app for one (sub)test, closed at its end. */
async function fresh(tt: Test, scenario: Partial<Scenario> = {}): Promise<TestApp> {
  const built = await buildTestApp(scenario);
  tt.teardown(() => built.app.close());
  return built;
}

/** The reply's rule-independent contract: HTTP 200, JSON, echoes, integer timestamp near now. */
function assertReply(tt: Test, res: Sent, code: string, request: { event_type?: unknown; user_id?: unknown }) {
  tt.equal(res.status, 200, 'HTTP 200');
  tt.match(res.headers['content-type'], /^application\/json(;|$)/, 'JSON reply');
  tt.equal(res.body.code, code, `code ${code}`);
  tt.equal(res.body.event_type, request.event_type, 'event_type echoed');
  tt.equal(res.body.user_id, request.user_id, 'user_id echoed');
  tt.ok(Number.isInteger(res.body.timestamp), 'reply timestamp is an integer');
  tt.ok(Math.abs(res.body.timestamp - now()) <= 5, 'reply timestamp is now, in seconds');
  if (code === 'R0') tt.notOk('x-wallet-sim-reason' in res.headers, 'no reason header on R0');
  else tt.match(res.headers['x-wallet-sim-reason'], new RegExp(`^${code}`), 'reason header names the code');
}

/** The findings recorded in the journal for one transaction. */
async function findingsOf(app: TestApp['app'], transactionId: string): Promise<string[]> {
  const entries = await journal(app, { transaction_id: transactionId });
  return entries.at(-1)!.findings.map((f: { code: string }) => f.code);
}

const GAME = 'BAC07-1';
/** The settlement of the two bets the table's round holds (P wins 10000, PP loses 5000). */
const SETTLEMENT: [string, string, number, number][] = [
  ['1', 'P', 10000, 10000],
  ['2', 'PP', 5000, -5000],
];
/** The example's bet: 10,000 on P and 5,000 on PP (KRW, player-1). */
const stake = () =>
  bet('player-1', GAME, [
    ['1', 'P', 10000],
    ['2', 'PP', 5000],
  ]);
/** A correct settlement of `stake`: P wins +10,000, PP loses −5,000. */
const settle = () => result('player-1', GAME, SETTLEMENT);

t.test('login: R0 with the balance', async (t) => {
  const { app } = await fresh(t);
  for (const [user, balance] of [
    ['player-1', 1000000],
    ['usd', 100],
  ] as const) {
    const req = login(user);
    const res = await send(app, req);
    assertReply(t, res, 'R0', req);
    t.equal(res.body.latest_balance, balance, `${user}'s balance`);
  }
});

t.test('R2: wrong or missing credentials on every event; nothing changes, no latest_balance', async (t) => {
  const credentialCases: [string, Record<string, string>][] = [
    ['wrong Api-Key', { ...HEADERS, 'api-key': 'nope' }],
    ['wrong Api-Id', { ...HEADERS, 'api-id': 'nope' }],
    ['Api-Key of another case', { ...HEADERS, 'api-key': 'SANDBOX-KEY' }],
    ['missing Api-Key', { 'content-type': 'application/json', 'api-id': 'sandbox', 'callback-url': 'http://provider.test/callback' }],
    ['missing Api-Id', { 'content-type': 'application/json', 'api-key': 'sandbox-key', 'callback-url': 'http://provider.test/callback' }],
    ['no credentials', { 'content-type': 'application/json', 'callback-url': 'http://provider.test/callback' }],
    ['empty credentials', { ...HEADERS, 'api-id': '', 'api-key': '' }],
  ];
  const events: [string, () => Record<string, any>][] = [
    ['login', () => login('player-1')],
    ['login of an unknown player', () => login('stranger')],
    ['bet', () => bet('player-1', 'G-new', [['1', 'P', 100]])],
    ['bet_result', () => settle()],
  ];
  for (const [credName, headers] of credentialCases) {
    for (const [eventName, build] of events) {
      t.test(`${credName}, ${eventName}`, async (t) => {
        const { app, sim } = await fresh(t);
        t.equal((await send(app, stake())).body.code, 'R0', 'setup: an open round');
        const before = snapshot(sim);
        const req = build();
        const res = await send(app, req, headers);
        assertReply(t, res, 'R2', req);
        t.notOk('latest_balance' in res.body, 'no latest_balance to an unauthenticated caller');
        t.equal(snapshot(sim), before, 'nothing changed');
        t.equal(sim.player('stranger'), undefined, 'no player created');
        t.equal(res.headers['api-key'], headers['api-key'] ?? '', 'Api-Key echoes what the caller sent');
        const codes = await findingsOf(app, req.transaction_id);
        t.ok(codes.includes('CREDENTIALS_WRONG') || codes.includes('CREDENTIALS_MISSING'), 'the journal names the credential problem');
      });
    }
  }
});

t.test('the worked example round: 1,000,000 − 15,000 + 20,000 = 1,005,000', async (t) => {
  const { app, sim } = await fresh(t);
  const steps: [string, number][] = [
    ['login.request.json', 1000000],
    ['bet.request.json', 985000],
    ['bet_result.request.json', 1005000],
  ];
  for (const [file, balance] of steps) {
    const req = example(file);
    const res = await send(app, req);
    assertReply(t, res, 'R0', req);
    t.equal(res.body.latest_balance, balance, `${req.event_type}: latest_balance ${balance}`);
    t.match(res.raw, `"latest_balance":${balance}}`, 'exact integer text');
    t.equal(balanceOf(sim, 'player-1'), String(balance), 'the wallet holds it');
  }
  t.same(
    Object.keys(example('reply.R0.json')).sort(),
    ['code', 'event_type', 'latest_balance', 'timestamp', 'user_id'],
    'the example reply has the same fields',
  );
});

t.test('money is exact: USD 1 − 0.1 − 0.2 = 0.7, no float drift', async (t) => {
  const { app, sim } = await fresh(t, { players: [{ user_id: 'cents', balance: 1, currency: 'USD' }] });
  const r1 = await send(app, bet('cents', 'g1', [['1', 'P', 0.1]], { currency: 'USD' }));
  t.equal(r1.body.latest_balance, 0.9);
  const r2 = await send(app, bet('cents', 'g2', [['1', 'P', 0.2]], { currency: 'USD' }));
  t.equal(r2.body.code, 'R0');
  t.match(r2.raw, '"latest_balance":0.7}', 'the reply text says 0.7, not 0.7000000000000001');
  t.equal(r2.body.latest_balance, 0.7);
  t.equal(balanceOf(sim, 'cents'), '0.7', 'held as exactly 0.7');
  // A settlement of mixed tenths: stake 0.1 back plus a 0.2 win.
  const r3 = await send(app, result('cents', 'g1', [['1', 'P', 0.1, 0.2]], { currency: 'USD' }));
  t.match(r3.raw, '"latest_balance":1}', '0.7 + 0.1 + 0.2 = 1 exactly');
  // Many small debits still add up exactly: 0.01 × 30 from 1.
  for (let i = 0; i < 30; i++) await send(app, bet('cents', `c${i}`, [['1', 'P', 0.01]], { currency: 'USD' }));
  t.equal(balanceOf(sim, 'cents'), '0.7', '1 − 30 × 0.01 = 0.7');
});

t.test('scale: more fraction digits than the currency allows → R3', async (t) => {
  const scenario: Partial<Scenario> = {
    currencies: { USD: 2, KRW: 0, BTC: 8 },
    players: [
      { user_id: 'usd', balance: 100, currency: 'USD' },
      { user_id: 'krw', balance: 100000, currency: 'KRW' },
      { user_id: 'btc', balance: 1, currency: 'BTC' },
      { user_id: 'xyz', balance: 100, currency: 'XYZ' },
    ],
  };
  const cases: [string, string, number, string][] = [
    ['usd', 'USD', 10.001, 'R3'],
    ['usd', 'USD', 10.01, 'R0'],
    ['usd', 'USD', 10.1, 'R0'],
    ['krw', 'KRW', 1.5, 'R3'],
    ['krw', 'KRW', 0.1, 'R3'],
    ['krw', 'KRW', 15000, 'R0'],
    ['btc', 'BTC', 0.00000001, 'R0'],
    ['btc', 'BTC', 0.000000001, 'R3'],
    ['btc', 'BTC', 0.12345678, 'R0'],
    ['xyz', 'XYZ', 0.01, 'R0'], // an unlisted currency has scale 2
    ['xyz', 'XYZ', 0.001, 'R3'],
  ];
  for (const [user, currency, amount, code] of cases) {
    t.test(`${currency} ${amount} → ${code}`, async (t) => {
      const { app, sim } = await fresh(t, scenario);
      const before = snapshot(sim);
      const start = sim.player(user)!.balance;
      const req = bet(user, 'g', [['1', 'P', amount]], { currency });
      const res = await send(app, req);
      assertReply(t, res, code, req);
      if (code === 'R0') t.equal(balanceOf(sim, user), start.minus(amount).toFixed(), 'debited exactly');
      else {
        t.equal(snapshot(sim), before, 'nothing changed');
        t.ok((await findingsOf(app, req.transaction_id)).includes('AMOUNT_SCALE'), 'AMOUNT_SCALE finding');
      }
    });
  }
  t.test('scale applies to bet_result amounts too, and the round stays open', async (t) => {
    const { app, sim } = await fresh(t, scenario);
    t.equal((await send(app, bet('krw', 'g', [['1', 'P', 100]], { currency: 'KRW' }))).body.code, 'R0');
    const bad = await send(app, result('krw', 'g', [['1', 'P', 100, 0.5]], { currency: 'KRW' }));
    t.equal(bad.body.code, 'R3');
    t.equal(balanceOf(sim, 'krw'), '99900');
    const good = await send(app, result('krw', 'g', [['1', 'P', 100, 1]], { currency: 'KRW' }));
    t.equal(good.body.code, 'R0');
    t.equal(good.body.latest_balance, 100001);
  });
});

t.test('amounts must be > 0', async (t) => {
  const cases: [string, object][] = [
    ['bet_amount 0', bet('usd', 'g', [['1', 'P', 0]], { currency: 'USD' })],
    ['bet_amount −5', bet('usd', 'g', [['1', 'P', -5]], { currency: 'USD', total: 5 })],
    ['total 0 and bet_amount 0', bet('usd', 'g', [['1', 'P', 0]], { currency: 'USD', total: 0 })],
    ['total −5', bet('usd', 'g', [['1', 'P', -5]], { currency: 'USD' })],
    [
      'one of two bets negative, total positive',
      bet(
        'usd',
        'g',
        [
          ['1', 'P', 10],
          ['2', 'B', -5],
        ],
        { currency: 'USD' },
      ),
    ],
  ];
  for (const [name, req] of cases) {
    t.test(name, async (t) => {
      const { app, sim } = await fresh(t);
      const before = snapshot(sim);
      const res = await send(app, req);
      assertReply(t, res, 'R3', req);
      t.equal(balanceOf(sim, 'usd'), '100', 'nothing debited');
      t.equal(snapshot(sim), before, 'nothing changed');
    });
  }
  t.test('a bet_result with bet_amount 0 is R3 too', async (t) => {
    const { app, sim } = await fresh(t);
    await send(app, stake());
    const res = await send(
      app,
      result(
        'player-1',
        GAME,
        [
          ['1', 'P', 0, 0],
          ['2', 'PP', 5000, -5000],
        ],
        { total: 15000 },
      ),
    );
    t.equal(res.body.code, 'R3');
    t.equal(balanceOf(sim, 'player-1'), '985000');
  });
});

t.test('bet: R3 cases change nothing', async (t) => {
  const cases: { name: string; setup?: object[]; req: () => Record<string, any>; finding: string }[] = [
    {
      name: 'total_bet_amount ≠ Σ bet_amount',
      req: () =>
        bet(
          'player-1',
          GAME,
          [
            ['1', 'P', 10000],
            ['2', 'PP', 5000],
          ],
          { total: 14000 },
        ),
      finding: 'TOTAL_MISMATCH',
    },
    { name: 'empty bets', req: () => ({ ...bet('player-1', GAME, [], { total: 100 }) }), finding: 'SCHEMA' },
    {
      name: 'bet_index repeated within the request',
      req: () =>
        bet('player-1', GAME, [
          ['1', 'P', 100],
          ['1', 'B', 100],
        ]),
      finding: 'BET_INDEX_REPEATED',
    },
    {
      name: 'bet_index repeated across bets of the same open round',
      setup: [bet('player-1', GAME, [['1', 'P', 100]])],
      req: () => bet('player-1', GAME, [['1', 'B', 200]]),
      finding: 'BET_INDEX_REPEATED',
    },
    {
      name: "currency differs from the player's",
      req: () => bet('player-1', GAME, [['1', 'P', 100]], { currency: 'USD' }),
      finding: 'CURRENCY_MISMATCH',
    },
    {
      name: 'bet on a settled round',
      setup: [bet('player-1', GAME, [['1', 'P', 100]]), result('player-1', GAME, [['1', 'P', 100, 100]])],
      req: () => bet('player-1', GAME, [['2', 'B', 100]]),
      finding: 'ROUND_SETTLED',
    },
  ];
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const { app, sim } = await fresh(t);
      for (const s of c.setup ?? []) t.equal((await send(app, s)).body.code, 'R0', 'setup');
      const before = snapshot(sim);
      const balance = balanceOf(sim, 'player-1');
      const req = c.req();
      const res = await send(app, req);
      assertReply(t, res, 'R3', req);
      t.equal(balanceOf(sim, 'player-1'), balance, 'nothing debited');
      t.equal(snapshot(sim), before, 'nothing changed');
      t.ok((await findingsOf(app, req.transaction_id)).includes(c.finding), `${c.finding} in the journal`);
      const entry = (await journal(app, { transaction_id: req.transaction_id })).at(-1);
      t.equal(entry.code, 'R3');
      t.equal(entry.reason, res.headers['x-wallet-sim-reason'], 'the journal keeps the reason');
    });
  }
});

t.test('R4: balance short → latest_balance, nothing debited', async (t) => {
  const { app, sim } = await fresh(t);
  const before = snapshot(sim);
  const req = bet(
    'usd',
    'g',
    [
      ['1', 'P', 60],
      ['2', 'B', 40.01],
    ],
    { currency: 'USD' },
  );
  const res = await send(app, req);
  assertReply(t, res, 'R4', req);
  t.equal(res.body.latest_balance, 100, 'R4 carries the balance');
  t.equal(snapshot(sim), before, 'nothing debited, no round opened');
  t.equal(
    (
      await send(
        app,
        result(
          'usd',
          'g',
          [
            ['1', 'P', 60, 0],
            ['2', 'B', 40.01, 0],
          ],
          { currency: 'USD' },
        ),
      )
    ).body.code,
    'R3',
    'no round to settle after an R4',
  );
  const exact = await send(
    app,
    bet(
      'usd',
      'g',
      [
        ['1', 'P', 60],
        ['2', 'B', 40],
      ],
      { currency: 'USD' },
    ),
  );
  t.equal(exact.body.code, 'R0', 'a bet of exactly the balance is fine');
  t.equal(exact.body.latest_balance, 0);
  const broke = await send(app, bet('usd', 'g2', [['1', 'P', 0.01]], { currency: 'USD' }));
  t.equal(broke.body.code, 'R4');
  t.equal(broke.body.latest_balance, 0);
  t.equal(balanceOf(sim, 'usd'), '0', 'never negative');

  t.test('an unknown player (auto-created) gets R4 with the default balance', async (t) => {
    const { app, sim } = await fresh(t);
    const req = bet('newcomer', 'g', [['1', 'P', 1000.01]], { currency: 'USD' });
    const res = await send(app, req);
    assertReply(t, res, 'R4', req);
    t.equal(res.body.latest_balance, 1000, 'the default balance');
    t.match(res.headers['x-wallet-sim-reason'], 'balance 1000 is less than', 'the reason names the balance');
    t.equal(sim.player('newcomer'), undefined, 'nothing created by a rejected bet');
  });
});

t.test('more bets on an open round add to the stake', async (t) => {
  const { app, sim } = await fresh(t);
  t.equal((await send(app, bet('player-1', GAME, [['1', 'P', 10000]]))).body.latest_balance, 990000);
  t.equal((await send(app, bet('player-1', GAME, [['2', 'PP', 5000]]))).body.latest_balance, 985000);
  t.equal(sim.state.rounds.size, 1, 'one round');
  const partial = await send(app, result('player-1', GAME, [['1', 'P', 10000, 10000]]));
  t.equal(partial.body.code, 'R3', 'settling only the first bet disagrees with the stake of 15,000');
  const res = await send(app, settle());
  t.equal(res.body.code, 'R0');
  t.equal(res.body.latest_balance, 1005000);
});

t.test('bet_result: R3 cases leave the round open; a correct settlement afterwards works', async (t) => {
  const cases: { name: string; req: () => Record<string, any>; finding: string }[] = [
    {
      name: 'no open round with that game_no',
      req: () => result('player-1', 'other-game', SETTLEMENT),
      finding: 'ROUND_UNKNOWN',
    },
    {
      name: "no open round for that player (another player's game)",
      req: () => ({ ...settle(), user_id: 'usd' }),
      finding: 'ROUND_UNKNOWN',
    },
    {
      name: 'total_winloss ≠ Σ winloss',
      req: () => result('player-1', GAME, SETTLEMENT, { winloss: 10000 }),
      finding: 'TOTAL_MISMATCH',
    },
    {
      name: "total_bet_amount ≠ the round's stake",
      req: () => result('player-1', GAME, SETTLEMENT, { total: 20000 }),
      finding: 'STAKE_MISMATCH',
    },
    {
      name: 'a bet_index never bet',
      req: () =>
        result('player-1', GAME, [
          ['1', 'P', 10000, 10000],
          ['3', 'PP', 5000, -5000],
        ]),
      finding: 'BET_INDEX_UNKNOWN',
    },
    {
      name: 'winloss < −bet_amount',
      req: () =>
        result('player-1', GAME, [
          ['1', 'P', 10000, 10000],
          ['2', 'PP', 5000, -5001],
        ]),
      finding: 'WINLOSS_BELOW_STAKE',
    },
    {
      name: 'result_detail is not JSON',
      req: () => result('player-1', GAME, SETTLEMENT, { detail: '{pscore: 8' }),
      finding: 'RESULT_DETAIL_NOT_JSON',
    },
    {
      name: 'result_detail is a JSON array',
      req: () => result('player-1', GAME, SETTLEMENT, { detail: '[8,3]' }),
      finding: 'RESULT_DETAIL_NOT_JSON',
    },
    {
      name: 'result_detail is a JSON number',
      req: () => result('player-1', GAME, SETTLEMENT, { detail: '42' }),
      finding: 'RESULT_DETAIL_NOT_JSON',
    },
    {
      name: 'result_detail is JSON null',
      req: () => result('player-1', GAME, SETTLEMENT, { detail: 'null' }),
      finding: 'RESULT_DETAIL_NOT_JSON',
    },
    {
      name: 'result_detail is empty',
      req: () => result('player-1', GAME, SETTLEMENT, { detail: '' }),
      finding: 'RESULT_DETAIL_NOT_JSON',
    },
    {
      name: 'currency differs',
      req: () => result('player-1', GAME, SETTLEMENT, { currency: 'USD' }),
      finding: 'CURRENCY_MISMATCH',
    },
    {
      name: 'bet_amount differs from the bet placed',
      req: () =>
        result('player-1', GAME, [
          ['1', 'P', 9000, 10000],
          ['2', 'PP', 6000, -5000],
        ]),
      finding: 'BET_MISMATCH',
    },
    {
      name: 'bet_type differs from the bet placed',
      req: () =>
        result('player-1', GAME, [
          ['1', 'B', 10000, 10000],
          ['2', 'PP', 5000, -5000],
        ]),
      finding: 'BET_MISMATCH',
    },
    {
      name: 'a bet_index twice in bet_results',
      req: () =>
        result('player-1', GAME, [
          ['1', 'P', 10000, 10000],
          ['1', 'P', 5000, -5000],
        ]),
      finding: 'BET_INDEX_REPEATED',
    },
    {
      name: 'a bet of the round left out',
      req: () => result('player-1', GAME, [['1', 'P', 10000, 10000]], { total: 15000 }),
      finding: 'TOTAL_MISMATCH',
    },
    { name: 'empty bet_results', req: () => result('player-1', GAME, [], { total: 15000, winloss: 0 }), finding: 'SCHEMA' },
  ];
  for (const c of cases) {
    t.test(c.name, async (t) => {
      const { app, sim } = await fresh(t);
      t.equal((await send(app, stake())).body.code, 'R0', 'setup: stake 15,000');
      const before = snapshot(sim);
      const req = c.req();
      const res = await send(app, req);
      assertReply(t, res, 'R3', req);
      t.equal(snapshot(sim), before, 'nothing credited, round still open');
      t.ok((await findingsOf(app, req.transaction_id)).includes(c.finding), `${c.finding} in the journal`);
      const ok = await send(app, settle());
      t.equal(ok.body.code, 'R0', 'the round is still open: a correct settlement works');
      t.equal(ok.body.latest_balance, 1005000);
    });
  }
});

t.test('settlement credits: full loss 0, push the stake, win stake + net', async (t) => {
  const cases: [string, [string, string, number, number][], number][] = [
    [
      'full loss credits 0',
      [
        ['1', 'P', 10000, -10000],
        ['2', 'PP', 5000, -5000],
      ],
      985000,
    ],
    [
      'push credits the stake',
      [
        ['1', 'P', 10000, 0],
        ['2', 'PP', 5000, 0],
      ],
      1000000,
    ],
    ['the example: +10,000 −5,000', SETTLEMENT, 1005000],
    [
      'big win',
      [
        ['1', 'P', 10000, 110000],
        ['2', 'PP', 5000, 55000],
      ],
      1165000,
    ],
  ];
  for (const [name, results, balance] of cases) {
    t.test(name, async (t) => {
      const { app, sim } = await fresh(t);
      await send(app, stake());
      const res = await send(app, result('player-1', GAME, results));
      t.equal(res.body.code, 'R0');
      t.equal(res.body.latest_balance, balance);
      t.equal(balanceOf(sim, 'player-1'), String(balance));
    });
  }
});

t.test('a settled round never settles again', async (t) => {
  const { app, sim } = await fresh(t);
  await send(app, stake());
  t.equal((await send(app, settle())).body.latest_balance, 1005000);
  const before = snapshot(sim);
  for (const again of [
    settle(),
    result('player-1', GAME, [
      ['1', 'P', 10000, -10000],
      ['2', 'PP', 5000, -5000],
    ]),
  ]) {
    const res = await send(app, again);
    assertReply(t, res, 'R3', again);
    t.equal(snapshot(sim), before, 'no second credit');
    t.ok((await findingsOf(app, again.transaction_id)).includes('ROUND_SETTLED'));
  }
});

t.test('malformed baccarat keys and bad cards are warnings: R0, recorded as findings', async (t) => {
  const cases: [string, string, string][] = [
    ['empty object (another game type)', '{}', 'RESULT_DETAIL_INCOMPLETE'],
    ['pcards missing', JSON.stringify({ pscore: 8, bscore: 3, bcards: ['D2'] }), 'RESULT_DETAIL_INCOMPLETE'],
    ['pscore a string', JSON.stringify({ pscore: '8', bscore: 3, pcards: ['H8'], bcards: ['D2'] }), 'RESULT_DETAIL_INCOMPLETE'],
    ['rank 14', JSON.stringify({ pscore: 8, bscore: 3, pcards: ['H14'], bcards: ['D2'] }), 'CARD_MALFORMED'],
    ['rank 0', JSON.stringify({ pscore: 8, bscore: 3, pcards: ['H8'], bcards: ['D0'] }), 'CARD_MALFORMED'],
    ['suit X', JSON.stringify({ pscore: 8, bscore: 3, pcards: ['X8'], bcards: ['D2'] }), 'CARD_MALFORMED'],
    ['lower-case suit', JSON.stringify({ pscore: 8, bscore: 3, pcards: ['h8'], bcards: ['D2'] }), 'CARD_MALFORMED'],
    ['rank before suit', JSON.stringify({ pscore: 8, bscore: 3, pcards: ['8H'], bcards: ['D2'] }), 'CARD_MALFORMED'],
  ];
  for (const [name, detail, code] of cases) {
    t.test(name, async (t) => {
      const { app, sim } = await fresh(t);
      await send(app, stake());
      const req = result('player-1', GAME, SETTLEMENT, { detail });
      const res = await send(app, req);
      assertReply(t, res, 'R0', req);
      t.equal(res.body.latest_balance, 1005000, 'settled anyway');
      t.equal(balanceOf(sim, 'player-1'), '1005000');
      const entry = (await journal(app, { transaction_id: req.transaction_id })).at(-1);
      const f = entry.findings.find((x: { code: string }) => x.code === code);
      t.ok(f, `${code} recorded`);
      t.equal(f?.severity, 'warning');
      t.match(f?.pointer, /^\/data\/result_detail/, 'points into result_detail');
    });
  }
  t.test('the example detail has no findings', async (t) => {
    const { app } = await fresh(t);
    await send(app, stake());
    const req = settle();
    t.equal(req.data.result_detail, DETAIL);
    await send(app, req);
    t.same(await findingsOf(app, req.transaction_id), []);
  });
});

t.test('idempotency', async (t) => {
  t.test('same id + same body (other timestamp) replays R0 with the current balance, changes nothing', async (t) => {
    const { app, sim } = await fresh(t);
    const first = stake();
    t.equal((await send(app, first)).body.latest_balance, 985000);
    t.equal((await send(app, bet('player-1', 'G2', [['1', 'P', 1000]]))).body.latest_balance, 984000, 'another bet after it');
    const before = snapshot(sim);
    for (const retry of [first, { ...first, timestamp: first.timestamp + 7 }]) {
      const res = await send(app, retry);
      assertReply(t, res, 'R0', retry);
      t.equal(res.body.latest_balance, 984000, 'the current balance, not the one of the first reply');
      t.equal(snapshot(sim), before, 'no second debit');
    }
    const entries = await journal(app, { transaction_id: first.transaction_id });
    t.same(
      entries.map((e) => e.replayed),
      [false, true, true],
      'the journal marks the replays',
    );
    t.same(
      entries.map((e) => e.code),
      ['R0', 'R0', 'R0'],
    );
    t.ok(entries[1].findings.some((f: { code: string }) => f.code === 'TRANSACTION_REPLAYED'));
  });

  t.test('replays of a login and a bet_result change nothing either', async (t) => {
    const { app, sim } = await fresh(t);
    const l = login('player-1');
    await send(app, l);
    await send(app, stake());
    const s = settle();
    await send(app, s);
    const before = snapshot(sim);
    for (const retry of [l, s]) {
      const res = await send(app, { ...retry, timestamp: retry.timestamp + 1 });
      t.equal(res.body.code, 'R0');
      t.equal(res.body.latest_balance, 1005000);
    }
    t.equal(snapshot(sim), before, 'no second credit');
  });

  t.test('same id + different body → R3, nothing changes', async (t) => {
    const { app, sim } = await fresh(t);
    const first = stake();
    await send(app, first);
    const before = snapshot(sim);
    const variants: [string, Record<string, any>][] = [
      [
        'another amount',
        {
          ...bet('player-1', GAME, [
            ['1', 'P', 10000],
            ['2', 'PP', 6000],
          ]),
          transaction_id: first.transaction_id,
        },
      ],
      [
        'another game',
        {
          ...bet('player-1', 'G9', [
            ['1', 'P', 10000],
            ['2', 'PP', 5000],
          ]),
          transaction_id: first.transaction_id,
        },
      ],
      ['another feedback_data', { ...first, feedback_data: 'changed' }],
      ['another event', { ...login('player-1'), transaction_id: first.transaction_id }],
    ];
    for (const [name, req] of variants) {
      const res = await send(app, req);
      t.equal(res.body.code, 'R3', name);
      t.equal(snapshot(sim), before, `${name}: nothing changed`);
      t.ok((await findingsOf(app, first.transaction_id)).includes('TRANSACTION_REUSED'), `${name}: TRANSACTION_REUSED`);
    }
  });

  t.test('the transaction id is unique across players', async (t) => {
    const { app, sim } = await fresh(t);
    const first = bet('player-1', GAME, [['1', 'P', 100]]);
    await send(app, first);
    const before = snapshot(sim);
    const other = { ...bet('usd', GAME, [['1', 'P', 10]], { currency: 'USD' }), transaction_id: first.transaction_id };
    const res = await send(app, other);
    assertReply(t, res, 'R3', other);
    t.equal(balanceOf(sim, 'usd'), '100', "the other player's bet is not applied");
    t.equal(snapshot(sim), before);
  });

  t.test('a rejected transaction is evaluated afresh when retried', async (t) => {
    const { app, sim } = await fresh(t);
    // R4, then the balance is topped up: the same transaction now succeeds.
    const big = bet('usd', 'g', [['1', 'P', 150]], { currency: 'USD' });
    t.equal((await send(app, big)).body.code, 'R4');
    await sim.setPlayer('usd', sim.player('usd')!.balance.plus(100));
    const retried = await send(app, big);
    t.equal(retried.body.code, 'R0', 'R4 retried after a top-up → R0');
    t.equal(retried.body.latest_balance, 50);
    // R3 (no round yet), then the bet arrives: the same settlement now succeeds.
    const early = result('usd', 'g2', [['1', 'P', 10, 5]], { currency: 'USD' });
    t.equal((await send(app, early)).body.code, 'R3');
    await send(app, bet('usd', 'g2', [['1', 'P', 10]], { currency: 'USD' }));
    t.equal((await send(app, early)).body.latest_balance, 55, 'R3 retried once the round exists → R0');
    // R2, then the right credentials.
    const l = login('usd');
    t.equal((await send(app, l, { ...HEADERS, 'api-key': 'wrong' })).body.code, 'R2');
    t.equal((await send(app, l)).body.code, 'R0', 'R2 retried with the right key → R0');
    // A code forced by a rule is not recorded either.
    const forced = await fresh(t, { rules: [{ name: 'once', when: { event_type: 'bet' }, then: { code: 'R1' }, times: 1 }] });
    const b = bet('usd', 'g', [['1', 'P', 10]], { currency: 'USD' });
    t.equal((await send(forced.app, b)).body.code, 'R1');
    t.equal(balanceOf(forced.sim, 'usd'), '100', 'a forced code changes nothing');
    const again = await send(forced.app, b);
    t.equal(again.body.code, 'R0', 'retried once the rule is exhausted → applied');
    t.equal(again.body.latest_balance, 90);
    t.same(
      (await journal(forced.app, { transaction_id: b.transaction_id })).map((e) => e.replayed),
      [false, false],
      'applied, not replayed',
    );
  });
});

t.test('players', async (t) => {
  t.test('auto_create_players true: any event creates an unknown player with the defaults', async (t) => {
    const { app, sim } = await fresh(t, { defaults: { currency: 'USD', balance: 250.5, auto_create_players: true } });
    const l = await send(app, login('new-login'));
    t.equal(l.body.code, 'R0');
    t.equal(l.body.latest_balance, 250.5);
    t.same(
      { ...sim.player('new-login'), balance: balanceOf(sim, 'new-login') },
      { user_id: 'new-login', balance: '250.5', currency: 'USD' },
    );
    const b = await send(app, bet('new-bettor', 'g', [['1', 'P', 50]], { currency: 'USD' }));
    t.equal(b.body.code, 'R0');
    t.equal(b.body.latest_balance, 200.5, 'created with 250.5 and debited');
    const r = await send(app, result('new-settler', 'g', [['1', 'P', 50, 0]], { currency: 'USD' }));
    t.equal(r.body.code, 'R3', 'an unknown player has no open round to settle');
    t.equal(sim.player('new-settler'), undefined, 'a rejected callback creates nobody');
  });

  t.test('auto_create_players false: an unknown player → R3, nobody created', async (t) => {
    const { app, sim } = await fresh(t, { defaults: { currency: 'USD', balance: 1000, auto_create_players: false } });
    for (const req of [
      login('ghost'),
      bet('ghost', 'g', [['1', 'P', 5]], { currency: 'USD' }),
      result('ghost', 'g', [['1', 'P', 5, 5]], { currency: 'USD' }),
    ]) {
      const res = await send(app, req);
      assertReply(t, res, 'R3', req);
      t.notOk('latest_balance' in res.body, 'no balance for nobody');
      t.equal(sim.player('ghost'), undefined);
    }
    t.equal((await send(app, login('player-1'))).body.code, 'R0', 'listed players still work');
  });

  t.test('"__proto__", "constructor", "toString" … are ordinary players', async (t) => {
    const { app, sim } = await fresh(t);
    const odd = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__'];
    for (const id of odd) {
      const l = await send(app, login(id));
      assertReply(t, l, 'R0', { event_type: 'login', user_id: id });
      t.equal(l.body.latest_balance, 1000, `${id}: created with the default balance`);
      const b = await send(app, bet(id, 'g', [['1', 'P', 10]], { currency: 'USD' }));
      t.equal(b.body.latest_balance, 990, `${id}: debited`);
      const r = await send(app, result(id, 'g', [['1', 'P', 10, 10]], { currency: 'USD' }));
      t.equal(r.body.latest_balance, 1010, `${id}: settled`);
      t.equal(balanceOf(sim, id), '1010');
    }
    const probe = {} as Record<string, unknown>;
    for (const key of ['balance', 'currency', 'user_id', 'bets', 'stake', 'settled']) {
      t.equal(probe[key], undefined, `({}).${key} is undefined`);
      t.notOk(Object.prototype.hasOwnProperty.call(Object.prototype, key), `Object.prototype has no ${key}`);
    }
    t.equal(typeof {}.toString, 'function', 'toString untouched');
    t.equal(Object.getPrototypeOf({}), Object.prototype, 'prototype chain untouched');
    t.equal(sim.players().length, 2 + odd.length, 'each odd id is its own player');
  });
});

t.test('reply headers', async (t) => {
  t.test('Api-Id / Api-Key echo what the caller sent', async (t) => {
    const { app } = await fresh(t);
    const cases: [string, Record<string, string>, string, string, string][] = [
      ['authenticated', HEADERS, 'R0', 'sandbox', 'sandbox-key'],
      ['wrong key', { ...HEADERS, 'api-key': 'guess' }, 'R2', 'sandbox', 'guess'],
      ['wrong id, right key', { ...HEADERS, 'api-id': 'other' }, 'R2', 'other', 'sandbox-key'],
      ['no Api-Key: empty, never the configured one', { 'content-type': 'application/json', 'api-id': 'sandbox' }, 'R2', 'sandbox', ''],
      ['no credentials', { 'content-type': 'application/json' }, 'R2', '', ''],
    ];
    for (const [name, headers, code, id, key] of cases) {
      const res = await send(app, login('player-1'), headers);
      t.equal(res.body.code, code, name);
      t.equal(res.headers['api-id'], id, `${name}: Api-Id`);
      t.equal(res.headers['api-key'], key, `${name}: Api-Key`);
    }
  });

  t.test('reply_credentials sets fixed values on every reply', async (t) => {
    const { app } = await fresh(t, { reply_credentials: { api_id: 'wallet', api_key: 'wallet-key' } });
    for (const [headers, code] of [
      [HEADERS, 'R0'],
      [{ ...HEADERS, 'api-key': 'x' }, 'R2'],
    ] as const) {
      for (const req of [login('player-1'), bet('player-1', 'g', [['1', 'P', 1]])]) {
        const res = await send(app, req, headers);
        t.equal(res.body.code, code);
        t.equal(res.headers['api-id'], 'wallet');
        t.equal(res.headers['api-key'], 'wallet-key');
      }
    }
  });

  t.test('Callback-URL echoed on login and bet_result replies, not on bet', async (t) => {
    const { app } = await fresh(t);
    const url = 'https://provider.example/cb?x=1';
    const headers = { ...HEADERS, 'callback-url': url };
    const cases: [string, Record<string, any>, string][] = [
      ['login', login('player-1'), 'R0'],
      ['bet', stake(), 'R0'],
      ['bet_result', settle(), 'R0'],
      ['bet R3', bet('player-1', 'x', [['1', 'P', 1]], { total: 2 }), 'R3'],
      ['bet_result R3', result('player-1', 'nope', [['1', 'P', 1, 1]]), 'R3'],
      ['login R2', login('player-1'), 'R2'],
    ];
    for (const [name, req, code] of cases) {
      const res = await send(app, req, code === 'R2' ? { ...headers, 'api-key': 'bad' } : headers);
      t.equal(res.body.code, code, name);
      if (req.event_type === 'bet') t.notOk('callback-url' in res.headers, `${name}: no Callback-URL`);
      else t.equal(res.headers['callback-url'], url, `${name}: Callback-URL echoed`);
    }
  });

  t.test('a missing Callback-URL is a warning: R0, empty echo, a finding', async (t) => {
    const { app } = await fresh(t);
    const req = login('player-1');
    const res = await send(app, req, { 'content-type': 'application/json', ...CREDENTIALS });
    t.equal(res.body.code, 'R0');
    t.equal(res.headers['callback-url'], '');
    t.ok((await findingsOf(app, req.transaction_id)).includes('CALLBACK_URL_MISSING'));
  });

  t.test('X-Wallet-Sim-Reason on every non-R0 code, never on R0', async (t) => {
    const { app } = await fresh(t, { rules: [{ name: 'forced-r1', when: { user_id: 'r1' }, then: { code: 'R1' } }] });
    const placed = stake();
    const cases: [string, Record<string, any>, Record<string, string>, string, RegExp | undefined][] = [
      ['R0 login', login('player-1'), HEADERS, 'R0', undefined],
      ['R0 bet', placed, HEADERS, 'R0', undefined],
      ['R1 forced', login('r1'), HEADERS, 'R1', /forced by scenario rule "forced-r1"/],
      ['R2', login('player-1'), { ...HEADERS, 'api-key': 'bad' }, 'R2', /Api-Key does not match/],
      ['R3', bet('player-1', 'x', [['1', 'P', 1]], { total: 2 }), HEADERS, 'R3', /total_bet_amount 2 != sum of bets\[\]\.bet_amount 1/],
      ['R4', bet('usd', 'x', [['1', 'P', 1000]], { currency: 'USD' }), HEADERS, 'R4', /balance 100 is less than total_bet_amount 1000/],
    ];
    for (const [name, req, headers, code, reason] of cases) {
      const res = await send(app, req, headers);
      assertReply(t, res, code, req);
      if (reason) t.match(res.headers['x-wallet-sim-reason'], reason, `${name}: the reason says why`);
    }
    const replay = await send(app, placed);
    t.equal(replay.body.code, 'R0');
    t.equal(replay.headers['x-wallet-sim-reason'], undefined, 'a replay is R0: no reason');
  });
});

t.test("a round is settled in its own currency, even after the player's changed", async (t) => {
  const { app, sim } = await fresh(t);
  await send(app, stake());
  await sim.setPlayer('player-1', sim.player('player-1')!.balance, 'USD');
  const before = snapshot(sim);
  const usd = result('player-1', GAME, SETTLEMENT, { currency: 'USD' });
  const res = await send(app, usd);
  assertReply(t, res, 'R3', usd);
  t.match(res.headers['x-wallet-sim-reason'], "currency USD differs from round BAC07-1's KRW");
  t.equal(snapshot(sim), before, 'no credit in the wrong currency');
  const more = bet('player-1', GAME, [['3', 'B', 100]], { currency: 'USD' });
  t.equal((await send(app, more)).body.code, 'R3', 'nor more bets in another currency on the open round');
  await sim.setPlayer('player-1', sim.player('player-1')!.balance, 'KRW');
  t.equal((await send(app, settle())).body.latest_balance, 1005000, 'settled once the currencies agree');
});

t.test('idempotency ignores key order and whitespace: the same body replays', async (t) => {
  const { app, sim } = await fresh(t);
  const first = stake();
  await send(app, first);
  const before = snapshot(sim);
  const reorder = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(reorder)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, x]) => [k, reorder(x)]),
          )
        : v;
  const res = await send(app, JSON.stringify(reorder(first), null, 2));
  t.equal(res.body.code, 'R0');
  t.equal(res.body.latest_balance, 985000);
  t.equal(snapshot(sim), before, 'a replay, not a second debit');
  const reversedBets = { ...first, data: { ...first.data, bets: [...first.data.bets].reverse() } };
  t.equal((await send(app, reversedBets)).body.code, 'R3', 'another order of bets is another body');
});

t.test('timestamp defects are warnings: R0, with findings in the journal', async (t) => {
  const { app } = await fresh(t);
  const cases: [string, number, string, RegExp][] = [
    ['fractional seconds', now() + 0.5, 'TIMESTAMP_NOT_INTEGER', /not an integer/],
    ['milliseconds', Date.now(), 'TIMESTAMP_SKEWED', /milliseconds instead of seconds\?/],
    ['an hour behind', now() - 3600, 'TIMESTAMP_SKEWED', /36\d\d s behind the wallet clock \(allowed 300 s\)/],
  ];
  for (const [name, timestamp, code, message] of cases) {
    const req = { ...login('player-1'), timestamp };
    const res = await send(app, req);
    t.equal(res.body.code, 'R0', name);
    const f = (await journal(app, { transaction_id: req.transaction_id }))[0].findings.find((x: { code: string }) => x.code === code);
    t.match(f, { severity: 'warning', pointer: '/timestamp', message }, `${name}: ${code}`);
  }
});

/** A memory store whose writes fail with "disk full" while `failing` is set. */
function failingDisk() {
  const disk = {
    failing: false,
    store: {
      kind: 'memory',
      load: async () => [],
      commit: () => (disk.failing ? Promise.reject(new Error('disk full')) : Promise.resolve()),
      flush: () => Promise.resolve(),
      close: async () => {},
    },
  };
  return disk;
}

t.test('a store that cannot make a change durable: R1, no balance claimed', async (t) => {
  const disk = failingDisk();
  const { app } = await buildTestApp({}, { store: disk.store });
  t.teardown(() => app.close());
  disk.failing = true;
  const req = bet('player-1', GAME, [['1', 'P', 100]]);
  const res = await send(app, req);
  assertReply(t, res, 'R1', req);
  t.notOk('latest_balance' in res.body, 'no balance that is not durable');
  t.match(res.headers['x-wallet-sim-reason'], /^R1: the store failed \(disk full\); restart wallet-sim/);
  t.equal((await journal(app, { transaction_id: req.transaction_id }))[0].code, 'R1');

  // memory now holds a change the disk does not: nothing more is answered from it
  disk.failing = false;
  const retry = await send(app, req);
  t.equal(retry.body.code, 'R1', 'the retry is not replayed from the undurable change');
  t.equal((await send(app, login('player-1'))).body.code, 'R1', 'every later callback is refused');
  const health = await app.inject('/health');
  t.equal(health.statusCode, 503);
  t.match(health.json(), { status: 'store_failed', error: /disk full/ });
});

t.test('amounts beyond 15 significant digits, or not below 10^15 minor units, are R3: nothing debited', async (t) => {
  const cases: [string, number, 'R0' | 'R3', string?][] = [
    ['a float sum', 0.30000000000000004, 'R3', 'AMOUNT_INEXACT'],
    // eslint-disable-next-line no-loss-of-precision -- the point: more digits than a double keeps
    ['more digits than a double keeps', 12345678901234567891, 'R3', 'AMOUNT_TOO_LARGE'],
    ['15 digits', 1234567890123.45, 'R0'],
    ['a large round number', 1e12, 'R0'],
    ['one significant digit, far too large', 1e60, 'R3', 'AMOUNT_TOO_LARGE'],
    ['too large, not "not enough balance"', 1e40, 'R3', 'AMOUNT_TOO_LARGE'],
    ['exactly the bound (10^13 USD)', 1e13, 'R3', 'AMOUNT_TOO_LARGE'],
  ];
  for (const [name, amount, code, finding] of cases) {
    const { app, sim } = await buildTestApp({ players: [{ user_id: 'rich', balance: 9e12, currency: 'USD' }] });
    const req = bet('rich', GAME, [['1', 'P', amount]], { currency: 'USD', total: amount });
    const res = await send(app, req);
    t.equal(res.body.code, code, name);
    if (code === 'R3') {
      t.match(
        (await journal(app, { transaction_id: req.transaction_id }))[0].findings,
        [
          { code: finding, pointer: '/data/total_bet_amount' },
          { code: finding, pointer: '/data/bets/0/bet_amount' },
        ],
        `${name}: ${finding}`,
      );
      t.equal(balanceOf(sim, 'rich'), '9000000000000', `${name}: nothing debited`);
    }
    await app.close();
  }
});

t.test('round keys cannot collide: ids may contain any character, NUL included', async (t) => {
  const { app, sim } = await buildTestApp({
    players: [
      { user_id: 'a', balance: 100, currency: 'USD' },
      { user_id: 'a\u0000b', balance: 100, currency: 'USD' },
    ],
  });
  t.teardown(() => app.close());
  t.equal((await send(app, bet('a', 'b\u0000c', [['1', 'P', 10]], { currency: 'USD' }))).body.code, 'R0');
  const foreign = await send(app, result('a\u0000b', 'c', [['1', 'P', 10, 10]], { currency: 'USD' }));
  t.equal(foreign.body.code, 'R3', "another player cannot settle a's round");
  t.equal(balanceOf(sim, 'a\u0000b'), '100');
  t.equal((await send(app, result('a', 'b\u0000c', [['1', 'P', 10, 10]], { currency: 'USD' }))).body.code, 'R0', 'a settles its own round');
  t.equal(balanceOf(sim, 'a'), '110');
});

t.test('a refusal waits until the state it was decided on is durable, like an R0', async (t) => {
  let release!: () => void;
  const pending = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  let waits = 0; // commits and flushes that waited for the durable state
  const wait = () => {
    if (!held) return Promise.resolve();
    waits++;
    return pending;
  };
  const store = { kind: 'memory', load: async () => [], commit: wait, flush: wait, close: async () => {} };
  const { app } = await buildTestApp({}, { store });
  t.teardown(() => app.close());
  held = true;
  const first = send(app, bet('usd', GAME, [['1', 'P', 90]], { currency: 'USD' }));
  const second = send(app, bet('usd', 'G2', [['1', 'P', 20]], { currency: 'USD' }));
  let answered = false;
  void second.then(() => {
    answered = true;
  });
  // Both decided: the R0's commit and the R4's wait for the state it was decided on.
  t.ok(await eventually(async () => waits >= 2), 'both callbacks wait for the disk');
  await new Promise((r) => setImmediate(r));
  t.notOk(answered, 'the R4 (decided on the 90 not yet durable) is held back');
  release();
  t.equal((await first).body.code, 'R0');
  t.match((await second).body, { code: 'R4', latest_balance: 10 });
});

t.test('a failed admin write latches the store failure too', async (t) => {
  const disk = failingDisk();
  const { app } = await buildTestApp({}, { store: disk.store });
  t.teardown(() => app.close());
  disk.failing = true;
  const put = await app.inject({ method: 'PUT', url: '/admin/players/usd', payload: { balance: 5 } });
  t.equal(put.statusCode, 500);
  t.equal((await app.inject('/health')).statusCode, 503);
  disk.failing = false;
  t.equal((await send(app, login('usd'))).body.code, 'R1', 'callbacks refused: memory is ahead of the disk');
  for (const url of ['/admin/players', '/admin/players/usd']) {
    const res = await app.inject(url);
    t.equal(res.statusCode, 503, `${url}: no balance that may not be durable`);
    t.match(res.json(), { error: 'STORE_FAILED', message: /restart/ });
  }
});
