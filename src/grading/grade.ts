import type { JournalEntry } from '../journal/journal.js';
import { money, sum } from '../kernel/money.js';
import type { CheckStatus, OpenRound, Report, ReportCheck, ReportSession } from '../protocol/types.generated.js';
import { count } from '../text/plural.js';
import { listedViolations } from './listed-violations.js';
import { withProviderLeg } from './relayed-evidence.js';
import { arrivalOf, type Attempt } from './attempt.js';
import { CHECKS } from './checks/index.js';
import { Grader, type Reducer } from './grader.js';
import type { Thresholds } from '../core/scenario/thresholds.js';
import type { WalletGrader } from './wallet/wallet-grader.js';

export { MAX_VIOLATIONS } from './tally.js';

const REDUCERS: ReadonlyMap<ReportCheck['id'], Reducer> = new Map(CHECKS.map((c) => [c.id, c.reducer]));

/** A new session's grading state, with the checks of the table. */
export const newGrader = (t: Thresholds, limits?: { transactions: number; rounds: number }) => new Grader(t, REDUCERS, limits);

export interface ReportOptions {
  now: Date;
  scenario: string;
  session: ReportSession;
  /** Only this player's callbacks. */
  userId?: string;
  /** Proxy mode: the operator wallet's side, graded from the upstream's replies (its checks follow the provider's). */
  wallet?: WalletGrader;
  /** Proxy mode: the upstream wallet's URL, named in the report (and in a signed report's annotations). */
  upstream?: string;
}

/**
 * The certification report: reads the session's grading state at the moment `now` (windows that
 * closed by then are judged). Its cost depends on the open rounds and the violations kept, never
 * on the session's length.
 */
export function reportOf(g: Grader, o: ReportOptions): Report {
  g.beforeRead();
  const judged = o.now.getTime() - g.lagMs;
  g.advance(judged);
  // (up to the session's clock: no later than a callback still being decided arrived)
  for (const c of CHECKS) c.reducer.report?.(g, Math.min(g.since(judged), g.clock));
  const user = o.userId;
  const checks: ReportCheck[] = CHECKS.map((c) => {
    const tally = g.tally(c.id);
    const { list, more } = tally.violationsOf(user);
    const exercised = tally.exercised(user);
    const pending = tally.pending(user);
    const status: CheckStatus = list.length || more ? 'fail' : pending ? 'pending' : exercised ? 'pass' : 'not_exercised';
    // Chances (transactions, rounds) that failed, not violations: one resent transaction may raise several.
    const failed = tally.failed(user);
    const excused = tally.excused(user);
    const passed = Math.max(0, exercised - failed - pending - excused);
    const detail =
      status === 'not_exercised'
        ? `not exercised: ${c.idle}`
        : `${count(exercised, c.unit)}: ${passed} passed, ${failed} failed, ${pending} still within a window${excused ? `, ${excused} excused (${c.excused ?? 'not judged'})` : ''}`;
    return {
      id: c.id,
      side: 'provider' as const,
      title: c.title,
      severity: c.severity,
      status,
      exercised,
      detail,
      fix: c.fix,
      violations: listedViolations(list, more, c.id),
    };
  });
  if (o.wallet) checks.push(...(o.upstream === undefined ? o.wallet.checks(user) : withProviderLeg(g, o.wallet.checks(user))));
  const summary = { pass: 0, fail: 0, pending: 0, not_exercised: 0 };
  for (const c of checks) summary[c.status]++;
  const findings: Record<string, number> = {};
  for (const [code, byUser] of g.findings) {
    const n = user === undefined ? [...byUser.values()].reduce((a, b) => a + b, 0) : (byUser.get(user) ?? 0);
    if (n) findings[code] = n;
  }
  return {
    generated_at: o.now.toISOString(),
    scenario: o.scenario,
    session: o.session,
    ...(user === undefined ? {} : { user_id: user }),
    ...(o.upstream === undefined ? {} : { upstream: o.upstream }),
    thresholds: { ...g.t },
    summary,
    checks,
    open_rounds: openRounds(g, o.now.getTime(), user),
    findings,
    timing: g.timing.profile(),
    forgotten: { ...g.forgotten },
  };
}

/** The open rounds, oldest first. The stake counts each applied bet transaction once. */
function openRounds(g: Grader, now: number, user?: string): OpenRound[] {
  return [...g.open.values()]
    .filter((r) => user === undefined || r.user === user)
    .sort((a, b) => a.opener!.at - b.opener!.at)
    .map((r) => ({
      user_id: r.user,
      game_no: r.game,
      stake: sum(r.bets.stakes().map((s) => money(s))).toNumber(),
      opened_at: new Date(g.origin + r.opener!.at).toISOString(),
      age_s: Math.max(0, Math.floor((g.since(now) - r.opener!.at) / 1000)),
    }));
}

/**
 * Folds journal entries (answered ones, and ones still being answered, without replied_at) into a
 * new session's state, in the order things happened, and reports at `now`. For tests and tools that
 * hold a journal; the simulator folds its callbacks as they happen.
 */
export function grade(entries: readonly JournalEntry[], thresholds: Thresholds, now: Date, scenario: string, userId?: string): Report {
  const g = newGrader(thresholds);
  type Step = { at: number; order: number; id: number; run: () => void };
  const steps: Step[] = [];
  const attempts = new Map<number, Attempt>();
  for (const e of entries) {
    const arrival = arrivalOf(e);
    const at = Date.parse(e.received_at);
    steps.push({
      at,
      order: 1,
      id: e.id,
      run: () => {
        if (arrival) attempts.set(e.id, g.arrive(arrival));
        g.count(e.user_id, new Set(e.findings.map((f) => f.code)));
      },
    });
    if (e.replied_at === undefined) continue;
    const end = Date.parse(e.replied_at);
    steps.push({
      at: end,
      order: 0, // a reply written at the same millisecond as an arrival was written first
      id: e.id,
      run: () => {
        const a = attempts.get(e.id);
        if (a)
          g.complete(a, {
            end,
            status: e.reply.status,
            body: e.reply.body,
            dropped: e.reply.dropped,
            clientGone: e.reply.client_gone ?? false,
          });
      },
    });
  }
  steps.sort((a, b) => a.at - b.at || a.order - b.order || a.id - b.id);
  for (const s of steps) s.run();
  return reportOf(g, {
    now,
    scenario,
    session: { id: 'journal', started_at: new Date(steps[0]?.at ?? now.getTime()).toISOString(), seed: null },
    userId,
  });
}

export { CHECKS } from './checks/index.js';
export { DEFAULT_THRESHOLDS, type Thresholds, thresholdsOf } from '../core/scenario/thresholds.js';
