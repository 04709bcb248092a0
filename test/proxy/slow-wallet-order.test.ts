// Blame on the side that caused it, with a slow wallet: a provider's resend answered before its slow
// first attempt is graded in the order the two arrived, not the order the wallet answered them. The
// wallet's lateness is WALLET_ANSWERS_IN_TIME's; no provider check fails (it was graded as a resend
// sent before the first attempt: a negative gap, a premature retry, a lost reply never resent).
import t from 'tap';
import { bet, login, result } from '../helpers/app.js';
import { onlyTheWalletLate, sendCallback as send, SLOW_FIRST_BET, SLOW_FIRST_GRADING, startProxy, startUpstream } from './upstream.js';

const usd = { currency: 'USD' };

t.test('a resend answered before its slow first attempt: no provider check fails; the wallet is late', async (t) => {
  const upstream = await startUpstream(t, SLOW_FIRST_BET);
  const proxy = await startProxy(t, { grading: SLOW_FIRST_GRADING }, upstream.url);

  t.equal((await send(proxy.url, login('slow')))?.code, 'R0');
  const stake = bet('slow', 'g1', [['1', 'P', 10]], usd);
  t.equal(await send(proxy.url, stake, 1000), undefined, 'the first attempt times out at the client (1 s)');
  await new Promise((resolve) => setTimeout(resolve, 300)); // its back-off
  t.equal((await send(proxy.url, stake))?.code, 'R0', 'the resend, answered while the first is still at the wallet');
  t.equal((await send(proxy.url, result('slow', 'g1', [['1', 'P', 10, 5]], usd)))?.code, 'R0');
  await onlyTheWalletLate(t, proxy.base);
  const timing = (await (await fetch(`${proxy.base}/admin/report`)).json()).timing;
  t.ok(
    timing.observed_timeout_ms && timing.observed_timeout_ms.max >= 900 && timing.observed_timeout_ms.max < 1500,
    `the client's time-out, closed while the wallet answered, is observed (${JSON.stringify(timing.observed_timeout_ms)})`,
  );
});
