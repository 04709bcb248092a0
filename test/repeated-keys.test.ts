// A key named twice in one object is refused (KEY_REPEATED), and a timestamp written with a fraction
// is told even when no amount is long (docs/routes.md, findings).
import t from 'tap';
import { duplicateKeys, keysAndColons, mayRepeatKeys } from '../src/kernel/raw-json.js';
import { balanceOf, bet, buildTestApp, journal, now, result, send } from './helpers/app.js';

t.test('duplicateKeys and its gate: every repeat found, never one that is not', async (t) => {
  const table: [json: string, repeated: string[]][] = [
    ['{"a":1,"b":2}', []],
    ['{"a":1,"a":2}', ['/a']],
    ['{"a" : 1 , "a"\n:\t2}', ['/a']],
    ['{"a":{"b":1},"c":{"b":2}}', []],
    ['{"d":{"x":1,"y":[{"x":1,"x":2}],"x":3}}', ['/d/y/0/x', '/d/x']],
    ['{"s":"a:b","t":"{\\"k\\":1,\\"k\\":2}"}', []],
    ['{"k:1":1,"k:1":2}', ['/k:1']],
    ['{"q\\"":1,"q\\"":2}', ['/q"']],
    ['[{"a":1},{"a":1}]', []],
  ];
  for (const [json, repeated] of table) {
    t.same(duplicateKeys(json), repeated, json);
    // The gate never hides a repeat: where one is, it says "may".
    if (repeated.length) t.ok(mayRepeatKeys(json, keysAndColons(JSON.parse(json), 32)), `gate open: ${json}`);
    else t.notOk(mayRepeatKeys(json, keysAndColons(JSON.parse(json), 32)), `gate shut: ${json}`);
  }
  // Deeper than the bound: -1, at once (a hostile body never overflows the stack here).
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  t.equal(keysAndColons(deep, 32), -1);
  t.equal(keysAndColons({ a: [[{ b: 'x:y' }]] }, 4), 3);
  t.equal(keysAndColons({ a: [[{ b: 'x:y' }]] }, 3), -1);
});

t.test('a bet naming total_bet_amount twice is R3 KEY_REPEATED, nothing debited; the same bet once is R0', async (t) => {
  const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'USD' }] });
  t.teardown(() => app.close());
  const req = bet('p', 'g1', [['1', 'P', 10]], { currency: 'USD' });
  const twice = JSON.stringify(req).replace('"total_bet_amount":10', '"total_bet_amount":20,"total_bet_amount":10');
  const res = await send(app, twice);
  t.equal(res.body.code, 'R3');
  t.match(res.headers['x-wallet-sim-reason'], /\/data\/total_bet_amount is named twice in one object.*send each key once/);
  t.match((await journal(app, { transaction_id: req.transaction_id }))[0].findings, [
    { code: 'KEY_REPEATED', severity: 'error', pointer: '/data/total_bet_amount' },
  ]);
  t.equal(balanceOf(sim, 'p'), '1000', 'nothing debited');
  t.equal((await send(app, req)).body.code, 'R0', 'refused, not recorded: the bet sent right is applied');
  t.equal(balanceOf(sim, 'p'), '990');
});

t.test('a settlement with result_detail full of colons and a repeat inside it is no repeat of the body: R0', async (t) => {
  const { app } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'USD' }] });
  t.teardown(() => app.close());
  t.equal((await send(app, bet('p', 'g1', [['1', 'P', 10]], { currency: 'USD' }))).body.code, 'R0');
  const settle = result('p', 'g1', [['1', 'P', 10, 5]], { currency: 'USD' });
  const res = await send(app, settle);
  t.equal(res.body.code, 'R0');
  const findings = (await journal(app, { transaction_id: settle.transaction_id }))[0].findings as { code: string }[];
  t.notOk(
    findings.some((f) => f.code === 'KEY_REPEATED'),
    'no repeat reported',
  );
});

t.test('a timestamp written with a fraction a double drops (it reads as an integer) is a warning, the bet applied', async (t) => {
  const { app, sim } = await buildTestApp({ players: [{ user_id: 'p', balance: 1000, currency: 'USD' }] });
  t.teardown(() => app.close());
  const req = bet('p', 'g1', [['1', 'P', 10]], { currency: 'USD' });
  // [as written, finding]: 1796042410.0 is an integer written as a decimal (JSON Schema's integer too): none.
  const table: [string, boolean][] = [
    [`${now()}.0000000001`, true],
    [`${now()}0000000001e-10`, true],
    [`${now()}.0`, false],
    [`${now()}e0`, false],
  ];
  for (const [i, [written, told]] of table.entries()) {
    const id = `tx-${i}`;
    const body = JSON.stringify({ ...req, transaction_id: id, data: { ...req.data, game_no: id } }).replace(
      `"timestamp":${req.timestamp}`,
      `"timestamp" : ${written}`,
    );
    t.equal((await send(app, body)).body.code, 'R0', written);
    const findings = (await journal(app, { transaction_id: id }))[0].findings;
    if (told)
      t.match(findings, [
        { code: 'TIMESTAMP_NOT_INTEGER', severity: 'warning', pointer: '/timestamp', message: `timestamp is written ${written}` },
      ]);
    else t.same(findings, [], `${written}: no finding`);
  }
  t.equal(balanceOf(sim, 'p'), '960');
});
