// axios + axios-retry as a provider's callback client, configured as axios-retry's documentation
// says for a POST that is safe to repeat (a retryCondition taking network errors and time-outs,
// exponentialDelay, shouldResetTimeout), then misconfigured.
import axios, { type AxiosError, type AxiosHeaders, type AxiosInstance } from 'axios';
import axiosRetry, { exponentialDelay, type IAxiosRetryConfig, isNetworkError } from 'axios-retry';
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

const codeOf = (e: AxiosError) => (e.response?.data as Reply | undefined)?.code;
/** No reply (connection reset) or axios' own time-out (ECONNABORTED, not a "network error" to axios-retry). */
const lostReply = (e: AxiosError) => isNetworkError(e) || e.code === 'ECONNABORTED' || e.code === 'ETIMEDOUT';

/** The documented set-up for an idempotent POST; R1 (HTTP 200) goes to the retry through validateResponse. */
const WELL: IAxiosRetryConfig = {
  retries: 5,
  retryCondition: (e) => lostReply(e) || codeOf(e) === 'R1',
  retryDelay: (n, e) => exponentialDelay(n, e, 500), // 1 s, 2 s, 4 s… (+ up to 20 %)
  shouldResetTimeout: true, // each attempt gets the whole time-out (else a retry after a time-out has none left)
  validateResponse: (res) => (res.data as Reply | undefined)?.code !== 'R1',
};

function client(retry: IAxiosRetryConfig | undefined, timeout = TIMEOUT_MS): AxiosInstance {
  const http = axios.create({ timeout, headers: HEADERS });
  if (retry) axiosRetry(http, retry);
  return http;
}

/** POST with `http`: the reply read at last (R1 after the retries ran out included), or undefined. */
const sender =
  (http: AxiosInstance) =>
  (url: string): Send =>
  async (body: Callback) => {
    try {
      return (await http.post<Reply>(url, body)).data;
    } catch (e) {
      return ((e as AxiosError).response?.data as Reply | undefined) ?? undefined;
    }
  };

t.test('axios + axios-retry, well configured: no failing check on certification.json', (t) =>
  wellBehaved(t, (w) => sender(client(WELL))(w.url)),
);

t.test("axios-retry's defaults: a timed-out POST and an R1 settlement are never resent", (t) =>
  // isNetworkOrIdempotentRequestError leaves out time-outs (ECONNABORTED) and a POST answered at all.
  misconfigured(t, ['cert-slow-bet', 'cert-r1-settlement'], MISCONFIGURED.noRetry.fails, (w) => sender(client({}))(w.url)),
);

t.test('axios-retry with an onRetry that mints a new transaction_id (any code but R0 retried)', (t) =>
  misconfigured(t, MISCONFIGURED.newIdPerTry.players, MISCONFIGURED.newIdPerTry.fails, (w) =>
    sender(
      client({
        ...WELL,
        retries: 2,
        retryCondition: (e) => lostReply(e) || e.response !== undefined,
        validateResponse: (res) => (res.data as Reply | undefined)?.code === 'R0',
        onRetry: (_n, _e, config) => {
          config.data = JSON.stringify(withNewId(JSON.parse(config.data as string) as Callback));
          (config.headers as AxiosHeaders).delete('content-length'); // set by the first try: axios sets it again for the new body
        },
      }),
    )(w.url),
  ),
);

t.test('axios-retry resending at once (retryDelay 0, as its default noDelay) beside a CPU hog', (t) => {
  cpuHog(t);
  return misconfigured(t, MISCONFIGURED.noBackoff.players, MISCONFIGURED.noBackoff.fails, (w) =>
    sender(client({ ...WELL, retryDelay: () => 0 }))(w.url),
  );
});

t.test('axios with a 300 ms time-out while 2 s is declared', (t) =>
  misconfigured(t, MISCONFIGURED.shortTimeout.players, MISCONFIGURED.shortTimeout.fails, (w) =>
    sender(client({ ...WELL, retryDelay: exponentialDelay }, 300))(w.url),
  ),
);

t.test('axios-retry resending the same transaction after R4', (t) =>
  misconfigured(t, MISCONFIGURED.retryOnR4.players, MISCONFIGURED.retryOnR4.fails, (w) =>
    sender(
      client({
        ...WELL,
        retries: 2,
        retryCondition: (e) => lostReply(e) || e.response !== undefined,
        validateResponse: (res) => (res.data as Reply | undefined)?.code === 'R0',
      }),
    )(w.url),
  ),
);
