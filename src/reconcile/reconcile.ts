import type { LedgerEntry } from '../ledger/ledger-entry.js';
import { money } from '../kernel/money.js';
import { FileProblem } from './csv.js';
import type { Doubt } from './doubts.js';
import type { ProviderRecord } from './provider-file.js';

export const MISMATCH_KINDS = [
  'MISSING_IN_WALLET',
  'UNKNOWN_TO_PROVIDER',
  'AMOUNT_MISMATCH',
  'ROUND_STATE_MISMATCH',
  'FIELD_MISMATCH',
] as const;
export type MismatchKind = (typeof MISMATCH_KINDS)[number];

/** What a mismatch kind means, and what to look at in the provider's client. */
export const KIND_MEANING: Record<MismatchKind, string> = {
  MISSING_IN_WALLET: 'the provider counts it done; the wallet never applied it (money the player was told about never moved)',
  UNKNOWN_TO_PROVIDER:
    // A correct client stops at max_attempts (one more breaks RETRY_BACKOFF, docs/certification.md): that one is escalated, not resent.
    'the wallet applied it; the provider has no record of it, or counts it failed or pending (money moved without the provider knowing): ' +
    'retry a lost or failed reply under the same transaction_id until it gets an answer; ' +
    'after max_attempts, escalate it to the operator (it may have been applied) rather than book it failed',
  AMOUNT_MISMATCH: 'both applied it, with different amounts',
  ROUND_STATE_MISMATCH: 'the round is open on one side and settled on the other',
  FIELD_MISMATCH:
    'both have the transaction_id, for another player, round, event type or currency (the provider booked it under other ids than it sent)',
};

/** Listed in full per kind (table and JUnit); beyond, only counted, so memory stays flat however many records disagree. */
export const LISTED_PER_KIND = 1000;

/** One disagreement, or one row that cannot be judged yet (unresolved). */
export interface Difference {
  kind: MismatchKind | 'UNRESOLVED';
  transaction_id: string;
  event_type: string;
  user_id: string;
  game_no: string;
  wallet?: string;
  provider?: string;
  reason: string;
}

export interface Reconciliation {
  walletRows: number;
  providerRecords: number;
  /** The first LISTED_PER_KIND of each kind. */
  mismatches: Difference[];
  unresolved: Difference[];
  /** How many of each kind there are in all (listed or not). */
  counts: Record<MismatchKind | 'UNRESOLVED', number>;
  /** --user: the only player compared, and how many provider records of other players were set aside. */
  user?: { id: string; skipped: number };
  /**
   * Proxy mode: the wallet under test, and from when on its journal was read for the doubts (set
   * only when it does not reach back to the ledger's first row; '' when it is empty).
   */
  proxy?: { upstream: string; journalFrom?: string };
}

/** The ledger's horizon: complete, or complete only from a time on (the wallet forgot older transactions). */
export interface Horizon {
  complete: boolean;
  completeFrom?: number;
}

const walletSide = (w: LedgerEntry) => `${w.amount} ${w.currency}, applied, round ${w.round_status}`;
const providerSide = (p: ProviderRecord) => `${money(p.amount).toFixed()}, ${p.status}${p.round_status ? `, round ${p.round_status}` : ''}`;

/** The fields both sides have besides the amount and the round's state: each one that differs, named. */
function fieldsDiffer(w: LedgerEntry, p: ProviderRecord): string[] {
  const out: string[] = [];
  const cmp = (name: string, a: string, b: string | undefined) => {
    if (b !== undefined && a !== b) out.push(`${name} ${JSON.stringify(a)} in the wallet, ${JSON.stringify(b)} at the provider`);
  };
  cmp('user_id', w.user_id, p.user_id);
  cmp('game_no', w.game_no, p.game_no);
  cmp('event_type', w.event_type, p.event_type);
  cmp('currency', w.currency, p.currency);
  return out;
}

/** Why a record of a transaction the ledger cannot speak for is unresolved, by the provider's status. */
function doubtReason(status: ProviderRecord['status'], d: Doubt): string {
  const books = "see whether the wallet's own books applied it";
  if (status === 'ok') return `the provider counts it done; it is not in the ledger: ${d.why}: ${books}`;
  if (status === 'failed')
    return `the provider counts it failed; ${d.why}: if the wallet's own books applied it, money moved without the provider knowing`;
  return `pending at the provider; ${d.why}: settle it, and ${books}`;
}

const own = (s: string) => Buffer.from(s, 'utf8').toString('utf8');

/**
 * The wallet's ledger against the provider's records, one record at a time (a provider file is
 * streamed through `add`): memory holds the ledger and a bounded list of differences, never the
 * provider's records. A pending record the wallet never applied, and an ok record the wallet may have
 * forgotten (older than the ledger's horizon), are unresolved: listed, never a mismatch.
 */
export class Reconciler {
  private readonly wallet = new Map<string, { w: LedgerEntry; line?: number }>();
  private readonly mismatches: Difference[] = [];
  private readonly unresolved: Difference[] = [];
  private readonly counts = Object.fromEntries([...MISMATCH_KINDS, 'UNRESOLVED'].map((k) => [k, 0])) as Reconciliation['counts'];
  private records = 0;
  private skipped = 0;
  /** The doubts a provider record named. */
  private readonly named = new Set<string>();
  private readonly walletRows: number;

  /**
   * `ledger`: the wallet's rows, every player's even with `userId` (--user): a record of that player
   * whose transaction the wallet applied for another is then the FIELD_MISMATCH it is, not missing.
   */
  constructor(
    ledger: readonly LedgerEntry[],
    private readonly horizon: Horizon,
    /** --user: only this player's rows are judged, and only the records of this player or of a transaction applied for it. */
    private readonly userId?: string,
    /** Proxy mode: what the wallet under test may have applied outside the ledger (src/reconcile/doubts.ts). */
    private readonly doubts: ReadonlyMap<string, Doubt> = new Map(),
  ) {
    for (const w of ledger) this.wallet.set(w.transaction_id, { w });
    this.walletRows = userId === undefined ? ledger.length : ledger.filter((w) => w.user_id === userId).length;
  }

  /** Counts one difference; builds it (`make`) only while its kind is still listed, so a huge file costs no garbage per row. */
  private push(kind: Difference['kind'], make: () => Omit<Difference, 'kind'>) {
    const n = this.counts[kind]++;
    if (n >= LISTED_PER_KIND) return;
    // Copies: a field read from a file may be a slice of a whole chunk of it, which a kept slice would keep alive.
    const d = Object.fromEntries(Object.entries(make()).map(([k, v]) => [k, own(v)])) as Omit<Difference, 'kind'>;
    (kind === 'UNRESOLVED' ? this.unresolved : this.mismatches).push({ kind, ...d });
  }

  /**
   * One provider record. Throws FileProblem when a transaction_id the wallet applied repeats; a
   * repeat among ids the wallet never saw is not looked for (each counts on its own: docs/reconcile.md).
   */
  add(p: ProviderRecord): void {
    const held = this.wallet.get(p.transaction_id);
    const doubt = held ? undefined : this.doubts.get(p.transaction_id);
    if (this.userId !== undefined && p.user_id !== this.userId && (held?.w ?? doubt)?.user_id !== this.userId) {
      this.skipped++;
      return;
    }
    this.records++;
    const base = () => ({
      transaction_id: p.transaction_id,
      event_type: p.event_type,
      user_id: p.user_id,
      game_no: p.game_no,
      provider: providerSide(p),
    });
    if (!held && doubt) {
      if (this.named.has(p.transaction_id)) return; // (a repeat: the doubt is listed once)
      this.named.add(p.transaction_id);
      return this.push('UNRESOLVED', () => ({ ...base(), reason: `line ${p.line}: ${doubtReason(p.status, doubt)}` }));
    }
    if (!held) {
      if (p.status === 'failed') return; // neither side moved money
      if (p.status === 'pending')
        return this.push('UNRESOLVED', () => ({
          ...base(),
          reason: 'pending at the provider and never applied by the wallet: settle it, then reconcile again',
        }));
      const { horizon } = this;
      const beyond =
        !horizon.complete && (p.timestamp === undefined || horizon.completeFrom === undefined || p.timestamp < horizon.completeFrom);
      if (beyond)
        return this.push('UNRESOLVED', () => ({
          ...base(),
          reason: `older than the ledger's horizon (${horizon.completeFrom === undefined ? 'unknown' : new Date(horizon.completeFrom).toISOString()}): the wallet may have forgotten it (--retain-transactions)`,
        }));
      return this.push('MISSING_IN_WALLET', () => ({ ...base(), reason: `line ${p.line}: ${KIND_MEANING.MISSING_IN_WALLET}` }));
    }
    if (held.line !== undefined)
      throw new FileProblem(
        p.line,
        1,
        `transaction_id ${JSON.stringify(p.transaction_id)} repeats (first on line ${held.line}): ` +
          'one record per transaction, with its final status',
      );
    held.line = p.line;
    const w = held.w;
    const both = () => ({ ...base(), wallet: walletSide(w) });
    if (p.status !== 'ok')
      return this.push('UNKNOWN_TO_PROVIDER', () => ({
        ...both(),
        reason: `line ${p.line}: the provider counts it ${p.status}; the wallet applied it`,
      }));
    const fields = fieldsDiffer(w, p);
    if (fields.length) this.push('FIELD_MISMATCH', () => ({ ...both(), reason: `line ${p.line}: ${fields.join('; ')}` }));
    if (!money(w.amount).eq(money(p.amount)))
      this.push('AMOUNT_MISMATCH', () => ({
        ...both(),
        reason: `line ${p.line}: wallet ${w.amount}, provider ${money(p.amount).toFixed()}`,
      }));
    if (p.round_status !== undefined && p.round_status !== w.round_status)
      this.push('ROUND_STATE_MISMATCH', () => ({
        ...both(),
        reason: `line ${p.line}: round ${w.game_no} is ${w.round_status} in the wallet, ${p.round_status} at the provider`,
      }));
  }

  /** The wallet's rows no provider record named, then the result. */
  finish(): Reconciliation {
    const mine = (d: Doubt) => this.userId === undefined || d.user_id === this.userId;
    for (const d of this.doubts.values())
      if (!this.wallet.has(d.transaction_id) && !this.named.has(d.transaction_id) && mine(d))
        this.push('UNRESOLVED', () => ({
          transaction_id: d.transaction_id,
          event_type: d.event_type,
          user_id: d.user_id,
          game_no: d.game_no,
          reason: `the provider has no record of it; ${d.why}: see whether the wallet's own books applied it`,
        }));
    for (const { w, line } of this.wallet.values())
      if (line === undefined && (this.userId === undefined || w.user_id === this.userId))
        this.push('UNKNOWN_TO_PROVIDER', () => ({
          transaction_id: w.transaction_id,
          event_type: w.event_type,
          user_id: w.user_id,
          game_no: w.game_no,
          wallet: walletSide(w),
          reason: 'the wallet applied it; the provider has no record of it',
        }));
    return {
      walletRows: this.walletRows,
      providerRecords: this.records,
      mismatches: this.mismatches,
      unresolved: this.unresolved,
      counts: this.counts,
      ...(this.userId !== undefined && { user: { id: this.userId, skipped: this.skipped } }),
    };
  }
}

/** The whole comparison at once (tests, the soak bench). */
export function reconcile(
  ledger: readonly LedgerEntry[],
  records: readonly ProviderRecord[],
  horizon: Horizon,
  userId?: string,
): Reconciliation {
  const r = new Reconciler(ledger, horizon, userId);
  for (const p of records) r.add(p);
  return r.finish();
}
