import type { JournalEntry } from '../core/exchange.js';
import { roundFields } from '../journal/match.js';
import { eventNamed } from '../protocol/seed/index.js';
import { balanceOf, codeOf } from '../protocol/seed/reply-read.js';
import { SUCCESS, verdictOf } from '../protocol/seed/codes.js';

/*
 * Proxy mode keeps a ledger row only for what the wallet under test answered R0 to, readably, for a
 * valid callback with the scenario's credentials. A bet or settlement it gave no readable answer to
 * (no reply, HTTP 500, R1…) may have been applied all the same, and one it answered R0 under other
 * credentials, or for a callback the schemas refuse, was: neither is in the ledger. Read from the
 * journal, these are the doubts reconcile lists as unresolved, never as "missing in the wallet" nor
 * as agreement.
 */

/** A bet or settlement the ledger cannot speak for: the wallet under test may have applied it. */
export interface Doubt {
  transaction_id: string;
  event_type: string;
  user_id: string;
  game_no: string;
  /** Why, naming the journal entries: "no reply (journal #12: no reply within 3000 ms)". */
  why: string;
}

const CREDENTIALS = /^CREDENTIALS_/;

/** What one forwarded attempt tells: booked in the ledger, refused, or a doubt (and why). */
function attemptOf(e: JournalEntry): { kind: 'booked' | 'refused' } | { kind: 'doubt'; why: string; applied: boolean } {
  const up = e.upstream!;
  const at = `journal #${e.id}`;
  if (up.error !== undefined) return { kind: 'doubt', applied: false, why: `no reply from the wallet under test (${at}: ${up.error})` };
  const code = codeOf(up.body);
  if (up.status !== 200 || code === undefined)
    return {
      kind: 'doubt',
      applied: false,
      why: `the wallet under test answered HTTP ${up.status}${code === undefined ? ' without a protocol code' : ''} (${at})`,
    };
  const verdict = verdictOf(code);
  if (verdict === 'refused') return { kind: 'refused' };
  if (verdict === 'unknown')
    return { kind: 'doubt', applied: false, why: `the wallet under test answered ${code}, outcome unknown (${at})` };
  const wrongKey = e.findings.find((f) => CREDENTIALS.test(f.code));
  if (wrongKey)
    return {
      kind: 'doubt',
      applied: true,
      why: `the wallet under test answered ${SUCCESS} to it with other credentials than the scenario's (${at}: ${wrongKey.code}); the ledger keeps the scenario's only`,
    };
  const invalid = e.findings.find((f) => f.severity === 'error');
  if (invalid)
    return {
      kind: 'doubt',
      applied: true,
      why: `the wallet under test answered ${SUCCESS} to a callback the schemas refuse (${at}: ${invalid.code}); the ledger keeps valid callbacks only`,
    };
  if (balanceOf(up.body) === undefined)
    return { kind: 'doubt', applied: true, why: `the wallet under test answered ${SUCCESS} without a latest_balance number (${at})` };
  return { kind: 'booked' };
}

interface Seen {
  doubt?: Doubt & { applied: boolean };
  refused: boolean;
}

/**
 * The doubts of a journal read oldest first, entry by entry (`add`), kept per transaction_id: a
 * transaction is a doubt when an attempt was one and no attempt was refused (R2–R4) — unless an
 * attempt was answered R0 outside the ledger, which no refusal undoes. A transaction booked in the
 * ledger is the reconciler's to set aside (it checks the ledger first).
 */
export class DoubtReader {
  private readonly seen = new Map<string, Seen>();
  /** The oldest entry read, to say how far back the journal reaches. */
  oldest?: string;

  add(e: JournalEntry): void {
    this.oldest ??= e.received_at;
    const tx = e.transaction_id;
    if (!e.upstream?.forwarded || tx === undefined || !eventNamed(e.event_type)?.round) return;
    const attempt = attemptOf(e);
    const seen = this.seen.get(tx) ?? { refused: false };
    this.seen.set(tx, seen);
    if (attempt.kind === 'refused') seen.refused = true;
    if (attempt.kind !== 'doubt' || (seen.doubt?.applied && !attempt.applied)) return;
    const { game_no = '' } = roundFields(e.request.body);
    seen.doubt = {
      transaction_id: tx,
      event_type: e.event_type ?? '',
      user_id: e.user_id ?? '',
      game_no,
      why: attempt.why,
      applied: attempt.applied,
    };
  }

  /** The doubts, by transaction_id. */
  doubts(): Map<string, Doubt> {
    const out = new Map<string, Doubt>();
    for (const [tx, { doubt, refused }] of this.seen)
      if (doubt && (doubt.applied || !refused)) {
        const { applied: _, ...d } = doubt;
        out.set(tx, d);
      }
    return out;
  }
}
