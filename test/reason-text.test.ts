// The X-Wallet-Sim-Reason of a refusal says what to do next: R2 where the credentials are, R3 each
// error once with the fields it was found at.
import t from 'tap';
import { bet, buildTestApp, HEADERS, login } from './helpers/app.js';

const reasonOf = async (payload: object, headers: Record<string, string> = HEADERS) => {
  const { app } = await buildTestApp();
  try {
    const res = await app.inject({ method: 'POST', url: '/callback', headers, payload: JSON.stringify(payload) });
    return { code: (res.json() as { code: string }).code, reason: res.headers['x-wallet-sim-reason'] };
  } finally {
    await app.close();
  }
};

t.test('R2 says where the credentials are', async (t) => {
  const wrong = await reasonOf(login('player-1'), { ...HEADERS, 'api-key': 'nope' });
  t.same(wrong, {
    code: 'R2',
    reason:
      "R2: Api-Key does not match this wallet's credentials; send the credentials this wallet expects: GET /admin/scenario shows them (credentials.api_id and api_key)",
  });
  const { 'api-id': _dropped, ...noId } = HEADERS;
  t.match((await reasonOf(login('player-1'), noId)).reason, /^R2: Api-Id header missing; .*GET \/admin\/scenario/);
});

t.test('R2 with --api-id/--api-key given: says the credentials are those wallet-sim was started with', async (t) => {
  const { app } = await buildTestApp({}, { apiId: 'given-id', apiKey: 'given-key' });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: JSON.stringify(login('player-1')) });
  t.equal(res.json().code, 'R2', "the scenario's credentials no longer work");
  t.match(
    res.headers['x-wallet-sim-reason'],
    'send the credentials this wallet expects: those wallet-sim was started with (--api-id / --api-key)',
  );
});

t.test('R3 lists a repeated error once, naming every field it was found at', async (t) => {
  // KRW allows no fraction digits: the total and both bets are wrong, the bets alike.
  const body = bet('player-1', 'G1', [
    ['1', 'P', 1.25],
    ['2', 'B', 1.25],
  ]);
  const r = await reasonOf(body);
  t.same(r, {
    code: 'R3',
    reason:
      'R3: /data/total_bet_amount: 2.5 has 1 fraction digit; KRW allows 0; /data/bets/0/bet_amount, /data/bets/1/bet_amount: 1.25 has 2 fraction digits; KRW allows 0',
  });
});
