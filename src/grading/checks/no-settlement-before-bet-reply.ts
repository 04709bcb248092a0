import { type CheckRun, describe, plural, violation } from '../check.js';
import { type Attempt, type Facts, READ } from '../facts.js';

/**
 * No bet_result while a bet of its round is unanswered: an attempt of that bet is still being
 * answered (reply not written, connection not closed) and no attempt of it had been answered yet.
 * (A timed-out bet resent and answered at once is answered, even while its first attempt's late
 * reply is still to come.)
 */
export function noSettlementBeforeBetReply(f: Facts): CheckRun {
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const round of f.rounds.values()) {
    const settled = new Set<string>();
    for (const s of round.results) {
      const bets = round.bets.filter((b) => b.at <= s.at);
      if (!bets.length) continue;
      const key = s.tx ?? `#${s.id}`;
      if (s.nth === 0) run.exercised++;
      if (settled.has(key)) continue;
      const byTx = new Map<string, Attempt[]>();
      for (const b of bets) byTx.set(b.tx ?? `#${b.id}`, [...(byTx.get(b.tx ?? `#${b.id}`) ?? []), b]);
      for (const list of byTx.values()) {
        const running = list.find((b) => b.end === undefined || b.end > s.at);
        const answered = list.some((b) => READ.has(b.outcome) && b.knownAt! <= s.at);
        if (!running || answered) continue;
        settled.add(key);
        run.violations.push(
          violation(
            `${describe(s)} arrived ${((s.at - running.at) / 1000).toFixed(1)} s after ${describe(running)}, while that bet was still unanswered`,
            [running, s],
            s.tx,
          ),
        );
        break;
      }
    }
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'settlement')} of a round with bets: ${run.exercised - run.violations.length} sent after the bets' replies`;
  return run;
}
