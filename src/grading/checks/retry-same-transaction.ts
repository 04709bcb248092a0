import { type CheckRun, describe, plural, violation } from '../check.js';
import { type Attempt, type Facts, movesMoney, roundKey, UNCERTAIN } from '../facts.js';

/**
 * After a lost or failed (R1) bet or bet_result, and until that transaction gets a definite answer,
 * no callback of the same player, event_type and game_no may arrive under a new transaction_id:
 * the wallet may already have applied the first one (double debit, double credit).
 */
export function retrySameTransaction(f: Facts): CheckRun {
  const window = f.t.retry_window_s * 1000;
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const attempts of f.byTx.values()) {
    const first = attempts[0]!;
    if (!movesMoney(first) || first.user === undefined || first.game === undefined) continue;
    // The first uncertain attempt before the provider knew a definite answer.
    const resolvedAt = (a: Attempt) => a.outcome !== 'waiting' && !UNCERTAIN.has(a.outcome);
    const firstResolved = attempts.find(resolvedAt);
    const uncertain = attempts.find((a) => UNCERTAIN.has(a.outcome) && (!firstResolved || a.nth < firstResolved.nth));
    if (!uncertain) continue;
    run.exercised++;
    const from = uncertain.knownAt!;
    const until = firstResolved?.knownAt ?? Infinity;
    const round = f.rounds.get(roundKey(first.user, first.game))!;
    const others = (first.event === 'bet' ? round.bets : round.results).filter(
      (b) => b.tx !== first.tx && b.nth === 0 && b.at >= from && b.at < until,
    );
    if (others.length) {
      const b = others[0]!;
      run.violations.push(
        violation(
          `the reply to ${describe(uncertain)} was ${uncertain.outcome === 'lost' ? 'lost' : uncertain.outcome}; then ${describe(b)} arrived for the same round ${first.game} under a new transaction_id instead of a resend of ${first.tx}`,
          [uncertain, ...others],
          b.tx,
        ),
      );
      continue;
    }
    const last = attempts.at(-1)!;
    if (!firstResolved && (last.end === undefined || f.now <= last.end + window)) run.pending++;
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'lost or failed bet/bet_result transaction')}: ${run.violations.length} followed by a new transaction_id for the same round, ${run.pending} not yet answered`;
  return run;
}
