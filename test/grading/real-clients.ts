// Shared by the real-client tests (real-clients-*.test.ts): the certification scenario with small
// windows, a wallet on a real socket, the round-playing script, and the report read over HTTP.
// Only public behaviour is used: POST /callback, GET /admin/report, GET /admin/journal.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { SCENARIOS_DIR } from '../../src/kernel/paths.js';
import type { Scenario } from '../../src/protocol/types.generated.js';
import { bet, buildTestApp, listen, login, result, txid } from '../helpers/app.js';

/**
 * The declared time-out (grading.client_timeout_s = 2) and the well-configured clients' own: 2 s,
 * not 1, so that a loaded machine (test and wallet share one process and two busy cores) does not
 * make an honest client time out on an ordinary reply.
 */
export const TIMEOUT_MS = 2000;
/**
 * Well-configured clients back off 1 s at first: a fetch-based client starts its time-out before the
 * request is even written (on a loaded machine the wallet stamps it hundreds of ms later), and
 * its resend must still come after the declared time-out by the wallet's clock.
 */
/**
 * The slow bet is answered this late: past the 2 s time-out and after a well-configured client's
 * resend (about 3 s), as certification.json's 12 s come after a 10 s time-out and its resend: that
 * resend, made while the first attempt is still unanswered, is NO_PREMATURE_RETRY's chance.
 */
export const SLOW_BET_MS = 4500;
export const GRADING = { client_timeout_s: 2, retry_window_s: 4, min_retry_gap_ms: 500, max_attempts: 10, round_max_age_s: 30 };

const CERT = JSON.parse(readFileSync(join(SCENARIOS_DIR, 'certification.json'), 'utf8')) as Scenario;

/** certification.json: same players and fault rules, the slow bet SLOW_BET_MS late, small windows. */
export function scenario(o: { slowBetMs?: number; grading?: Partial<typeof GRADING> } = {}): Scenario {
  return {
    ...CERT,
    rules: CERT.rules!.map((r) => (r.then.delay_ms ? { ...r, then: { ...r.then, delay_ms: o.slowBetMs ?? SLOW_BET_MS } } : r)),
    grading: { ...GRADING, ...o.grading },
  };
}

export const PLAYERS = ['cert-lost-bet', 'cert-lost-settlement', 'cert-r1-settlement', 'cert-slow-bet', 'cert-r4', 'cert-locked'] as const;
export type Player = (typeof PLAYERS)[number];

export interface Reply {
  code: string;
  latest_balance?: number;
}
export type Callback = { transaction_id: string } & Record<string, unknown>;
/** A client under test: sends one callback, retrying as it is configured to; the reply it finally read, or undefined. */
export type Send = (body: Callback) => Promise<Reply | undefined>;

/** The same callback under a new transaction_id (what a wrapper rebuilding the request on each try sends). */
export const withNewId = (body: Callback): Callback => ({ ...body, transaction_id: txid('rebuilt') });

export interface ReportCheck {
  id: string;
  status: 'pass' | 'fail' | 'pending' | 'not_exercised';
  detail?: string;
  violations: { message: string }[];
}
export interface GradeReport {
  summary: { pass: number; fail: number; pending: number; not_exercised: number };
  checks: ReportCheck[];
}

export interface Wallet {
  base: string;
  url: string;
  report(): Promise<GradeReport>;
  journal(query: Record<string, string>): Promise<any[]>;
  /** Polls the report until `done` holds (bounded); the last report. */
  until(done: (r: GradeReport) => boolean, what: string, ms?: number): Promise<GradeReport>;
}

/** The simulator on a free loopback port with `doc`, closed when the test ends. */
export async function startWallet(t: Test, doc: Scenario = scenario()): Promise<Wallet> {
  const { app } = await buildTestApp(doc);
  t.teardown(() => app.close());
  const base = await listen(app);
  const get = async (path: string) => {
    // Bounded: a read that hangs fails the test, naming what it read.
    const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(10_000) }).catch((e: Error) => {
      throw new Error(`GET ${path}: ${e.message}`);
    });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const report = () => get('/admin/report') as Promise<GradeReport>;
  const journal = async (query: Record<string, string>) => (await get(`/admin/journal?${new URLSearchParams(query)}`)).entries as any[];
  const until = async (done: (r: GradeReport) => boolean, what: string, ms = 10_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const r = await report();
      if (done(r)) return r;
      if (Date.now() > deadline) throw new Error(`still waiting after ${ms} ms for ${what}: ${JSON.stringify(checklist(r))}`);
      await sleep(100);
    }
  };
  return { base, url: `${base}/callback`, report, journal, until };
}

/** Each check as `ID: status`, with its violations: readable in an assertion message. */
export const checklist = (r: GradeReport) =>
  r.checks.map((c) => `${c.id}: ${c.status}${c.violations.length ? ` — ${c.violations.map((v) => v.message).join(' | ')}` : ''}`);
/** The failing checks with their violations' messages. */
export const failing = (r: GradeReport) => checklist(r).filter((_, i) => r.checks[i]!.status === 'fail');
export const check = (r: GradeReport, id: string) => r.checks.find((c) => c.id === id)!;

/**
 * Waits until the wallet answered the slow bet's first attempt (its late reply written, after the
 * client had gone), so the verdict includes it, then until no check is pending.
 */
export async function finalReport(w: Wallet, lateReplies = 1): Promise<GradeReport> {
  const deadline = Date.now() + 10_000;
  while ((await w.journal({ user_id: 'cert-slow-bet', event_type: 'bet' })).filter((e) => e.reply?.client_gone).length < lateReplies) {
    if (Date.now() > deadline) throw new Error("the slow bet's late reply was never written");
    await sleep(100);
  }
  return w.until((r) => r.summary.pending === 0, 'no pending check');
}

/** Waits until check `id` is decided (not pending: a window closed), bounded. */
export const decided = (w: Wallet, ids: string[]) =>
  w.until((r) => ids.every((id) => check(r, id).status !== 'pending'), `${ids.join(', ')} decided`);

/** Asserts that each check in `ids` fails, showing the whole checklist when one does not. */
export function assertFails(t: Test, r: GradeReport, ids: string[]): void {
  for (const id of ids) t.equal(check(r, id).status, 'fail', `${id} fails`, { checklist: checklist(r) });
}

/**
 * The well-behaved provider's script of certification.json's description: login (again after a
 * refusal), bet 10 on a new game_no, settle only after an R0 bet reply (a loss), and after an R4
 * bet at most the reported balance on a new game_no. Players play concurrently.
 */
export async function play(send: Send, players: readonly Player[] = PLAYERS): Promise<void> {
  const usd = { currency: 'USD' };
  const round = async (user: string, game: string, amount: number) => {
    const b = await send(bet(user, game, [['1', 'P', amount]], usd));
    if (b?.code === 'R0') await send(result(user, game, [['1', 'P', amount, -amount]], usd));
    return b;
  };
  await Promise.all(
    players.map(async (user) => {
      let l = await send(login(user));
      if (l?.code === 'R2' || l?.code === 'R3') l = await send(login(user)); // a new login, not a retry
      if (l?.code !== 'R0') return;
      const b = await round(user, `${user}-G1`, 10);
      if (b?.code === 'R4') await round(user, `${user}-G2`, Math.min(5, b.latest_balance ?? 0));
    }),
  );
}

/** The checks a well-configured client's retries exercise: they must pass, not merely not fail. */
export const RETRY_CHECKS = [
  'LOST_REPLY_RETRIED',
  'RETRY_SAME_TRANSACTION',
  'RETRY_UNCHANGED',
  'FAILED_SETTLEMENT_RETRIED',
  'NO_PREMATURE_RETRY',
  'RETRY_BACKOFF',
];

/** Plays every certification player with `send` and asserts zero failing checks. */
export async function wellBehaved(t: Test, send: (w: Wallet) => Send, doc = scenario()): Promise<void> {
  const w = await startWallet(t, doc);
  await play(send(w));
  const r = await finalReport(w);
  t.same(failing(r), [], 'no failing check');
  t.same(
    RETRY_CHECKS.map((id) => `${id}: ${check(r, id).status}`),
    RETRY_CHECKS.map((id) => `${id}: pass`),
    "the client's retries were exercised and passed",
    { checklist: checklist(r) },
  );
}

/** The misconfigurations every library is tried with, the players that show each, and the checks that must fail. */
export const MISCONFIGURED = {
  noRetry: { players: ['cert-lost-bet', 'cert-r1-settlement'], fails: ['LOST_REPLY_RETRIED', 'FAILED_SETTLEMENT_RETRIED'] },
  newIdPerTry: { players: ['cert-lost-bet', 'cert-r4'], fails: ['RETRY_SAME_TRANSACTION', 'NO_RETRY_AFTER_REFUSAL'] },
  noBackoff: { players: ['cert-lost-bet', 'cert-r1-settlement'], fails: ['RETRY_BACKOFF'] },
  shortTimeout: { players: ['cert-slow-bet'], fails: ['NO_PREMATURE_RETRY'] },
  retryOnR4: { players: ['cert-r4'], fails: ['NO_RETRY_AFTER_REFUSAL'] },
} satisfies Record<string, { players: Player[]; fails: string[] }>;

/**
 * A loaded machine: `n` other processes spinning on the CPU until the test ends, so the wallet's
 * event loop runs late and its stamps with it: a resend at once must still fail RETRY_BACKOFF.
 * (Not below 500 ms here: client and wallet share this starved process, so on a busy 2-core
 * machine even a resend at once truly arrives 30–160 ms later; the gap's tolerance at 100 ms and
 * lags up to 250 ms is shown with stamps in test/grading/fold.test.ts.)
 */
export function cpuHog(t: Test, n = 2): void {
  for (let i = 0; i < n; i++) {
    const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    t.teardown(() => {
      hog.kill('SIGKILL');
    });
  }
}

/** Plays `players` with a misconfigured `send`; once the named checks are decided, each fails. */
export async function misconfigured(
  t: Test,
  players: readonly Player[],
  fails: string[],
  send: (w: Wallet) => Send,
  doc = scenario(),
): Promise<void> {
  const w = await startWallet(t, doc);
  await play(send(w), players);
  assertFails(t, await decided(w, fails), fails);
}
