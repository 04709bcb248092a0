import { HEADER } from '../../protocol/seed/wire.js';
import type { ReportEvidence, ReportViolation } from '../../protocol/types.generated.js';
import type { NoReplyCause, WalletAnswer, WalletExchange } from './exchange.js';

/** Violations kept per check (the rest are counted). */
const MAX_VIOLATIONS = 100;
const EXCERPT_CHARS = 2000;

/** One check's chances and violations, per player. */
export class WalletTally {
  private readonly chances = new Map<string, number>();
  private total = 0;
  private readonly kept: ReportViolation[] = [];
  private readonly moreBy = new Map<string, number>();
  /** The kinds of no-reply among the violations, per player (the fix follows them). */
  private readonly causes = new Map<string, Set<NoReplyCause>>();

  exercise(user: string): void {
    this.total++;
    this.chances.set(user, (this.chances.get(user) ?? 0) + 1);
  }

  violate(message: string, x: WalletExchange, a: WalletAnswer): void {
    this.violateAll(message, [[x, a]]);
  }

  /** One violation citing several exchanges (a history of overlapping callbacks): the first names the player. */
  violateAll(message: string, cited: readonly (readonly [WalletExchange, WalletAnswer])[]): void {
    const [x, a] = cited[0]!;
    const user = x.user ?? '';
    if (a.kind === 'none' && a.cause) {
      let set = this.causes.get(user);
      if (!set) this.causes.set(user, (set = new Set()));
      set.add(a.cause);
    }
    if (this.kept.length >= MAX_VIOLATIONS) {
      this.moreBy.set(user, (this.moreBy.get(user) ?? 0) + 1);
      return;
    }
    const v: ReportViolation = {
      message,
      journal_ids: cited.map(([c]) => c.id),
      evidence: cited.map(([c, answer]) => evidenceOf(c, answer)),
    };
    // Decided when the last cited answer came (or the wait for it ended).
    v.decided_at = new Date(Math.max(...cited.map(([, answer]) => answer.at))).toISOString();
    if (x.user !== undefined) v.user_id = x.user;
    if (x.tx !== undefined) v.transaction_id = x.tx;
    this.kept.push(v);
  }

  /** `n` violations of `user` not kept (only counted), each a chance too: what was held past its bound. */
  violatedUncited(user: string, n: number): void {
    this.total += n;
    this.chances.set(user, (this.chances.get(user) ?? 0) + n);
    this.moreBy.set(user, (this.moreBy.get(user) ?? 0) + n);
  }

  exercised(user?: string): number {
    return user === undefined ? this.total : (this.chances.get(user) ?? 0);
  }

  /** The kinds of no-reply among the violations (all players', or one's). */
  causesOf(user?: string): Set<NoReplyCause> {
    const out = new Set<NoReplyCause>();
    for (const [u, set] of this.causes) if (user === undefined || u === user) for (const c of set) out.add(c);
    return out;
  }

  violationsOf(user?: string): { list: ReportViolation[]; more: number } {
    const list = user === undefined ? this.kept : this.kept.filter((v) => v.user_id === user);
    let more = 0;
    for (const [u, n] of this.moreBy) if (user === undefined || u === user) more += n;
    return { list, more };
  }
}

const cut = (text: string) => (text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}… (${text.length} characters)`);

/**
 * What a violation keeps of the exchange it cites: the upstream leg (sent, answered or not), the
 * request body and the reply as it came (the Api-Key header masked).
 */
function evidenceOf(x: WalletExchange, a: WalletAnswer): ReportEvidence {
  const e: ReportEvidence = { journal_id: x.id, received_at: new Date(x.sentAt).toISOString() };
  e.replied_at = new Date(a.at).toISOString();
  e.leg = 'upstream';
  if (x.tx !== undefined) e.transaction_id = x.tx;
  if (x.event !== undefined) e.event_type = x.event;
  e.fate = a.kind === 'none' ? 'no_reply' : 'written';
  e.request = cut(JSON.stringify({ body: x.body ?? null }));
  if (a.kind === 'none') e.reply = cut(JSON.stringify({ none: a.why }));
  else {
    const headers = { ...a.headers };
    if (headers[HEADER.apiKey] !== undefined) headers[HEADER.apiKey] = '***';
    e.reply = cut(JSON.stringify({ status: a.status, headers, body: a.text }));
  }
  return e;
}
