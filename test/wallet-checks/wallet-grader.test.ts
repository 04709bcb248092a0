// The wallet-side checks as tables (no HTTP): sequences of exchanges with an operator's wallet,
// correct ones passing and each defect failing exactly its check.
import t from 'tap';
import type { WalletAnswer, WalletCheckId, WalletExchange } from '../../src/grading/wallet/exchange.js';
import { DEFAULT_CONFIG } from '../../src/grading/wallet/grader-state.js';
import { WalletGrader } from '../../src/grading/wallet/wallet-grader.js';
import { again, bet, ex, failing, grade, KEY, login, newId, none, reply, settle, type Step, step } from './exchanges.js';

t.test('a correct wallet fails nothing, and exercises what it met', async (t) => {
  const l = login('p1');
  const b = bet('p1', 'b1', 10);
  const s = settle('p1', 's1', 10, 5.5);
  const b2 = bet('p1', 'b2', 200, 'g2');
  const r = grade([
    step(l, { balance: '100' }),
    step(b, { balance: '90' }),
    step(again(b), { balance: '90' }), // replay: the first reply's balance
    step(s, { balance: '105.5' }),
    step(again(b), { balance: '105.5' }), // replay later: the current balance, also correct
    step(b2, { code: 'R4', balance: '105.5' }),
    step(login('p1'), { balance: '105.5' }),
  ]);
  t.same(failing(r), []);
  t.equal(r.get('WALLET_IDEMPOTENT')!.exercised, 2);
  t.equal(r.get('WALLET_BALANCE_EXACT')!.exercised, 3); // bet, settlement, second login (the first had no balance before it)
  t.equal(r.get('WALLET_REFUSES_SHORT_BET')!.status, 'pass');
  t.equal(r.get('WALLET_ANSWERS_IN_TIME')!.exercised, 7);
  t.equal(r.get('WALLET_REFUSES_INVALID')!.status, 'not_exercised');
  t.ok(r.get('WALLET_REFUSES_INVALID')!.detail.length > 0, 'not exercised says what would exercise it');
  for (const c of r.values()) t.equal(c.side, 'wallet');
});

t.test("a replay answered with its first reply's balance, after other callbacks moved it, is no balance to follow", async (t) => {
  // The provider's resend of a transaction whose reply it lost, after a settlement moved the
  // balance: the wallet replays the first reply (90), which is allowed; the player's balance is
  // still 105.5, and the next callbacks are judged from that, not from the replay's.
  const rows: [string, (b: WalletExchange) => Step[], WalletCheckId[]][] = [
    ['a login next', () => [step(login('p1'), { balance: '105.5' })], []],
    ['a bet next', () => [step(bet('p1', `b${newId()}`, 5.5, 'g3'), { balance: '100' })], []],
    [
      "a bet next, debited from the replay's stale balance",
      () => [step(bet('p1', `b${newId()}`, 5.5, 'g3'), { balance: '84.5' })],
      ['WALLET_BALANCE_EXACT'],
    ],
    [
      'another replay, with the current balance',
      (b) => [step(again(b), { balance: '105.5' }), step(login('p1'), { balance: '105.5' })],
      [],
    ],
    ['a replay with neither balance', (b) => [step(again(b), { balance: '95' })], ['WALLET_IDEMPOTENT']],
  ];
  for (const [name, next, want] of rows) {
    const b = bet('p1', `b${newId()}`, 10);
    const r = grade([
      step(login('p1'), { balance: '100' }),
      step(b, { balance: '90' }),
      step(settle('p1', `s${newId()}`, 10, 5.5), { balance: '105.5' }),
      step(again(b), { balance: '90' }),
      ...next(b),
    ]);
    t.same(failing(r), want, name);
  }
});

t.test(
  'a settlement of a round the wallet acknowledged, refused: WALLET_ROUND_RULES; refusals a correct wallet may give pass',
  async (t) => {
    // After a login (100) and a bet of 10 answered R0 (90), its settlement (win 5.5) comes: `after` answers it.
    const rows: [string, (b: WalletExchange) => Step[], WalletCheckId[]][] = [
      ['refused R3', () => [step(settle('p', `s${newId()}`, 10, 5.5), { code: 'R3' })], ['WALLET_ROUND_RULES']],
      ['refused R4', () => [step(settle('p', `s${newId()}`, 10, -10), { code: 'R4', balance: '90' })], ['WALLET_ROUND_RULES']],
      ['applied', () => [step(settle('p', `s${newId()}`, 10, 5.5), { balance: '105.5' })], []],
      ['R1 (try again): not a refusal', () => [step(settle('p', `s${newId()}`, 10, 5.5), { code: 'R1' })], []],
      ["a stake other than the bets', refused R3", () => [step(settle('p', `s${newId()}`, 20, 5.5), { code: 'R3' })], []],
      [
        'a round never bet, refused R3 (it may have begun before the session)',
        () => [step(settle('p', `s${newId()}`, 10, 5.5, 'g9'), { code: 'R3' })],
        [],
      ],
      [
        'settled, then settled again under a new id, refused R3',
        () => [step(settle('p', `s${newId()}`, 10, 5.5), { balance: '105.5' }), step(settle('p', `s${newId()}`, 10, 5.5), { code: 'R3' })],
        [],
      ],
      ["a bet refused R3 (an operator's own limits)", () => [step(bet('p', `b${newId()}`, 5, 'g2'), { code: 'R3' })], []],
    ];
    for (const [name, after, want] of rows) {
      const b = bet('p', `b${newId()}`, 10);
      const r = grade([step(login('p'), { balance: '100' }), step(b, { balance: '90' }), ...after(b)]);
      t.same(failing(r), want, name);
      if (want.length) t.match(r.get('WALLET_ROUND_RULES')!.fix, /never refused/, `${name}: the fix says what to change`);
    }
    // Its bet without a readable answer (it may not be applied): a refused settlement may be right.
    const b = bet('p', `b${newId()}`, 10);
    const r = grade([
      step(login('p'), { balance: '100' }),
      { ex: b, reply: none(b) },
      step(settle('p', `s${newId()}`, 10, 5.5), { code: 'R3' }),
    ]);
    t.same(failing(r), ['WALLET_ANSWERS_IN_TIME'], 'a bet that got no answer, its settlement refused');
  },
);

t.test('exact decimals: 0.1 + 0.2 and long balances are compared as written', async (t) => {
  const rows: [string, number, string, string, WalletCheckId[]][] = [
    ['0.3', 0.1, '0.2', 'a bet of 0.1 from 0.3', []],
    ['0.3', 0.1, '0.19999999999999998', 'a float subtraction', ['WALLET_BALANCE_EXACT']],
    ['10000000000000.01', 0.01, '10000000000000', 'a large balance', []],
    ['10000000000000.01', 0.01, '10000000000000.0', 'a trailing zero is the same number', []],
    ['100', 10, '90.01', 'off by a cent', ['WALLET_BALANCE_EXACT']],
  ];
  for (const [start, stake, after, name, want] of rows) {
    const r = grade([step(login('p'), { balance: start }), step(bet('p', `b${newId()}`, stake), { balance: after })]);
    t.same(failing(r), want, name);
  }
});

t.test('each defect fails exactly its check', async (t) => {
  const rows: [string, () => Step[], WalletCheckId[]][] = [
    [
      'a resend debited twice',
      () => {
        const b = bet('p', 'b1', 10);
        return [step(login('p'), { balance: '100' }), step(b, { balance: '90' }), step(again(b), { balance: '80' })];
      },
      ['WALLET_IDEMPOTENT'],
    ],
    [
      'a resend answered R3 "duplicate"',
      () => {
        const b = bet('p', 'b1', 10);
        return [step(login('p'), { balance: '100' }), step(b, { balance: '90' }), step(again(b), { code: 'R3', balance: null })];
      },
      ['WALLET_IDEMPOTENT'],
    ],
    [
      'a settlement that credits the winloss only',
      () => [
        step(login('p'), { balance: '100' }),
        step(bet('p', 'b1', 10), { balance: '90' }),
        step(settle('p', 's1', 10, 5), { balance: '95' }),
      ],
      ['WALLET_BALANCE_EXACT'],
    ],
    [
      'R0 on a short bet',
      () => [step(login('p'), { balance: '5' }), step(bet('p', 'b1', 10), { balance: '-5' })],
      ['WALLET_REFUSES_SHORT_BET'],
    ],
    ['missing reply headers', () => [step(login('p'), { headers: { 'api-id': undefined, 'api-key': undefined } })], ['WALLET_REPLY_VALID']],
    ['a lowercase code', () => [step(login('p'), { code: 'r0' })], ['WALLET_REPLY_VALID']],
    ['no latest_balance on R0', () => [step(login('p'), { balance: null })], ['WALLET_REPLY_VALID']],
    ['a balance as a string', () => [step(login('p'), { balance: '"100.00"' })], ['WALLET_REPLY_VALID']],
    ['user_id not echoed', () => [step(login('p'), { user: 'someone' })], ['WALLET_REPLY_VALID']],
    ['HTTP 500', () => [step(login('p'), { status: 500 })], ['WALLET_REPLY_VALID']],
    ['a non-JSON 200', () => [step(login('p'), { text: '<html>oops</html>' })], ['WALLET_REPLY_VALID']],
    ['text/html', () => [step(login('p'), { headers: { 'content-type': 'text/html' } })], ['WALLET_REPLY_VALID']],
    [
      'its own key sent back to a caller with a wrong key',
      () => {
        const x = login('p', 'l-wrong');
        const wrong: WalletExchange = { ...x, credentialsOk: false, sentConfiguredKey: false };
        return [step(wrong, { code: 'R2', balance: null, headers: { 'api-key': KEY.api_key } })];
      },
      ['WALLET_REPLY_VALID'],
    ],
    ['a 5 s reply to a 3 s client', () => [step(login('p'), { ms: 5000 })], ['WALLET_ANSWERS_IN_TIME']],
    ['no reply', () => [{ ex: login('p'), reply: none(login('p')) }], ['WALLET_ANSWERS_IN_TIME']],
    ['R0 to an invalid callback', () => [step({ ...bet('p', 'b1', 10), valid: false }, { balance: '90' })], ['WALLET_REFUSES_INVALID']],
    [
      "R0 to wrong credentials (the scenario's accepted too)",
      () => [step(login('p')), step({ ...login('p'), credentialsOk: false })],
      ['WALLET_REFUSES_INVALID'],
    ],
  ];
  for (const [name, steps, want] of rows) {
    const r = grade(steps(), 3000);
    t.same(failing(r), want, name);
    for (const id of want) {
      const v = r.get(id)!.violations[0]!;
      t.ok(v.message.length > 20 && v.journal_ids.length === 1, `${name}: the violation says what and cites the exchange`);
      t.notMatch(JSON.stringify(v.evidence), KEY.api_key, `${name}: evidence never holds the key`);
    }
  }
});

t.test("WALLET_ANSWERS_IN_TIME: this side's own shorter wait is no judgement of the wallet", async (t) => {
  const noReply = (x: WalletExchange, ms: number, cause: 'timeout' | 'broken' | 'unreachable', why: string): Step => ({
    ex: x,
    reply: { kind: 'none', at: x.sentAt + ms, why, cause },
  });
  const rows: [string, (x: WalletExchange) => Step, WalletCheckId[], number][] = [
    ["probe's --timeout 500 ran out, the client waits 3 s: not judged", (x) => noReply(x, 500, 'timeout', 'no reply within 500 ms'), [], 0],
    [
      'the wait ran out at the client time-out: failed',
      (x) => noReply(x, 3000, 'timeout', 'no reply within 3000 ms'),
      ['WALLET_ANSWERS_IN_TIME'],
      1,
    ],
    [
      'a few ms short of it (a timer): still failed',
      (x) => noReply(x, 2998, 'timeout', 'no reply within 3000 ms'),
      ['WALLET_ANSWERS_IN_TIME'],
      1,
    ],
    [
      'the wallet closed the connection at 500 ms: failed',
      (x) => noReply(x, 500, 'broken', 'socket hang up'),
      ['WALLET_ANSWERS_IN_TIME'],
      1,
    ],
    ['not reached: failed', (x) => noReply(x, 5, 'unreachable', 'not reached: connection refused'), ['WALLET_ANSWERS_IN_TIME'], 1],
  ];
  for (const [name, steps, want, exercised] of rows) {
    const r = grade([steps(login('p'))], 3000);
    t.same(failing(r), want, name);
    t.equal(r.get('WALLET_ANSWERS_IN_TIME')!.exercised, exercised, `${name}: exercised ${exercised}`);
  }
});

t.test(
  "proxy mode: R0s to other credentials are held until the wallet accepts the scenario's (a typo in the scenario is not the wallet's)",
  async (t) => {
    const other = () => ({ ...login('p'), credentialsOk: false, sentHeaders: { apiId: 'acme', callbackUrl: 'http://provider/cb' } });
    const only = grade([step(other()), step(other())]);
    const invalid = only.get('WALLET_REFUSES_INVALID')!;
    t.equal(invalid.status, 'not_exercised', 'not failed: the scenario may be the typo');
    t.match(
      invalid.detail,
      /2 R0s to credentials other than the scenario's \(Api-Id acme\) not judged: the wallet has not accepted the scenario's/,
    );
    for (const order of [
      [step(other()), step(login('p'))],
      [step(login('p')), step(other())],
    ]) {
      const r = grade(order);
      t.equal(r.get('WALLET_REFUSES_INVALID')!.status, 'fail', "once the scenario's are accepted, judged, whatever the order");
      t.equal(r.get('WALLET_REFUSES_INVALID')!.violations.length, 1);
    }
    const refused = grade([step(login('p'), { code: 'R2', balance: null }), step(other())]);
    t.equal(refused.get('WALLET_REFUSES_INVALID')!.status, 'not_exercised', "the scenario's refused (R2): still held");
    t.equal(
      grade([step(other())], 10_000, true).get('WALLET_REFUSES_INVALID')!.status,
      'fail',
      'probe (it knows its credentials): at once',
    );

    // A long session with the typo stays bounded: past 100 held whole, the rest counted, and all judged once accepted.
    const many = Array.from({ length: 150 }, () => step(other()));
    t.match(grade(many).get('WALLET_REFUSES_INVALID')!.detail, /^150 R0s to credentials other than the scenario's/);
    const judged = grade([...many, step(login('p'))]).get('WALLET_REFUSES_INVALID')!;
    t.match(judged.detail, /: 0 passed, 150 failed/, 'every held one judged');
    t.equal(judged.violations.filter((v) => v.journal_ids.length > 0).length, 100, 'a hundred kept whole, as any check keeps');
  },
);

t.test('no false alarm under concurrency or after an unanswered callback', async (t) => {
  // Two bets of one player in flight together, answered in reverse order: no order can be known.
  const b1 = bet('p', 'b1', 10);
  const b2 = bet('p', 'b2', 20, 'g2');
  const rows: [string, Step[]][] = [
    [
      'overlapping bets answered in reverse order',
      [
        step(login('p'), { balance: '100' }),
        { send: b1 },
        { send: b2 },
        { answer: b2.id, reply: reply(b2, { balance: '80' }) },
        { answer: b1.id, reply: reply(b1, { balance: '70' }) },
        step(bet('p', 'b3', 5, 'g3'), { balance: '65' }),
      ],
    ],
    (() => {
      const b = bet('q', 'b1', 10);
      // The bet's reply never came, but the wallet applied it: the next balance is 10 lower.
      return [
        'a bet applied without a reply',
        [step(login('q'), { balance: '100' }), { ex: b, reply: none(b) }, step(bet('q', 'b2', 5, 'g2'), { balance: '85' })],
      ] as [string, Step[]];
    })(),
    (() => {
      const b = bet('r', 'b1', 10);
      // A resend while another callback of the player is in flight is judged with it, as a history.
      const l = login('r');
      return [
        'a resend overlapping a login',
        [
          step(login('r'), { balance: '100' }),
          step(b, { balance: '90' }),
          { send: l },
          { ex: again(b), reply: reply(b, { balance: '90' }) },
          { answer: l.id, reply: reply(l, { balance: '90' }) },
        ],
      ] as [string, Step[]];
    })(),
    [
      'players are independent',
      [step(login('a'), { balance: '1' }), step(login('b'), { balance: '1000' }), step(bet('b', 'bb', 500), { balance: '500' })],
    ],
  ];
  for (const [name, steps] of rows) {
    const r = grade(steps);
    t.same(
      failing(r).filter((id) => id !== 'WALLET_ANSWERS_IN_TIME'),
      [],
      name,
    );
  }
});

t.test('a report limited to one player, and bounded violations', async (t) => {
  const steps: Step[] = [];
  for (let i = 0; i < 150; i++) steps.push(step(login(`u${i % 3}`), { status: 500 }));
  const g = new WalletGrader({ clientTimeoutMs: 10_000, credentials: KEY });
  for (const s of steps) {
    if (!('ex' in s)) continue;
    g.sent(s.ex);
    g.answered(s.ex, s.reply);
  }
  const all = g.checks().find((c) => c.id === 'WALLET_REPLY_VALID')!;
  t.equal(all.exercised, 150);
  t.equal(all.violations.length, 101, '100 kept and one line for the rest');
  t.match(all.violations[100]!.message, /and 50 more/);
  const one = g.checks('u1').find((c) => c.id === 'WALLET_REPLY_VALID')!;
  t.equal(one.exercised, 50);
});

t.test('an unanswered callback leaves the in-time check pending', async (t) => {
  const g = new WalletGrader({ clientTimeoutMs: 10_000, credentials: KEY });
  const x = login('p');
  g.sent(x);
  t.equal(g.checks().find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')!.status, 'pending');
  g.answered(x, reply(x));
  t.equal(g.checks().find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')!.status, 'pass');
});

t.test('no false alarm on what the protocol leaves open', async (t) => {
  const wrong: WalletExchange = { ...login('p', 'l-wrong'), credentialsOk: false, sentConfiguredKey: false };
  const x = login('p');
  const rows: [string, Step[]][] = [
    ["an R2 echoing the caller's wrong key", [step(wrong, { code: 'R2', balance: null })]],
    [
      'a fractional timestamp',
      [step(x, { text: `{"code":"R0","event_type":"login","timestamp":1790000000.5,"user_id":"p","latest_balance":1}` })],
    ],
    ['Content-Type with a charset', [step(login('p'), { headers: { 'content-type': 'application/json; charset=utf-8' } })]],
  ];
  for (const [name, steps] of rows) t.same(failing(grade(steps)), [], name);
});

t.test('the evidence and the events never hold the Api-Key', async (t) => {
  const x = login('p');
  const answer = reply(x, { status: 500 });
  t.equal(answer.kind === 'reply' && answer.headers['api-key'], '***', 'masked when the answer is built');
  const r = grade([{ ex: x, reply: answer }]);
  t.notMatch(JSON.stringify([...r.values()]), KEY.api_key);
});

t.test("WALLET_REPLY_VALID's fix says what to change for a leaked key, after what a reply must be", async (t) => {
  const wrong = () => ({ ...login('p', `l-wrong-${newId()}`), credentialsOk: false, sentConfiguredKey: false });
  const leaked = { code: 'R2', balance: null, headers: { 'api-key': KEY.api_key } };
  const LEAK_FIX = /On a reply to a caller whose credentials were wrong \(R2\), echo back the Api-Id and Api-Key it sent/;
  const rows: [string, () => Step[], boolean][] = [
    ['its own key sent to a wrong caller', () => [step(wrong(), leaked)], true],
    ['a leak and a missing header', () => [step(wrong(), leaked), step(login('p'), { headers: { 'api-id': undefined } })], true],
    ['a missing header only', () => [step(login('p'), { headers: { 'api-id': undefined } })], false],
  ];
  for (const [name, steps, leak] of rows) {
    const fix = grade(steps()).get('WALLET_REPLY_VALID')!.fix;
    t.match(fix, /^Reply with HTTP 200, Content-Type application\/json, Api-Id and Api-Key headers/, `${name}: what a reply must be`);
    if (leak) t.match(fix, LEAK_FIX, `${name}: and the leak's fix`);
    else t.notMatch(fix, LEAK_FIX, `${name}: no leak, no leak fix`);
  }
});

t.test("WALLET_BALANCE_EXACT's fix names what its violations say: a login that moved the balance", async (t) => {
  const reset = grade([
    step(login('p'), { balance: '100' }),
    step(bet('p', `b${newId()}`, 10), { balance: '90' }),
    step(login('p'), { balance: '100' }),
  ]);
  t.same(failing(reset), ['WALLET_BALANCE_EXACT']);
  t.match(reset.get('WALLET_BALANCE_EXACT')!.fix, /A login changes no balance/);
  const float = grade([step(login('p'), { balance: '0.3' }), step(bet('p', `b${newId()}`, 0.1), { balance: '0.19999999999999998' })]);
  t.same(failing(float), ['WALLET_BALANCE_EXACT']);
  t.notMatch(float.get('WALLET_BALANCE_EXACT')!.fix, /login/, 'a float ledger is told of decimals only');
});

t.test('two copies of one settlement in flight, both credited: the race is named as such', async (t) => {
  const s = settle('p', `s${newId()}`, 10, 5.5);
  const copy = again(s);
  const r = grade([
    step(login('p'), { balance: '100' }),
    step(bet('p', `b${newId()}`, 10), { balance: '90' }),
    { send: s },
    { send: copy },
    { answer: s.id, reply: reply(s, { balance: '105.5' }) },
    { answer: copy.id, reply: reply(copy, { balance: '121' }) },
  ]);
  t.same(failing(r), ['WALLET_CONCURRENCY_SAFE']);
  const messages = r
    .get('WALLET_CONCURRENCY_SAFE')!
    .violations.map((v) => v.message)
    .join('\n');
  t.match(messages, `two copies of transaction ${s.tx} in flight, applied twice`);
  t.notMatch(messages, 'double debit', 'not called a double debit');
});

// Found by a review of the two changes above (3 Dec): a correct wallet must not fail, a defect must not hide.
const ownCut = (x: WalletExchange): WalletAnswer => ({ kind: 'none', at: x.sentAt + 3000, why: 'upstream time-out', cause: 'timeout' });
const changed = (x: WalletExchange, data: Record<string, unknown>): WalletExchange => {
  const body = x.body as { data: object };
  return { ...x, id: newId(), sentAt: x.sentAt + 5000, body: { ...body, timestamp: 2, data: { ...body.data, ...data } } };
};

t.test("a settlement whose reply was lost, then another settlement of its round refused: not the wallet's fault", async (t) => {
  const rows: [string, (s: WalletExchange) => Step[], WalletCheckId[]][] = [
    ["resent with a changed body (the provider's RETRY_UNCHANGED): R3", (s) => [step(changed(s, { result: 'B' }), { code: 'R3' })], []],
    ['resent under a new transaction_id: R3 (ROUND_SETTLED)', () => [step(settle('p', `s${newId()}`, 10, 5.5), { code: 'R3' })], []],
    [
      'a login showed it applied, then a new-id settlement: R3',
      () => [step(login('p'), { balance: '105.5' }), step(settle('p', `s${newId()}`, 10, 5.5), { code: 'R3' })],
      [],
    ],
    ['the identical resend replays R0', (s) => [step(again(s), { balance: '105.5' })], []],
    [
      'the identical resend refused R3: a defect (applied or not, a correct wallet answers R0)',
      (s) => [step(again(s), { code: 'R3' })],
      ['WALLET_ROUND_RULES'],
    ],
  ];
  for (const [name, next, want] of rows) {
    const s = settle('p', `s${newId()}`, 10, 5.5);
    const r = grade([
      step(login('p'), { balance: '100' }),
      step(bet('p', `b${newId()}`, 10), { balance: '90' }),
      { ex: s, reply: ownCut(s) }, // applied by the wallet (105.5); the reply never came back
      ...next(s),
    ]);
    t.same(failing(r), want, name);
  }
});

t.test('a settlement in a currency whose scale the configuration does not declare, refused: not judged', async (t) => {
  const krw = (event: string, tx: string, data: object) =>
    ex(event, tx, 'k', { currency: 'KRW', game_type: 'b', table_no: 't', game_no: 'g1', ...data });
  const b = krw('bet', `b${newId()}`, { total_bet_amount: 1000, bets: [{ bet_index: '1', bet_type: 'p', bet_amount: 1000 }] });
  const s = krw('bet_result', `s${newId()}`, {
    total_bet_amount: 1000,
    total_winloss: 0.5,
    result: 'P',
    result_detail: '{}',
    bet_results: [{ bet_index: '1', bet_type: 'p', bet_amount: 1000, winloss: 0.5 }],
  });
  const steps = [step(login('k'), { balance: '10000' }), step(b, { balance: '9000' }), step(s, { code: 'R3' })];
  const undeclared = { ...DEFAULT_CONFIG, declared: (c: string) => c === 'USD' };
  t.same(failing(grade(steps, 10_000, false, undeclared)), [], 'KRW at a guessed 2 digits: a wallet refusing 0.5 won may be right');
  t.same(failing(grade(steps, 10_000, false, { ...DEFAULT_CONFIG, declared: () => true })), ['WALLET_ROUND_RULES'], 'declared: judged');
});

t.test('a replay of the first balance that is also the only balance the player can have is followed', async (t) => {
  const b = bet('p', `b${newId()}`, 10);
  const r = grade([
    step(login('p'), { balance: '100' }),
    step(b, { balance: '90' }),
    step(login('p'), { code: 'R1' }),
    step(again(b), { balance: '90' }),
    step(bet('p', `b${newId()}`, 10, 'g2'), { balance: '85' }), // a debit of 10 reported as 5
  ]);
  t.same(failing(r), ['WALLET_BALANCE_EXACT']);
});
