// undici's RetryAgent as a provider's callback client: POST allowed, connection resets and the
// Agent's headers/body time-outs retried, exponential back-off; R1 (HTTP 200) resent by the
// provider's own loop over it. Then misconfigured.
//
// undici runs headersTimeout on its coarse "fast timers" (499 ms ticks): a 2 s headersTimeout fires
// 2.0–2.5 s after the request. Declared 2 s, the client may read a reply the wallet already counts
// as lost (> 2 s) and never resend it; so here the slow bet is answered after 3.5 s, past the
// client's real time-out. The short time-out case declares 3 s against the Agent's 1 s.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { Agent, type Dispatcher, request, RetryAgent } from 'undici';
import { HEADERS } from '../helpers/app.js';
import {
  cpuHog,
  type Callback,
  MISCONFIGURED,
  scenario,
  misconfigured,
  type Reply,
  type Send,
  TIMEOUT_MS,
  wellBehaved,
  withNewId,
} from './real-clients.js';

const ERROR_CODES = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'];
const BACKOFF_MS = 1000;

const agent = (timeoutMs = TIMEOUT_MS) => new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
const retryAgent = (o: { timeoutMs?: number; minTimeout?: number } = {}) =>
  new RetryAgent(agent(o.timeoutMs), {
    maxRetries: 5,
    minTimeout: o.minTimeout ?? BACKOFF_MS,
    maxTimeout: 4000,
    timeoutFactor: 2,
    methods: ['POST'],
    statusCodes: [],
    errorCodes: ERROR_CODES,
  });

/** One call through `dispatcher` (its own retries included): the reply, or undefined. */
async function once(dispatcher: Dispatcher, url: string, body: Callback): Promise<Reply | undefined> {
  try {
    const res = await request(url, { dispatcher, method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
    return (await res.body.json()) as Reply;
  } catch {
    return undefined;
  }
}

/**
 * The provider's loop over the dispatcher: resends (a new call, same body unless `rebuild`) while
 * the reply's code is in `resend` or, with `retryLost`, when no reply came; back-off doubling from `backoffMs`.
 */
const sender =
  (dispatcher: Dispatcher, o: { resend?: string[]; retryLost?: boolean; rebuild?: boolean; backoffMs?: number } = {}) =>
  (url: string): Send =>
  async (first: Callback) => {
    let body = first;
    let reply: Reply | undefined;
    for (let i = 0; ; i++) {
      reply = await once(dispatcher, url, body);
      const again = reply ? (o.resend ?? ['R1']).includes(reply.code) : o.retryLost === true;
      if (!again || i >= 3) return reply;
      await sleep((o.backoffMs ?? BACKOFF_MS) * 2 ** i);
      if (o.rebuild) body = withNewId(body);
    }
  };

t.test("undici's RetryAgent, well configured: no failing check on certification.json", (t) =>
  wellBehaved(t, (w) => sender(retryAgent())(w.url), scenario({ slowBetMs: 3500 })),
);

t.test("RetryAgent's defaults leave POST out: the lost reply is never resent, nor the R1 settlement", (t) =>
  misconfigured(t, MISCONFIGURED.noRetry.players, MISCONFIGURED.noRetry.fails, (w) =>
    sender(new RetryAgent(agent()), { resend: [] })(w.url),
  ),
);

t.test('a wrapper over undici rebuilding the request (new transaction_id) on every try', (t) =>
  misconfigured(t, MISCONFIGURED.newIdPerTry.players, MISCONFIGURED.newIdPerTry.fails, (w) =>
    sender(agent(), { resend: ['R1', 'R2', 'R3', 'R4'], retryLost: true, rebuild: true })(w.url),
  ),
);

t.test('RetryAgent with minTimeout 0 (and the loop resending R1 at once) beside a CPU hog', (t) => {
  cpuHog(t);
  return misconfigured(t, MISCONFIGURED.noBackoff.players, MISCONFIGURED.noBackoff.fails, (w) =>
    sender(retryAgent({ minTimeout: 0 }), { backoffMs: 0 })(w.url),
  );
});

t.test('RetryAgent over an Agent with a 1 s headersTimeout while 3 s is declared', (t) =>
  misconfigured(
    t,
    MISCONFIGURED.shortTimeout.players,
    MISCONFIGURED.shortTimeout.fails,
    (w) => sender(retryAgent({ timeoutMs: 1000, minTimeout: 200 }))(w.url),
    scenario({ slowBetMs: 3500, grading: { client_timeout_s: 3 } }),
  ),
);

t.test('the loop over RetryAgent resending the same transaction after R4', (t) =>
  misconfigured(t, MISCONFIGURED.retryOnR4.players, MISCONFIGURED.retryOnR4.fails, (w) =>
    sender(retryAgent(), { resend: ['R1', 'R4'] })(w.url),
  ),
);
