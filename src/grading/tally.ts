import type { CheckId, ReportViolation } from '../protocol/types.generated.js';
import type { Attempt } from './attempt.js';
import { excerptOf } from './evidence.js';
import type { Player } from './model.js';

/** Violations kept per check (the rest are counted); journal ids kept per violation. */
export const MAX_VIOLATIONS = 100;
const MAX_IDS = 50;

/** What one check has seen so far in the session: per player, so a report can be limited to one. */
export class Tally {
  /** Chances in all. Each player's are counted on the player (`chances[index]`), which the callback's checks have looked up already. */
  private chances = 0;
  readonly violations: ReportViolation[] = [];
  /** Violations beyond MAX_VIOLATIONS, per player. */
  private readonly moreBy = new Map<string, number>();
  /** Open windows: key → the player. */
  private readonly pendingBy = new Map<string, string>();
  /** Chances the provider could not be judged on (the check's `excused` says why), per player: few, so a Map. */
  private readonly excusedBy = new Map<string, number>();

  /** Grows with every change: the dashboard is told of a change when the session's sum grows. */
  version = 0;

  /**
   * `players`: the session's players, looked up (`get`) or made when new (`of`); `origin`: the
   * session's origin of time, which its attempts' times count from.
   */
  constructor(
    readonly id: CheckId,
    private readonly index: number,
    private readonly players: { get(user: string): Player | undefined; of(user: string): Player },
    private readonly origin = 0,
    /** The session's time (since `origin`) of the event being folded: when a violation found now was decided. */
    private readonly now: () => number = () => NaN,
  ) {}

  exercise(user: string): void {
    this.version++;
    this.chances++;
    this.players.of(user).chances[this.index]!++;
  }

  /**
   * A violation citing `attempts` (its player and transaction taken from the first unless given),
   * decided now (the event being folded) or at `decidedAt` (session time: a deadline a report found passed).
   */
  violate(message: string, attempts: readonly Attempt[], tx?: string, decidedAt?: number): void {
    this.version++;
    const first = attempts[0];
    const user = first?.user ?? '';
    if (this.violations.length >= MAX_VIOLATIONS) {
      this.moreBy.set(user, (this.moreBy.get(user) ?? 0) + 1);
      return;
    }
    const cited = [...new Map(attempts.map((a) => [a.id, a])).values()].slice(0, MAX_IDS);
    const v: ReportViolation = { message, journal_ids: cited.map((a) => a.id) };
    const decided = decidedAt ?? this.now();
    if (Number.isFinite(decided)) v.decided_at = new Date(this.origin + decided).toISOString();
    if (first) v.user_id = first.user;
    const transaction = tx ?? first?.tx;
    if (transaction !== undefined) v.transaction_id = transaction;
    // Evidence outlives the journal: bounded, masked excerpts of what it cites, taken now.
    v.evidence = cited.slice(0, 4).map((a) => excerptOf(a, this.origin));
    this.violations.push(v);
  }

  pend(key: string, user: string): void {
    if (!this.pendingBy.has(key)) this.version++;
    this.pendingBy.set(key, user);
  }

  unpend(key: string): void {
    if (this.pendingBy.delete(key)) this.version++;
  }

  /** One of the player's chances is excused: counted apart, neither passed nor failed. */
  excuse(user: string): void {
    this.version++;
    this.excusedBy.set(user, (this.excusedBy.get(user) ?? 0) + 1);
  }

  excused(user?: string): number {
    if (user !== undefined) return this.excusedBy.get(user) ?? 0;
    let n = 0;
    for (const k of this.excusedBy.values()) n += k;
    return n;
  }

  exercised(user?: string): number {
    return user === undefined ? this.chances : (this.players.get(user)?.chances[this.index] ?? 0);
  }

  pending(user?: string): number {
    if (user === undefined) return this.pendingBy.size;
    let n = 0;
    for (const u of this.pendingBy.values()) if (u === user) n++;
    return n;
  }

  /** The violations of one player or all, and how many more there were beyond those kept. */
  violationsOf(user?: string): { list: ReportViolation[]; more: number } {
    const list = user === undefined ? this.violations : this.violations.filter((v) => v.user_id === user);
    let more = 0;
    for (const [u, n] of this.moreBy) if (user === undefined || u === user) more += n;
    return { list, more };
  }
}

/** Counts each finding code of one journalled callback against its player (`findings`: code → player → count). */
export function countFindings(findings: Map<string, Map<string, number>>, user: string | undefined, codes: Iterable<string>): void {
  for (const code of codes) {
    let byUser = findings.get(code);
    if (!byUser) findings.set(code, (byUser = new Map()));
    byUser.set(user ?? '', (byUser.get(user ?? '') ?? 0) + 1);
  }
}
