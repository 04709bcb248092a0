// A real retry library (got, configured as its documentation recommends for an idempotent POST)
// plays certification.json through the proxy in front of a real wallet (wallet-sim in another
// process, no rules): the lost bet reply is lost after the real wallet applied the bet, the resend
// exercises the real wallet's idempotency. One debit upstream; no failing check on either side.
import got, { type RetryOptions } from 'got';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { HEADERS } from '../helpers/app.js';
import {
  type Callback,
  check,
  checklist,
  failing,
  finalReport,
  type GradeReport,
  play,
  type Reply,
  RETRY_CHECKS,
  scenario,
  TIMEOUT_MS,
  type Wallet,
} from '../grading/real-clients.js';
import { getJson, startProxy, startUpstream } from './upstream.js';

const backoff: RetryOptions['calculateDelay'] = ({ attemptCount, retryOptions, error, computedValue }) =>
  attemptCount > retryOptions.limit
    ? 0
    : error.name === 'RetryError'
      ? Math.min(2 ** (attemptCount - 1) * 1000, retryOptions.backoffLimit)
      : computedValue;

const client = got.extend({
  headers: HEADERS,
  responseType: 'json',
  timeout: { request: TIMEOUT_MS },
  retry: {
    limit: 5,
    methods: ['POST'],
    statusCodes: [],
    errorCodes: ['ETIMEDOUT', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED'],
    backoffLimit: 4000,
    calculateDelay: backoff,
  },
  hooks: {
    afterResponse: [(response, retry) => ((response.body as Reply).code === 'R1' ? retry({ preserveHooks: true } as never) : response)],
  },
});

t.test('got through the proxy in front of a real wallet: one debit upstream, no failing check on either side', async (t) => {
  const cert = scenario();
  const up = await startUpstream(t, { ...cert, name: 'operator wallet', rules: [] });
  const proxy = await startProxy(t, cert, up.url);
  const report = () => getJson(proxy.base, '/admin/report') as Promise<GradeReport>;
  const w: Wallet = {
    base: proxy.base,
    url: proxy.url,
    report,
    journal: async (query) => (await getJson(proxy.base, `/admin/journal?${new URLSearchParams(query)}`)).entries,
    until: async (done, what, ms = 10_000) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const r = await report();
        if (done(r)) return r;
        if (Date.now() > deadline) throw new Error(`still waiting after ${ms} ms for ${what}: ${JSON.stringify(checklist(r))}`);
        await sleep(100);
      }
    },
  };
  await play(async (body: Callback) => {
    try {
      return (await client.post(proxy.url, { json: body })).body as unknown as Reply;
    } catch (e) {
      return ((e as { response?: { body?: unknown } }).response?.body as Reply | undefined) ?? undefined;
    }
  });
  const r = await finalReport(w);
  t.same(failing(r), [], 'no failing provider check');
  t.same(
    RETRY_CHECKS.map((id) => `${id}: ${check(r, id).status}`),
    RETRY_CHECKS.map((id) => `${id}: pass`),
    "the client's retries were exercised and passed",
  );
  const lostBet = (await up.get('/admin/ledger?user_id=cert-lost-bet')) as { event_type: string; amount: number; applied_at?: string }[];
  t.same(
    lostBet.map((row) => `${row.event_type} ${row.amount}`),
    ['bet 10', 'bet_result 0'],
    'the lost bet debited once upstream, then settled',
  );
  const lostSettlement = (await up.get('/admin/ledger?user_id=cert-lost-settlement')) as { event_type: string }[];
  t.same(
    lostSettlement.map((row) => row.event_type),
    ['bet', 'bet_result'],
    'the lost settlement credited once upstream',
  );
  const withoutTime = (rows: { applied_at?: string }[]) => rows.map(({ applied_at: _when, ...row }) => row);
  t.same(
    withoutTime(await getJson(proxy.base, '/admin/ledger?user_id=cert-lost-bet')),
    withoutTime(lostBet),
    "the proxy's ledger (from the upstream's replies) matches the upstream's",
  );
  const wallet = proxy.sim.grading.wallet!.checks();
  t.same(
    wallet.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.violations.map((v) => v.message).join(' | ')}`),
    [],
    'no failing wallet-side check',
  );
  t.equal(wallet.find((c) => c.id === 'WALLET_IDEMPOTENT')!.status, 'pass', "the resends exercised the real wallet's idempotency");
});
