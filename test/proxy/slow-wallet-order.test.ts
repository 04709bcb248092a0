// Blame on the side that caused it, with a slow wallet: a provider's resend answered before its slow
// first attempt is graded in the order the two arrived, not the order the wallet answered them. The
// wallet's lateness is WALLET_ANSWERS_IN_TIME's; no provider check fails (it was graded as a resend
// sent before the first attempt: a negative gap, a premature retry, a lost reply never resent).
import t from 'tap';
import { bet, HEADERS, login, result } from '../helpers/app.js';
import { getJson, startProxy, startUpstream, UPSTREAM_SCENARIO } from './upstream.js';

const usd = { currency: 'USD' };
interface Check {
  id: string;
  side: string;
  status: string;
  violations: { message: string }[];
}

t.test('a resend answered before its slow first attempt: no provider check fails; the wallet is late', async (t) => {
  const upstream = await startUpstream(t, {
    ...UPSTREAM_SCENARIO,
    rules: [{ name: 'slow-first', when: { event_type: 'bet', user_id: 'slow' }, then: { delay_ms: 1500 }, times: 1 }],
  });
  const grading = { client_timeout_s: 1, min_retry_gap_ms: 200, retry_window_s: 5, round_max_age_s: 60 };
  const proxy = await startProxy(t, { grading }, upstream.url);
  const send = (body: object, timeoutMs = 5000) =>
    fetch(proxy.url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) })
      .then((r) => r.json() as Promise<{ code: string }>)
      .catch(() => undefined);

  t.equal((await send(login('slow')))?.code, 'R0');
  const stake = bet('slow', 'g1', [['1', 'P', 10]], usd);
  t.equal(await send(stake, 1000), undefined, 'the first attempt times out at the client (1 s)');
  await new Promise((resolve) => setTimeout(resolve, 300)); // its back-off
  t.equal((await send(stake))?.code, 'R0', 'the resend, answered while the first is still at the wallet');
  t.equal((await send(result('slow', 'g1', [['1', 'P', 10, 5]], usd)))?.code, 'R0');

  // Once the slow first attempt is answered too (1.5 s) and graded.
  let checks: Check[] = [];
  for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
    checks = (await getJson(proxy.base, '/admin/report')).checks as Check[];
    if (checks.find((c) => c.id === 'WALLET_ANSWERS_IN_TIME')?.status === 'fail') break;
  }
  const failed = checks.filter((c) => c.status === 'fail');
  t.same(
    failed.map((c) => [c.side, c.id]),
    [['wallet', 'WALLET_ANSWERS_IN_TIME']],
    `only the wallet's lateness: ${JSON.stringify(failed.map((c) => c.violations[0]?.message))}`,
  );
  for (const id of ['NO_PREMATURE_RETRY', 'RETRY_BACKOFF', 'LOST_REPLY_RETRIED'])
    t.notMatch(JSON.stringify(checks.find((c) => c.id === id)), /-\d+ ms/, `${id}: no negative gap`);
});
