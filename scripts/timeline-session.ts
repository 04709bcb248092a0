// A real session whose report has a picture to show for each kind of mark: a bet whose reply was
// dropped and that was never resent, a bet resent by a client that gave up long before its declared
// time-out (the first reply held by a rule), a bet whose reply was dropped and that came back under
// a new transaction_id, and a bet refused with a forced code and resent anyway. Driven over HTTP as
// a provider sends callbacks. Used by scripts/screenshots.ts (docs/certification.md's pictures) and
// test/timeline-browser.test.ts, so the pictures in the docs are those the tests check.
import type { Scenario } from '../src/protocol/types.generated.js';

export const CREDENTIALS = { api_id: 'sandbox', api_key: 'sandbox-key' };
const HEADERS = {
  'content-type': 'application/json',
  'api-id': CREDENTIALS.api_id,
  'api-key': CREDENTIALS.api_key,
  'callback-url': 'http://provider.test/callback',
};

/** docs/certification.md's pictures of this session (scripts/screenshots.ts writes them to docs/images/): file → what it shows. */
export const SHOTS = {
  'timeline-report-lost.png': 'the HTML report: a bet reply dropped and never resent (LOST_REPLY_RETRIED)',
  'timeline-report-premature.png': 'the HTML report: a resend long before the declared time-out (NO_PREMATURE_RETRY)',
  'timeline-report-new-id.png': 'the HTML report: a resend under a new transaction_id (RETRY_SAME_TRANSACTION)',
  'timeline-report-histogram.png': "the HTML report: the retry gaps' histogram",
  'timeline-dashboard.png': "the dashboard's check detail: RETRY_SAME_TRANSACTION's timelines",
} as const;

/** How long the rule holds the first reply of the impatient client's bet (well past its resend). */
export const HELD_MS = 6000;

/** The session's scenario: one player per story, a rule per fault. */
export const TIMELINE_SCENARIO: Scenario = {
  name: 'timelines',
  description: 'A session with a picture for each mark of a timeline (scripts/timeline-session.ts).',
  credentials: CREDENTIALS,
  currencies: { USD: 2 },
  defaults: { currency: 'USD', balance: 1000, auto_create_players: true },
  players: ['lost', 'eager', 'newid', 'stubborn'].map((user_id) => ({ user_id, balance: 1000, currency: 'USD' })),
  rules: [
    { name: 'lost bet reply', when: { event_type: 'bet', user_id: 'lost' }, then: { drop_connection: true }, times: 1 },
    { name: 'slow bet reply', when: { event_type: 'bet', user_id: 'eager' }, then: { delay_ms: HELD_MS }, times: 1 },
    { name: 'lost bet reply, then a new id', when: { event_type: 'bet', user_id: 'newid' }, then: { drop_connection: true }, times: 1 },
    { name: 'refused bet', when: { event_type: 'bet', user_id: 'stubborn' }, then: { code: 'R4' }, times: 1 },
  ],
  // A short retry window (the lost reply fails within seconds), a time-out the impatient client ignores.
  grading: { retry_window_s: 2, client_timeout_s: 8, min_retry_gap_ms: 500, max_attempts: 10, round_max_age_s: 600 },
};

let seq = 0;
// Readable ids (a fresh simulator per session): "eager-bet-6".
const id = (what: string) => `${what}-${++seq}`;
const stamp = () => Math.floor(Date.now() / 1000);

const login = (user_id: string) => ({
  transaction_id: id(`${user_id}-login`),
  event_type: 'login',
  timestamp: stamp(),
  feedback_data: 'fb',
  user_id,
});
const bet = (user_id: string, game_no: string, amount = 10) => ({
  transaction_id: id(`${user_id}-bet`),
  event_type: 'bet',
  timestamp: stamp(),
  feedback_data: 'fb',
  user_id,
  data: {
    currency: 'USD',
    game_type: 'BAC',
    table_no: 'T1',
    game_no,
    total_bet_amount: amount,
    bets: [{ bet_index: '1', bet_type: 'P', bet_amount: amount }],
  },
});

/** Sends a callback; resolves to its HTTP status, or 0 when the connection closed (or was given up) without a reply. */
async function send(url: string, body: object, signal?: AbortSignal): Promise<number> {
  try {
    const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body), signal });
    await res.text();
    return res.status;
  } catch {
    return 0;
  }
}

/** Polls `ready` every 25 ms until it holds, up to `ms` (a state awaited, never a time). */
async function until(what: string, ready: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timeline session: ${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The admin API's JSON (GET). */
async function admin<T>(base: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

export interface PlayedSession {
  /** The transaction_ids of each story. */
  lost: string;
  eager: string;
  dropped: string;
  renamed: string;
  refused: string;
}

/**
 * Plays the session against the simulator at `base` (its callback at `${base}/callback`), then waits
 * until the report has decided what the pictures show: both lost replies' windows ran out.
 */
export async function playTimelineSession(base: string): Promise<PlayedSession> {
  const cb = `${base}/callback`;
  for (const user of ['lost', 'eager', 'newid', 'stubborn']) await send(cb, login(user));

  // A bet whose reply is dropped, never resent.
  const lost = bet('lost', 'G-lost');
  await send(cb, lost);

  // An impatient client: it gives up on its bet at once and resends it while the reply is held.
  const eager = bet('eager', 'G-eager');
  const giveUp = new AbortController();
  const first = send(cb, eager, giveUp.signal);
  // It arrived when the wallet has debited it (its reply is what the rule holds).
  await until('the held bet applied', async () => (await admin<{ balance: number }>(base, '/admin/players/eager')).balance < 1000);
  giveUp.abort();
  await first;
  await send(cb, { ...eager });

  // A bet whose reply is dropped, sent again under a new transaction_id for the same round.
  const dropped = bet('newid', 'G-newid');
  await send(cb, dropped);
  const renamed = { ...bet('newid', 'G-newid'), timestamp: dropped.timestamp };
  await send(cb, renamed);

  // A bet refused by a forced code, resent anyway.
  const refused = bet('stubborn', 'G-stubborn');
  await send(cb, refused);
  await send(cb, { ...refused });

  // Both lost replies' retry windows ran out (the rounds stay open: ROUNDS_SETTLED is pending, as it should be).
  type Report = { checks: { id: string; violations: unknown[] }[] };
  await until('both lost replies judged', async () => {
    const r = await admin<Report>(base, '/admin/report');
    return (r.checks.find((c) => c.id === 'LOST_REPLY_RETRIED')?.violations.length ?? 0) >= 2;
  });
  return {
    lost: lost.transaction_id,
    eager: eager.transaction_id,
    dropped: dropped.transaction_id,
    renamed: renamed.transaction_id,
    refused: refused.transaction_id,
  };
}
