import type { LedgerEntry } from '../ledger/ledger-entry.js';
import { money } from '../money.js';
import type { ProviderRecord } from './provider-file.js';

export const MISMATCH_KINDS = ['MISSING_IN_WALLET', 'UNKNOWN_TO_PROVIDER', 'AMOUNT_MISMATCH', 'ROUND_STATE_MISMATCH'] as const;
export type MismatchKind = (typeof MISMATCH_KINDS)[number];

/** What a mismatch kind means, and what to look at in the provider's client. */
export const KIND_MEANING: Record<MismatchKind, string> = {
  MISSING_IN_WALLET: 'the provider counts it done; the wallet never applied it (money the player was told about never moved)',
  UNKNOWN_TO_PROVIDER:
    'the wallet applied it; the provider has no record of it, or counts it failed or pending (money moved without the provider knowing: retry a lost or failed reply with the same transaction_id until it gets an answer)',
  AMOUNT_MISMATCH: 'both applied it, with different amounts',
  ROUND_STATE_MISMATCH: 'the round is open on one side and settled on the other',
};

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
  mismatches: Difference[];
  unresolved: Difference[];
}

/** The ledger's horizon: complete, or complete only from a time on (the wallet forgot older transactions). */
export interface Horizon {
  complete: boolean;
  completeFrom?: number;
}

const walletSide = (w: LedgerEntry) => `${w.amount} ${w.currency}, applied, round ${w.round_status}`;
const providerSide = (p: ProviderRecord) => `${p.amount.toFixed()}, ${p.status}${p.round_status ? `, round ${p.round_status}` : ''}`;

/**
 * The wallet's ledger against the provider's records, transaction by transaction (pure). A pending
 * record the wallet never applied, and an ok record the wallet may have forgotten (older than the
 * ledger's horizon), are unresolved: listed, never a mismatch.
 */
export function reconcile(ledger: readonly LedgerEntry[], records: readonly ProviderRecord[], horizon: Horizon): Reconciliation {
  const wallet = new Map(ledger.map((w) => [w.transaction_id, w]));
  const mismatches: Difference[] = [];
  const unresolved: Difference[] = [];
  const known = new Set<string>();
  for (const p of records) {
    known.add(p.transaction_id);
    const w = wallet.get(p.transaction_id);
    const base = {
      transaction_id: p.transaction_id,
      event_type: p.event_type,
      user_id: p.user_id,
      game_no: p.game_no,
      provider: providerSide(p),
    };
    if (!w) {
      if (p.status === 'failed') continue; // neither side moved money
      if (p.status === 'pending') {
        unresolved.push({
          ...base,
          kind: 'UNRESOLVED',
          reason: 'pending at the provider and never applied by the wallet: settle it, then reconcile again',
        });
        continue;
      }
      const beyond =
        !horizon.complete && (p.timestamp === undefined || horizon.completeFrom === undefined || p.timestamp < horizon.completeFrom);
      if (beyond)
        unresolved.push({
          ...base,
          kind: 'UNRESOLVED',
          reason: `older than the ledger's horizon (${horizon.completeFrom === undefined ? 'unknown' : new Date(horizon.completeFrom).toISOString()}): the wallet may have forgotten it (--retain-transactions)`,
        });
      else mismatches.push({ ...base, kind: 'MISSING_IN_WALLET', reason: `line ${p.line}: ${KIND_MEANING.MISSING_IN_WALLET}` });
      continue;
    }
    const both = { ...base, wallet: walletSide(w) };
    if (p.status !== 'ok') {
      mismatches.push({
        ...both,
        kind: 'UNKNOWN_TO_PROVIDER',
        reason: `line ${p.line}: the provider counts it ${p.status}; the wallet applied it`,
      });
      continue;
    }
    if (!money(w.amount).eq(p.amount))
      mismatches.push({ ...both, kind: 'AMOUNT_MISMATCH', reason: `line ${p.line}: wallet ${w.amount}, provider ${p.amount.toFixed()}` });
    if (p.round_status !== undefined && p.round_status !== w.round_status)
      mismatches.push({
        ...both,
        kind: 'ROUND_STATE_MISMATCH',
        reason: `line ${p.line}: round ${w.game_no} is ${w.round_status} in the wallet, ${p.round_status} at the provider`,
      });
  }
  for (const w of ledger)
    if (!known.has(w.transaction_id))
      mismatches.push({
        kind: 'UNKNOWN_TO_PROVIDER',
        transaction_id: w.transaction_id,
        event_type: w.event_type,
        user_id: w.user_id,
        game_no: w.game_no,
        wallet: walletSide(w),
        reason: 'the wallet applied it; the provider has no record of it',
      });
  return { walletRows: ledger.length, providerRecords: records.length, mismatches, unresolved };
}
