// p-retry wrapping fetch as a provider's callback client: each try with AbortSignal.timeout at the
// declared time-out, a lost reply or R1 thrown so that p-retry resends the same body after a
// growing back-off. Then misconfigured.
import pRetry from 'p-retry';
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

class Retryable extends Error {
  constructor(readonly reply: Reply) {
    super(`reply ${reply.code}`);
  }
}

/** One try: fetch with its own time-out; the reply, or a throw (no reply, or a code in `retryOn`). */
async function post(url: string, body: Callback, timeoutMs: number, retryOn: string[]): Promise<Reply> {
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  const reply = (await res.json()) as Reply;
  if (retryOn.includes(reply.code)) throw new Retryable(reply);
  return reply;
}

interface Options {
  timeoutMs?: number;
  minTimeout?: number;
  retryOn?: string[];
  /** The try builds the callback anew (a new transaction_id) each time. */
  rebuild?: boolean;
  /** The try catches its own errors: p-retry never sees a failure. */
  swallow?: boolean;
  retries?: number;
}

const sender =
  (o: Options = {}) =>
  (url: string): Send =>
  async (first: Callback) => {
    let tries = 0;
    try {
      return await pRetry(
        async () => {
          const body = o.rebuild && tries++ > 0 ? withNewId(first) : first;
          try {
            return await post(url, body, o.timeoutMs ?? TIMEOUT_MS, o.retryOn ?? ['R1']);
          } catch (e) {
            if (o.swallow) return e instanceof Retryable ? e.reply : undefined;
            throw e;
          }
        },
        { retries: o.retries ?? 5, minTimeout: o.minTimeout ?? 1000, factor: 2 },
      );
    } catch (e) {
      return e instanceof Retryable ? e.reply : undefined;
    }
  };

t.test('p-retry + fetch, well configured: no failing check on certification.json', (t) => wellBehaved(t, (w) => sender()(w.url)));

t.test('p-retry around a try that catches its own errors: nothing is ever resent', (t) =>
  misconfigured(t, MISCONFIGURED.noRetry.players, MISCONFIGURED.noRetry.fails, (w) => sender({ swallow: true })(w.url)),
);

t.test('p-retry around a try that builds the callback (new transaction_id) each time, any code but R0 retried', (t) =>
  misconfigured(t, MISCONFIGURED.newIdPerTry.players, MISCONFIGURED.newIdPerTry.fails, (w) =>
    sender({ rebuild: true, retries: 2, retryOn: ['R1', 'R2', 'R3', 'R4'] })(w.url),
  ),
);

t.test('p-retry with minTimeout 0 beside a CPU hog', (t) => {
  cpuHog(t);
  return misconfigured(t, MISCONFIGURED.noBackoff.players, MISCONFIGURED.noBackoff.fails, (w) => sender({ minTimeout: 0 })(w.url));
});

t.test('p-retry + fetch with AbortSignal.timeout(300) while 2 s is declared', (t) =>
  misconfigured(t, MISCONFIGURED.shortTimeout.players, MISCONFIGURED.shortTimeout.fails, (w) =>
    sender({ timeoutMs: 300, minTimeout: 200 })(w.url),
  ),
);

t.test('p-retry resending the same transaction after R4', (t) =>
  misconfigured(t, MISCONFIGURED.retryOnR4.players, MISCONFIGURED.retryOnR4.fails, (w) =>
    sender({ retries: 2, retryOn: ['R1', 'R4'] })(w.url),
  ),
);
