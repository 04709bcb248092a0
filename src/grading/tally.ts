import type { CheckId, ReportViolation } from '../protocol/types.generated.js';
import type { Attempt } from './attempt.js';
import { excerptOf } from './evidence.js';

/** Violations kept per check (the rest are counted); journal ids kept per violation. */
export const MAX_VIOLATIONS = 100;
const MAX_IDS = 50;

/** What one check has seen so far in the session: per player, so a report can be limited to one. */
export class Tally {
  /** Chances per player: a counter each, so a chance costs one lookup. */
  private readonly exercisedBy = new Map<string, { n: number }>();
  readonly violations: ReportViolation[] = [];
  /** The counter of the player who had the latest chance: a player's callbacks come in runs. */
  private lastUser: string | undefined;
  private lastCount: { n: number } | undefined;
  /** Violations beyond MAX_VIOLATIONS, per player. */
  private readonly moreBy = new Map<string, number>();
  /** Open windows: key → the player. */
  private readonly pendingBy = new Map<string, string>();

  /** Grows with every change: the dashboard is told of a change when the session's sum grows. */
  version = 0;

  constructor(readonly id: CheckId) {}

  exercise(user: string): void {
    this.version++;
    if (user !== this.lastUser) {
      this.lastUser = user;
      this.lastCount = this.exercisedBy.get(user);
      if (!this.lastCount) this.exercisedBy.set(user, (this.lastCount = { n: 0 }));
    }
    this.lastCount!.n++;
  }

  /** A violation citing `attempts` (its player and transaction taken from the first unless given). */
  violate(message: string, attempts: readonly Attempt[], tx?: string): void {
    this.version++;
    const first = attempts[0];
    const user = first?.user ?? '';
    if (this.violations.length >= MAX_VIOLATIONS) {
      this.moreBy.set(user, (this.moreBy.get(user) ?? 0) + 1);
      return;
    }
    const cited = [...new Map(attempts.map((a) => [a.id, a])).values()].slice(0, MAX_IDS);
    const v: ReportViolation = { message, journal_ids: cited.map((a) => a.id) };
    if (first) v.user_id = first.user;
    const transaction = tx ?? first?.tx;
    if (transaction !== undefined) v.transaction_id = transaction;
    // Evidence outlives the journal: bounded, masked excerpts of what it cites, taken now.
    v.evidence = cited.slice(0, 4).map(excerptOf);
    this.violations.push(v);
  }

  pend(key: string, user: string): void {
    if (!this.pendingBy.has(key)) this.version++;
    this.pendingBy.set(key, user);
  }

  unpend(key: string): void {
    if (this.pendingBy.delete(key)) this.version++;
  }

  exercised(user?: string): number {
    if (user !== undefined) return this.exercisedBy.get(user)?.n ?? 0;
    let n = 0;
    for (const v of this.exercisedBy.values()) n += v.n;
    return n;
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
