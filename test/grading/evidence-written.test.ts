// A violation decided while a cited attempt's reply was not written yet (a resend judged as it
// arrives) shows, in a report read later, what became of that reply: the timeline draws an answered
// resend as answered, not as unanswered; the message keeps what was true when it was decided.
import t from 'tap';
import type { Report } from '../../src/protocol/types.generated.js';
import { bet, buildTestApp, HEADERS, login } from '../helpers/app.js';
import { listen, post } from '../helpers/net.js';

t.test('a resend sent at once after a dropped reply: its evidence says it was written', async (t) => {
  const { app } = await buildTestApp({
    rules: [{ name: 'lost', when: { event_type: 'bet', user_id: 'd' }, then: { drop_connection: true }, times: 1 }],
  });
  t.teardown(() => app.close());
  const url = `${await listen(app)}/callback`;
  t.equal((await post(url, login('d'), HEADERS)).body.code, 'R0');
  const b = bet('d', 'g1', [['1', 'P', 10]], { currency: 'USD' });
  t.equal((await post(url, b, HEADERS)).status, 0, 'the reply is dropped');
  t.equal((await post(url, b, HEADERS)).body.code, 'R0', 'the resend, at once, is answered (a replay)');
  const report = (await app.inject({ method: 'GET', url: '/admin/report' })).json<Report>();
  const backoff = report.checks.find((c) => c.id === 'RETRY_BACKOFF')!;
  t.equal(backoff.status, 'fail', 'a resend at once is too soon');
  const resend = backoff.violations[0]!.evidence!.at(-1)!;
  t.equal(resend.fate, 'written', 'its reply was written');
  t.ok(resend.replied_at, 'with its time');
  t.notMatch(resend.reply ?? '', /not_yet_written/);
});
