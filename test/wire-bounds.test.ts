// Ids are bounded (a hostile caller cannot make the wallet keep megabytes per player or transaction),
// and a body the schema refuses still has its timestamp judged (every defect at once).
import t from 'tap';
import { bet, buildTestApp, journal, login, now, send, snapshot } from './helpers/app.js';

t.test('ids up to 256 characters are accepted; longer ones are R3 SCHEMA, nothing created', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  t.equal((await send(app, login('u'.repeat(256)))).body.code, 'R0', '256 characters');
  const before = snapshot(sim);
  const cases: [string, object][] = [
    ['user_id', login('v'.repeat(257))],
    ['transaction_id', { ...login('player-1'), transaction_id: 't'.repeat(257) }],
    ['game_no', bet('player-1', 'g'.repeat(257), [['1', 'P', 10]])],
    ['bet_index', bet('player-1', 'g1', [['i'.repeat(257), 'P', 10]])],
  ];
  for (const [field, body] of cases) {
    const res = await send(app, body);
    t.equal(res.body.code, 'R3', field);
    t.match(res.headers['x-wallet-sim-reason'], /must NOT have more than 256 characters/, field);
  }
  t.equal(snapshot(sim), before, 'nothing created or changed');
});

t.test('a body the schema refuses still gets its timestamp findings', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const req = { ...bet('player-1', 'g1', [['1', 'P', 10]]), timestamp: now() - 3600 };
  (req.data as Record<string, unknown>).game_type = 5;
  t.equal((await send(app, req)).body.code, 'R3');
  const codes = (await journal(app, { transaction_id: req.transaction_id }))[0].findings.map((f: { code: string }) => f.code);
  t.same(codes.sort(), ['SCHEMA', 'TIMESTAMP_SKEWED']);
});

t.test('a login with data: R0, and a DATA_ON_LOGIN warning (the spec has data only on bet and bet_result)', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const req = { ...login('player-1'), data: { currency: 'USD' } };
  t.equal((await send(app, req)).body.code, 'R0');
  t.match((await journal(app, { transaction_id: req.transaction_id }))[0].findings, [
    { code: 'DATA_ON_LOGIN', severity: 'warning', pointer: '/data', message: /leave it out of login bodies/ },
  ]);
  const plain = login('player-1');
  t.equal((await send(app, plain)).body.code, 'R0');
  t.same((await journal(app, { transaction_id: plain.transaction_id }))[0].findings, [], 'none without data');
});
