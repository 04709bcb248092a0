// Sessions and the timing edge, played by a well-configured got client over real sockets:
// - a reset (each route) while a delayed bet is in flight: the new session grades only its own play;
// - a client whose time-out is exactly the declared one and resends at once is not premature, also
//   when the wallet stamps the first attempt's arrival later than the client sent it.
import { Agent } from 'node:http';
import { createServer, connect, type Socket } from 'node:net';
import got from 'got';
import t, { type Test } from 'tap';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { bet, HEADERS, login, result } from '../helpers/app.js';
import {
  check,
  checklist,
  failing,
  finalReport,
  GRADING,
  type Reply,
  scenario,
  type Send,
  startWallet,
  TIMEOUT_MS,
} from './real-clients.js';

const usd = { currency: 'USD' };
const PLAYER = 'cert-slow-bet';

/** got as the well-configured client: the declared time-out, POST retried on time-out and reset. */
function gotSend(url: string, o: { retryDelayMs?: number; agent?: Agent } = {}): Send {
  const http = got.extend({
    headers: HEADERS,
    responseType: 'json',
    timeout: { request: TIMEOUT_MS },
    agent: o.agent ? { http: o.agent } : {},
    retry: {
      limit: 5,
      methods: ['POST'],
      statusCodes: [],
      errorCodes: ['ETIMEDOUT', 'ECONNRESET', 'EPIPE'],
      calculateDelay: ({ computedValue }) => (computedValue && o.retryDelayMs !== undefined ? o.retryDelayMs : computedValue),
    },
  });
  return async (body) => {
    try {
      return (await http.post(url, { json: body })).body as unknown as Reply;
    } catch {
      return undefined;
    }
  };
}

/** login, bet 10 on `game`, settle after an R0 bet reply. */
async function round(send: Send, game: string): Promise<void> {
  const l = await send(login(PLAYER));
  if (l?.code !== 'R0') throw new Error(`login: ${JSON.stringify(l)}`);
  const b = await send(bet(PLAYER, game, [['1', 'P', 10]], usd));
  if (b?.code !== 'R0') throw new Error(`bet: ${JSON.stringify(b)}`);
  await send(result(PLAYER, game, [['1', 'P', 10, -10]], usd));
}

/** Every bet of the player answered 500 ms late (within the 2 s time-out), in every session. */
const DELAYED: Scenario = {
  ...scenario(),
  rules: [{ name: 'delayed bet', when: { event_type: 'bet', user_id: PLAYER }, then: { delay_ms: 500 } }],
  grading: GRADING,
};

const RESETS: [string, (base: string) => Promise<Response>, string][] = [
  ['POST /admin/reset', (base) => fetch(`${base}/admin/reset`, { method: 'POST' }), 'G1'],
  // The wallet keeps its rounds (only the journal starts over): the new run bets on a new game.
  ['DELETE /admin/journal', (base) => fetch(`${base}/admin/journal`, { method: 'DELETE' }), 'G2'],
  [
    'PUT /admin/scenario?reset=true',
    (base) =>
      fetch(`${base}/admin/scenario?reset=true`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(DELAYED),
      }),
    'G1',
  ],
];

// The three routes side by side (a wallet each; the bets' 500 ms delay is well within the 2 s time-out).
t.test('a reset while a bet is in flight, by each route', { jobs: 3 }, async (t) => {
  for (const [route, reset, game] of RESETS) {
    t.test(`${route} while a bet is in flight: the new session grades only its own play`, async (t) => {
      const w = await startWallet(t, DELAYED);
      const send = gotSend(w.url);
      // The old run: logged in, its bet delayed; the tester stops that run and resets.
      t.equal((await send(login(PLAYER)))?.code, 'R0');
      const stop = new AbortController();
      const old = fetch(w.url, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify(bet(PLAYER, 'G1', [['1', 'P', 10]], usd)),
        signal: stop.signal,
      }).catch(() => undefined);
      await until(
        async () =>
          (
            (await (await fetch(`${w.base}/admin/scenario/rules`, { signal: AbortSignal.timeout(10_000) })).json()) as { fired: number }[]
          )[0]!.fired >= 1,
      );
      t.ok((await reset(w.base)).ok, `${route} answered`);
      stop.abort();
      await old;
      // The new run: its bet is delayed too and arrived later, so when it is answered the old bet's
      // late reply has been written.
      await round(send, game);
      // Every callback of the new run was answered; on a slow machine a got retry may still hold a
      // window open for a moment, so wait (bounded) for no pending check rather than read once.
      const r = await w.until((r) => r.summary.pending === 0, 'no pending check');
      t.same(failing(r), [], 'no failing check in the new session');
      t.same(
        ['LOGIN_BEFORE_BET', 'ROUNDS_SETTLED', 'ONE_SETTLEMENT_PER_ROUND'].map((id) => `${id}: ${check(r, id).status}`),
        ['LOGIN_BEFORE_BET: pass', 'ROUNDS_SETTLED: pass', 'ONE_SETTLEMENT_PER_ROUND: pass'],
        "the new session's own play is graded",
        { checklist: checklist(r) },
      );
    });
  }
});

async function until(done: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A TCP relay to `target` adding latency from the client to the wallet: the n-th connection's
 * bytes (and its close) reach the wallet `delays[n]` ms late.
 */
async function latency(t: Test, target: string, delays: number[]): Promise<string> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const delay = delays.shift() ?? 0;
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    client.on('data', (chunk) => setTimeout(() => upstream.write(chunk), delay));
    client.on('close', () => setTimeout(() => upstream.destroy(), delay));
    upstream.on('data', (chunk) => client.write(chunk));
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    relay.close();
  });
  return `http://127.0.0.1:${(relay.address() as { port: number }).port}/callback`;
}

const slowBetOnly = async (t: Test, url: (w: Awaited<ReturnType<typeof startWallet>>) => Promise<string>, agent?: Agent) => {
  const w = await startWallet(t);
  const send = gotSend(await url(w), { retryDelayMs: 1, agent }); // resends as soon as its 2 s time-out fires
  await round(send, 'G1');
  const r = await finalReport(w);
  t.equal(check(r, 'NO_PREMATURE_RETRY').status, 'pass', 'the resend at the declared time-out is not premature', {
    checklist: checklist(r),
  });
  t.same(failing(r), [], 'no failing check');
};

t.test('time-out exactly the declared 2 s, resent at once: not premature', (t) => slowBetOnly(t, async (w) => w.url));

t.test('the same with 30 ms of latency on the first attempt (the wallet stamps its arrival later)', (t) =>
  // One connection per attempt: login, the bet (delayed 30 ms on its way), its resend, the settlement.
  slowBetOnly(t, (w) => latency(t, w.url, [0, 30]), new Agent({ keepAlive: false })),
);
