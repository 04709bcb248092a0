// got as a provider's callback client, configured as its documentation recommends for an
// idempotent POST (retry on time-out and connection reset, same body), then misconfigured.
import got, { type AfterResponseHook, type BeforeRetryHook, type Got, type RetryOptions } from 'got';
import t from 'tap';
import { HEADERS } from '../helpers/app.js';
import {
  cpuHog,
  type Callback,
  MISCONFIGURED,
  misconfigured,
  type Reply,
  type Send,
  TIMEOUT_MS,
  wellBehaved,
  withNewId,
} from './real-clients.js';

// The cases are independent (a wallet each) and mostly wait for windows to close: side by side.
// Each margin is a second or more (a resend 1 s after a 2 s time-out; clients at 1 ms or 300 ms).
t.jobs = 2;

const ERROR_CODES = ['ETIMEDOUT', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED'];
/** got's own back-off (1 s, 2 s, 4 s… capped by backoffLimit), also for a retry asked by a hook. */
const gotBackoff: RetryOptions['calculateDelay'] = ({ attemptCount, retryOptions, error, computedValue }) =>
  attemptCount > retryOptions.limit
    ? 0
    : error.name === 'RetryError'
      ? Math.min(2 ** (attemptCount - 1) * 1000, retryOptions.backoffLimit)
      : computedValue;

/** An afterResponse hook resending (same options, same body) a reply whose code is in `codes`. */
const resendOn =
  (codes: string[]): AfterResponseHook =>
  (response, retryWithMergedOptions) =>
    codes.includes((response.body as Reply).code) ? retryWithMergedOptions({ preserveHooks: true } as never) : response;

function client(o: {
  timeoutMs?: number;
  limit?: number;
  calculateDelay?: RetryOptions['calculateDelay'];
  resend?: string[];
  beforeRetry?: BeforeRetryHook[];
}): Got {
  return got.extend({
    headers: HEADERS,
    responseType: 'json',
    timeout: { request: o.timeoutMs ?? TIMEOUT_MS },
    retry: {
      limit: o.limit ?? 5,
      methods: ['POST'],
      statusCodes: [],
      errorCodes: ERROR_CODES,
      backoffLimit: 4000,
      calculateDelay: o.calculateDelay ?? gotBackoff,
    },
    hooks: { afterResponse: [resendOn(o.resend ?? ['R1'])], beforeRetry: o.beforeRetry ?? [] },
  });
}

/** POST with `http`: the reply read at last (R1 after the retries ran out included), or undefined. */
const sender =
  (http: Got) =>
  (url: string): Send =>
  async (body: Callback) => {
    try {
      return (await http.post(url, { json: body })).body as unknown as Reply;
    } catch (e) {
      return ((e as { response?: { body?: unknown } }).response?.body as Reply | undefined) ?? undefined;
    }
  };

t.test('got, well configured: no failing check on certification.json', (t) => wellBehaved(t, (w) => sender(client({}))(w.url)));

t.test("got's defaults never resend a POST: the lost reply and the R1 settlement are never retried", (t) =>
  misconfigured(t, MISCONFIGURED.noRetry.players, MISCONFIGURED.noRetry.fails, (w) =>
    sender(got.extend({ headers: HEADERS, responseType: 'json', timeout: { request: TIMEOUT_MS } }))(w.url),
  ),
);

t.test('got with a beforeRetry hook that mints a new transaction_id on every try (R4 retried too)', (t) =>
  misconfigured(t, MISCONFIGURED.newIdPerTry.players, MISCONFIGURED.newIdPerTry.fails, (w) =>
    sender(
      client({
        limit: 2,
        resend: ['R1', 'R2', 'R3', 'R4'],
        beforeRetry: [
          (error) => {
            error.options.body = JSON.stringify(withNewId(JSON.parse(error.options.body as string) as Callback));
            delete error.options.headers['content-length']; // got sets it again for the new body
          },
        ],
      }),
    )(w.url),
  ),
);

t.test('got retrying at once (calculateDelay 1 ms) beside a CPU hog', (t) => {
  cpuHog(t);
  return misconfigured(t, MISCONFIGURED.noBackoff.players, MISCONFIGURED.noBackoff.fails, (w) =>
    sender(
      client({
        calculateDelay: ({ attemptCount, retryOptions, computedValue, error }) =>
          attemptCount > retryOptions.limit || (!computedValue && error.name !== 'RetryError') ? 0 : 1,
      }),
    )(w.url),
  );
});

t.test('got with a 300 ms time-out while 2 s is declared', (t) =>
  misconfigured(t, MISCONFIGURED.shortTimeout.players, MISCONFIGURED.shortTimeout.fails, (w) =>
    sender(
      client({
        timeoutMs: 300,
        calculateDelay: ({ attemptCount, retryOptions, computedValue }) => (attemptCount > retryOptions.limit || !computedValue ? 0 : 200),
      }),
    )(w.url),
  ),
);

t.test('got resending the same transaction after R4', (t) =>
  misconfigured(t, MISCONFIGURED.retryOnR4.players, MISCONFIGURED.retryOnR4.fails, (w) =>
    sender(client({ limit: 2, resend: ['R1', 'R4'] }))(w.url),
  ),
);
