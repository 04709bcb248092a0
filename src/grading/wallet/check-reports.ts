import type { ReportViolation } from '../../protocol/types.generated.js';
import { count } from '../../text/plural.js';
import { SUCCESS } from '../../protocol/seed/codes.js';
import { listedViolations } from '../listed-violations.js';
import { type WalletCheck, WALLET_CHECKS } from './checks.js';
import type { NoReplyCause, WalletCheckId } from './exchange.js';
import type { WalletTally } from './tally.js';

/** A wallet-side check as a report lists it (the provider's checks have the same shape). */
export interface WalletCheckReport {
  id: WalletCheckId;
  side: 'wallet';
  title: string;
  severity: 'error' | 'warning';
  status: 'pass' | 'fail' | 'pending' | 'not_exercised';
  exercised: number;
  detail: string;
  fix: string;
  violations: ReportViolation[];
}

/** What the report says beside the tallies: callbacks still unanswered, histories that could not be judged and why. */
export interface Open {
  pending: number;
  undecided: number;
  why: string[];
  /** R0s to credentials other than the scenario's, held while the wallet never accepted the scenario's (proxy mode). */
  held?: { n: number; apiIds: string[] };
}

/** The wallet-side checks as a report lists them, from their tallies (`userId`: one player's). */
export function checkReports(tally: (id: WalletCheckId) => WalletTally, userId: string | undefined, open: Open): WalletCheckReport[] {
  return WALLET_CHECKS.map((c) => {
    const t = tally(c.id);
    const exercised = t.exercised(userId);
    const { list, more } = t.violationsOf(userId);
    const pending = c.id === 'WALLET_ANSWERS_IN_TIME' ? open.pending : 0;
    const undecided = c.id === 'WALLET_CONCURRENCY_SAFE' ? open.undecided : 0;
    const failed = list.length + more;
    const status = failed ? 'fail' : pending ? 'pending' : exercised ? 'pass' : 'not_exercised';
    const [one, other] = c.unit;
    const held = c.id === 'WALLET_REFUSES_INVALID' ? (open.held?.n ?? 0) : 0;
    const couldNot = undecided
      ? `${count(undecided, { one, other })} could not be judged (${open.why.join('; ')})`
      : held
        ? `${count(held, { one: SUCCESS, other: `${SUCCESS}s` })} to credentials other than the scenario's (Api-Id ${open.held!.apiIds.join(', ')}) ` +
          "not judged: the wallet has not accepted the scenario's credentials, so those may be the provider's real ones and the " +
          "scenario's a typo (check its credentials; they are judged once the wallet accepts the scenario's)"
        : '';
    const detail =
      status === 'not_exercised'
        ? couldNot
          ? `${couldNot}; none judged`
          : c.idle
        : `${count(exercised, { one, other })}: ${Math.max(0, exercised - failed)} passed, ${failed} failed${pending ? `, ${pending} still unanswered` : ''}${couldNot ? `; ${couldNot}` : ''}`;
    return {
      id: c.id,
      side: 'wallet',
      title: c.title,
      severity: c.severity,
      status,
      exercised,
      detail,
      fix: fixOf(c, t.causesOf(userId), list),
      violations: listedViolations(list, more, c.id),
    };
  });
}

/**
 * The check's fix, or the fixes for the kinds of failure its violations were (in the order
 * unreachable, broken, timeout); then the fix of each particular problem its violations name.
 */
function fixOf(c: WalletCheck, causes: Set<NoReplyCause>, violations: readonly ReportViolation[]): string {
  const fix =
    !c.fixFor || causes.size === 0
      ? c.fix
      : (['unreachable', 'broken', 'timeout'] as const)
          .filter((cause) => causes.has(cause))
          .map((cause) => c.fixFor![cause])
          .join(' ');
  const named = (c.problemFixes ?? []).filter((p) => violations.some((v) => v.message.includes(p.problem)));
  return [fix, ...named.map((p) => p.fix)].join(' ');
}
