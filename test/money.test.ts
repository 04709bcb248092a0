// Exact decimal money (docs/design.md "Money is exact") and the reply's number text.
import { Decimal } from 'decimal.js';
import t from 'tap';
import { buildReply } from '../src/protocol/seed/reply.js';
import { amountProblem, money, Money, sum, toJsonNumber, ZERO } from '../src/kernel/money.js';

t.test('arithmetic is exact where binary floats drift', async (t) => {
  t.equal(toJsonNumber(money(1).minus(0.1).minus(0.2)), '0.7', '1 − 0.1 − 0.2 = 0.7');
  const cases: [string, () => InstanceType<typeof Money>, string, number][] = [
    ['0.3 − 0.1', () => money(0.3).minus(0.1), '0.2', 0.3 - 0.1],
    ['1 − 0.9 − 0.1', () => money(1).minus(0.9).minus(0.1), '0', 1 - 0.9 - 0.1],
    ['0.1 + 0.2', () => money(0.1).plus(0.2), '0.3', 0.1 + 0.2],
    [
      'Σ 0.01 × 100',
      () => sum(Array(100).fill(money(0.01))),
      '1',
      Array(100)
        .fill(0.01)
        .reduce((a, b) => a + b, 0),
    ],
    [
      '1.15 × 100 as sums',
      () => sum(Array(100).fill(money(1.15))),
      '115',
      Array(100)
        .fill(1.15)
        .reduce((a, b) => a + b, 0),
    ],
    ['a big balance plus a cent', () => money(999999999999999).plus(0.01), '999999999999999.01', 999999999999999 + 0.01],
  ];
  for (const [name, compute, exact, float] of cases) {
    t.equal(toJsonNumber(compute()), exact, `${name} = ${exact}`);
    t.not(String(float), exact, `${name}: binary floats would say ${float}`);
  }
});

t.test('toJsonNumber: plain decimal text, never an exponent', async (t) => {
  const cases: [string | number, string][] = [
    [0.7, '0.7'],
    [1005000, '1005000'],
    [1e21, '1000000000000000000000'],
    [1e-7, '0.0000001'],
    ['0.00000001', '0.00000001'],
    [-5000, '-5000'],
    [0, '0'],
    ['10.50', '10.5'],
  ];
  for (const [input, text] of cases) {
    t.equal(toJsonNumber(money(input)), text, `${input} → ${text}`);
    t.equal(JSON.parse(text), Number(input), 'reads back as the same number');
  }
});

t.test('decimalPlaces counts what the caller wrote, as a JSON number', async (t) => {
  const cases: [number, number][] = [
    [10, 0],
    [10.5, 1],
    [10.5, 1],
    [10.001, 3],
    [0.00000001, 8],
    [1e-7, 7],
    [1e21, 0],
    [15000, 0],
  ];
  for (const [n, digits] of cases) t.equal(money(n).decimalPlaces(), digits, `${n}: ${digits}`);
});

t.test('sum of nothing is zero; ZERO is zero', async (t) => {
  t.equal(toJsonNumber(sum([])), '0');
  t.ok(ZERO.isZero());
});

t.test('Money is a clone: decimal.js defaults elsewhere are untouched', async (t) => {
  t.equal(Decimal.precision, 20, "decimal.js's own precision stays 20");
  t.equal(Money.precision, 60);
  t.equal(new Decimal(1e21).toString(), '1e+21', 'the default clone still uses exponents');
});

t.test('buildReply writes latest_balance as exact decimal text', async (t) => {
  const cases: [unknown, string | undefined][] = [
    [money(1).minus(0.1).minus(0.2), '0.7'],
    [money('123456789012345.67'), '123456789012345.67'],
    [money(1e21), '1000000000000000000000'],
    [1005000, '1005000'],
    [null, undefined],
    [undefined, undefined],
  ];
  for (const [balance, text] of cases) {
    const { text: raw, body: object } = buildReply('R0', 'bet', 'p', balance as never);
    const body = JSON.parse(raw);
    t.same(object, body, 'the journal keeps the same reply as an object');
    t.match(body, { code: 'R0', event_type: 'bet', user_id: 'p' });
    t.ok(Number.isInteger(body.timestamp));
    if (text === undefined) t.notOk('latest_balance' in body, `${balance}: no latest_balance`);
    else t.ok(raw.endsWith(`,"latest_balance":${text}}`), `${String(balance)} written as ${text}`);
  }
});

t.test("buildReply's text is what JSON.stringify writes for its reply object", async (t) => {
  for (const user of ['p', 'a"b\\c\n', 'é😀', '\ud800x', ''])
    for (const [code, event] of [
      ['R0', 'bet'],
      ['R3', 'bet_result'],
      ['R1', ''],
      ['R2', 'a "new" event'],
    ] as const)
      for (const balance of [undefined, money('1.5'), 0]) {
        const { text, body } = buildReply(code, event, user, balance);
        t.equal(text, JSON.stringify(body), `${JSON.stringify(user)} ${code} ${event} ${String(balance)}`);
      }
});

t.test('a Money shared for a number or a text seen before reads as a new one would', async (t) => {
  t.ok(money(0).isZero() && !money(0).isNeg() && money(-0).isNeg(), '0 and -0 stay apart');
  t.notOk(money(toJsonNumber(money(-0))).isNeg(), 'the text of -0 reads back as 0');
  for (const text of ['2.5', '2.50', '-0.01', '123456789012345', '1e-7']) {
    const again = money(text);
    t.equal(again.toFixed(), new Money(text).toFixed(), text);
    t.equal(money(toJsonNumber(again)).toFixed(), again.toFixed(), `${text}: read back from its text`);
  }
  for (let i = 0; i < 10_000; i++) money(i + 0.5); // past the cache's size: it starts again
  t.equal(money(1.5).toFixed(), '1.5');
  t.equal(amountProblem(money(0.001), 'USD', 2)?.code, 'AMOUNT_SCALE', 'checked at each scale');
  t.equal(amountProblem(money(0.001), 'BTC', 8), undefined);
  t.equal(amountProblem(money(0.001), 'USD', 2)?.code, 'AMOUNT_SCALE', 'fine at one scale is not fine at another');
});
