import type { ReportCheck, ReportEvidence } from '../protocol/types.generated.js';
import { heldAttempts } from './model.js';
import { excerptOf } from './evidence.js';
import type { Grader } from './grader.js';

/**
 * Proxy mode: a wallet check cites the upstream leg of each callback (what the operator's wallet
 * answered). What the provider got is another story when a rule held or dropped the relayed reply,
 * or the provider gave up first: each upstream excerpt is followed by the provider's own attempt of
 * that callback, as the provider-side grading holds it (its first, previous or latest of the
 * transaction), so the pictures draw the provider's lane from what happened on it.
 */
export function withProviderLeg(g: Grader, checks: readonly ReportCheck[]): ReportCheck[] {
  return checks.map((c) =>
    c.side !== 'wallet' || !c.violations.some((v) => v.evidence?.length)
      ? c
      : {
          ...c,
          violations: c.violations.map((v) => (v.evidence ? { ...v, evidence: v.evidence.flatMap((e) => withOwn(g, e)) } : v)),
        },
  );
}

function withOwn(g: Grader, e: ReportEvidence): ReportEvidence[] {
  // (journal id 0: an entry Redis did not keep, shared by other attempts: not told apart)
  if (e.leg !== 'upstream' || e.transaction_id === undefined || !e.journal_id) return [e];
  const tx = g.txs.get(e.transaction_id);
  const own = tx && heldAttempts(tx).find((a) => a.id === e.journal_id);
  return own ? [e, excerptOf(own, g.origin)] : [e];
}
