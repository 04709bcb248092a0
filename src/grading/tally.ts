import type { CheckId, ReportEvidence, ReportViolation } from '../protocol/types.generated.js';
import type { Attempt } from './attempt.js';
import { excerptOf } from './evidence.js';
import { mark, type Player } from './model.js';

/** Violations kept per check (the rest are counted); journal ids kept per violation; excerpts kept per violation. */
export const MAX_VIOLATIONS = 100;
const MAX_IDS = 50;
const MAX_EXCERPTS = 4;

/**
 * The cited attempts whose excerpts a violation keeps: all of a few; of more, the first ones and the
 * last (the attempt that decided it comes last: a timeline without it would show the lead-up only).
 */
const excerpted = <T>(cited: readonly T[]): T[] =>
  cited.length <= MAX_EXCERPTS ? [...cited] : [...cited.slice(0, MAX_EXCERPTS - 1), cited[cited.length - 1]!];

/** What one check has seen so far in the session: per player, so a report can be limited to one. */
export class Tally {
  /** Chances in all. Each player's are counted on the player (`chances[index]`), which the callback's checks have looked up already. */
  private chances = 0;
  readonly violations: ReportViolation[] = [];
  /** Violations beyond MAX_VIOLATIONS, per player. */
  private readonly moreBy = new Map<string, number>();
  /** Chances that failed, per player: one chance (a transaction, a round) may raise several violations. */
  private readonly failedBy = new Map<string, number>();
  /** Open windows: key → the player. */
  private readonly pendingBy = new Map<string, string>();
  /** Chances the provider could not be judged on (the check's `excused` says why), per player: few, so a Map. */
  private readonly excusedBy = new Map<string, number>();

  /**
   * Excerpts of attempts not answered yet when cited (a reply still held or being written): taken
   * again when a report reads them, so the evidence shows what became of the reply (a timeline draws
   * an answered resend as answered); the message keeps what was true when the check decided.
   */
  private readonly unwritten: { evidence: ReportEvidence[]; at: number; a: Attempt }[] = [];

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
   * `chance`: the transaction or round it fails, counted once however many violations it raises (each
   * violation is a chance of its own without it). Returns the violation when it is kept.
   */
  violate(
    message: string,
    attempts: readonly Attempt[],
    tx?: string,
    decidedAt?: number,
    chance?: { marks?: string[] },
  ): ReportViolation | undefined {
    this.version++;
    const first = attempts[0];
    const user = first?.user ?? '';
    if (!chance || mark(chance, `${this.id}:failed-chance`)) this.failedBy.set(user, (this.failedBy.get(user) ?? 0) + 1);
    if (this.violations.length >= MAX_VIOLATIONS) {
      this.moreBy.set(user, (this.moreBy.get(user) ?? 0) + 1);
      return undefined;
    }
    const cited = [...new Map(attempts.map((a) => [a.id, a])).values()].slice(0, MAX_IDS);
    const v: ReportViolation = { message, journal_ids: cited.map((a) => a.id) };
    const decided = decidedAt ?? this.now();
    if (Number.isFinite(decided)) v.decided_at = new Date(this.origin + decided).toISOString();
    if (first) v.user_id = first.user;
    const transaction = tx ?? first?.tx;
    if (transaction !== undefined) v.transaction_id = transaction;
    // Evidence outlives the journal: bounded, masked excerpts of what it cites, taken now.
    const evidence = (v.evidence = excerpted(cited).map((a) => excerptOf(a, this.origin)));
    excerpted(cited).forEach((a, at) => this.follow(evidence, at, a));
    this.violations.push(v);
    return v;
  }

  /**
   * What happened after a violation was decided, added to it: `words` appended to its message (a
   * past fact, so the message stays true), and `a` cited, its excerpt taken now (replacing the one
   * taken before, when the attempt was cited already).
   */
  amend(v: ReportViolation, words: string, a: Attempt): void {
    this.version++;
    v.message += words;
    if (!v.journal_ids.includes(a.id) && v.journal_ids.length < MAX_IDS) v.journal_ids.push(a.id);
    const evidence = (v.evidence ??= []);
    const at = evidence.findIndex((e) => e.journal_id === a.id);
    const excerpt = excerptOf(a, this.origin);
    if (at >= 0) evidence[at] = excerpt;
    else if (evidence.length < MAX_EXCERPTS) evidence.push(excerpt);
    this.follow(evidence, at >= 0 ? at : evidence.length - 1, a);
  }

  private follow(evidence: ReportEvidence[], at: number, a: Attempt): void {
    if (a.end === undefined && evidence[at]?.journal_id === a.id) this.unwritten.push({ evidence, at, a });
  }

  /** The excerpts of attempts cited unanswered, taken again where their reply was written or their caller left since. */
  private refresh(): void {
    for (let i = this.unwritten.length - 1; i >= 0; i--) {
      const { evidence, at, a } = this.unwritten[i]!;
      if (a.end === undefined && a.closedAt === undefined) continue;
      evidence[at] = excerptOf(a, this.origin);
      if (a.end !== undefined) this.unwritten.splice(i, 1);
    }
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

  /** The chances that failed (a transaction or round that raised violations counts once). */
  failed(user?: string): number {
    if (user !== undefined) return this.failedBy.get(user) ?? 0;
    let n = 0;
    for (const k of this.failedBy.values()) n += k;
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
    if (this.unwritten.length) this.refresh();
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
