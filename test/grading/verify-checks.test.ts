// verify expectations on check statuses, read from GET /admin/report through the admin client.
import t from 'tap';
import { AdminClient } from '../../src/verify/admin-client.js';
import { checkExpectations, ExpectationsError } from '../../src/verify/expectations.js';
import { verify } from '../../src/verify/verify.js';
import { bet, buildTestApp, HEADERS, listen, login, post } from '../helpers/app.js';

t.test('checks: a status or a list of them, per report or per player', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const url = await listen(app);
  await post(`${url}/callback`, login('player-1'), HEADERS);
  await post(`${url}/callback`, bet('player-1', 'G1', [['1', 'P', 10]]), HEADERS);
  await post(`${url}/callback`, bet('lonely', 'G1', [['1', 'P', 10]], { currency: 'USD' }), HEADERS);
  const outcome = await verify(
    checkExpectations({
      findings: { fail_on: 'none' },
      checks: [
        { id: 'LOST_REPLY_RETRIED', status: ['pass', 'not_exercised'] },
        { id: 'ROUNDS_SETTLED', status: 'pending' },
        { id: 'LOGIN_BEFORE_BET', status: 'pass', user_id: 'player-1' },
        { id: 'LOGIN_BEFORE_BET', status: 'pass', name: 'everyone logs in first' },
      ],
    }),
    new AdminClient(url),
  );
  const checks = outcome.results.filter((r) => r.group === 'checks');
  t.same(
    checks.map((r) => r.passed),
    [true, true, true, false],
  );
  t.equal(checks[3]!.name, 'everyone logs in first');
  t.match(checks[3]!.message, /^expected pass, got fail/);
  t.match(checks[3]!.details[0], /#3 .*lonely/);
});

t.test('an unknown check id or status is refused by the schema', async (t) => {
  t.throws(() => checkExpectations({ checks: [{ id: 'NOPE', status: 'pass' }] }), ExpectationsError);
  t.throws(() => checkExpectations({ checks: [{ id: 'ROUNDS_SETTLED', status: 'ok' }] }), ExpectationsError);
});
