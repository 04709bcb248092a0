// Amounts are judged as written, not as JSON.parse happens to read them (docs/design.md "Money is exact").
import t from 'tap';
import { numberTexts, topLevelNumberTexts } from '../src/kernel/raw-json.js';
import { balanceOf, bet, buildTestApp, HEADERS, journal, now, result, send } from './helpers/app.js';

t.test('numberTexts: every number as written, with its JSON pointer', async (t) => {
  const table: [string, [string, string][]][] = [
    ['{"a":1}', [['/a', '1']]],
    [
      '{"a" : -2.50e+3 , "b":[1,{"c":0.10}]}',
      [
        ['/a', '-2.50e+3'],
        ['/b/0', '1'],
        ['/b/1/c', '0.10'],
      ],
    ],
    ['{"s":"1234567890123456789","n":10.000000000000000001}', [['/n', '10.000000000000000001']]],
    [
      '{"q\\"/~":5,"e":"\\\\","f":6}',
      [
        ['/q"~1~0', '5'],
        ['/f', '6'],
      ],
    ],
    [
      '[[],[7],{"x":[8,9]}]',
      [
        ['/1/0', '7'],
        ['/2/x/0', '8'],
        ['/2/x/1', '9'],
      ],
    ],
    ['{"d":"{\\"pscore\\":12345678901234567}"}', []],
  ];
  for (const [json, expected] of table) t.same(numberTexts(json), expected, json);
  t.same([...topLevelNumberTexts('{"code":"R0","latest_balance":990.10,"x":{"latest_balance":1}}')], [['latest_balance', '990.10']]);
});

/** A bet body whose amounts are written as `text`, exactly. */
function betWritten(user: string, game: string, text: string) {
  const req = bet(user, game, [['1', 'P', 111]], { currency: 'USD', total: 111 });
  // Only the amounts (a transaction_id, made of the process id and a counter, may hold "111" too).
  return { req, body: JSON.stringify(req).replace(/("(?:total_bet_amount|bet_amount)":)111(?=[,}])/g, `$1${text}`) };
}

t.test('an amount a JSON number cannot hold as written is R3 AMOUNT_INEXACT, whatever it reads as: nothing debited', async (t) => {
  const refused = ['10.000000000000000001', '9.9999999999999999999', '0.1000000000000000055511151231257827', '1.23456789012345678e3'];
  for (const text of refused) {
    const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'USD' }] });
    const { req, body } = betWritten('p', 'g1', text);
    const res = await send(app, body);
    t.equal(res.body.code, 'R3', text);
    t.match(res.headers['x-wallet-sim-reason'], `/data/total_bet_amount is written ${text}, which a JSON number cannot hold exactly`);
    t.match(res.headers['x-wallet-sim-reason'], /send amounts with at most 15 significant digits/);
    t.match((await journal(app, { transaction_id: req.transaction_id }))[0].findings, [
      { code: 'AMOUNT_INEXACT', pointer: '/data/total_bet_amount' },
      { code: 'AMOUNT_INEXACT', pointer: '/data/bets/0/bet_amount' },
    ]);
    t.equal(balanceOf(sim, 'p'), '1000', `${text}: nothing debited`);
    await app.close();
  }
});

t.test('the same value written with more zeros, or an exponent, is the value: R0', async (t) => {
  const table: [string, string][] = [
    ['10.000000000000000000', '990'],
    ['1.5e1', '985'],
    ['0.30', '999.7'],
  ];
  for (const [text, balance] of table) {
    const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'USD' }] });
    const res = await send(app, betWritten('p', 'g1', text).body);
    t.equal(res.body.code, 'R0', text);
    t.equal(balanceOf(sim, 'p'), balance, `${text}: debited as written`);
    await app.close();
  }
});

t.test('a winloss below a double (1e-400 reads as 0) is refused; the round stays open', async (t) => {
  const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'USD' }] });
  t.teardown(() => app.close());
  t.equal((await send(app, bet('p', 'g1', [['1', 'P', 10]], { currency: 'USD' }))).body.code, 'R0');
  const settle = result('p', 'g1', [['1', 'P', 10, 5]], { currency: 'USD' });
  const res = await send(
    app,
    JSON.stringify(settle)
      .replace(/"winloss":5/, '"winloss":1e-400')
      .replace(/"total_winloss":5/, '"total_winloss":1e-400'),
  );
  t.equal(res.body.code, 'R3');
  t.match(res.headers['x-wallet-sim-reason'], /is written 1e-400, which a JSON number cannot hold exactly \(it reads as 0\)/);
  t.equal(balanceOf(sim, 'p'), '990', 'nothing credited');
  t.equal((await send(app, settle)).body.code, 'R0', 'the round is still open: a correct settlement settles it');
});

t.test('numbers that are not amounts are not refused; a timestamp written with a fraction is a warning', async (t) => {
  const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'USD' }] });
  t.teardown(() => app.close());
  const req = bet('p', 'g1', [['1', 'P', 10]], { currency: 'USD' });
  const body = JSON.stringify({ ...req, extra: 1 })
    .replace('"extra":1', '"extra":0.1000000000000000055511151231257827')
    .replace(`"timestamp":${req.timestamp}`, `"timestamp":${now()}.0000000000000001`);
  const res = await send(app, body);
  t.equal(res.body.code, 'R0');
  t.equal(balanceOf(sim, 'p'), '990');
  t.match((await journal(app, { transaction_id: req.transaction_id }))[0].findings, [
    {
      code: 'TIMESTAMP_NOT_INTEGER',
      severity: 'warning',
      pointer: '/timestamp',
      message: /is written \d+\.0000000000000001, not an integer/,
    },
  ]);
});

t.test('a huge amount is quoted short in the reason (a header, not 300 digits)', async (t) => {
  const { app } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'USD' }] });
  t.teardown(() => app.close());
  const res = await send(app, betWritten('p', 'g1', '1e300').body, HEADERS);
  t.equal(res.body.code, 'R3');
  const reason = String(res.headers['x-wallet-sim-reason']);
  t.match(reason, /AMOUNT|not below/);
  t.ok(reason.length < 300, `${reason.length} characters: ${reason}`);
});
