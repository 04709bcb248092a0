import { type CheckRun, describe, plural, violation } from '../check.js';
import type { Attempt, Facts, Round } from '../facts.js';

/**
 * What the provider knew about a round's bets at time `at`: `applied` when one of them was read as
 * R0, `refused` when every bet transaction had ended without an R0 (refused R1–R4, or lost and not
 * resent), `open` otherwise (a bet still being answered, or no bet at all).
 */
export function betsKnownAt(round: Round, at: number): { state: 'applied' | 'refused' | 'open'; bets: Attempt[] } {
  const bets = round.bets.filter((b) => b.at < at);
  if (!bets.length) return { state: 'open', bets };
  const byTx = new Map<string, Attempt[]>();
  for (const b of bets) {
    const key = b.tx ?? `#${b.id}`;
    const list = byTx.get(key);
    if (list) list.push(b);
    else byTx.set(key, [b]);
  }
  let refused = true;
  for (const list of byTx.values()) {
    if (list.some((b) => b.outcome === 'R0' && b.knownAt! <= at)) return { state: 'applied', bets };
    const last = list.at(-1)!;
    if (last.knownAt === undefined || last.knownAt > at) refused = false;
  }
  return { state: refused ? 'refused' : 'open', bets };
}

/** No bet_result for a round none of whose bets was applied (as far as the provider knew). */
export function noSettlementOfRefusedBet(f: Facts): CheckRun {
  const run: CheckRun = { exercised: 0, pending: 0, violations: [], detail: '' };
  for (const round of f.rounds.values()) {
    if (!round.bets.length) continue;
    // From the first bet read as R0 on, the round has a stake: most rounds stop here.
    const appliedAt = Math.min(...round.bets.map((b) => (b.outcome === 'R0' ? b.knownAt! : Infinity)));
    let exercised = appliedAt > f.now && betsKnownAt(round, f.now).state === 'refused';
    for (const settlement of round.results.filter((r) => r.nth === 0)) {
      if (settlement.at >= appliedAt) continue;
      const { state, bets } = betsKnownAt(round, settlement.at);
      if (state !== 'refused') continue;
      exercised = true;
      const why =
        bets.at(-1)!.outcome === 'lost'
          ? 'its bet reply was lost and the bet never resent'
          : `its bets were refused (${[...new Set(bets.map((b) => b.outcome))].join(', ')})`;
      run.violations.push(
        violation(`${describe(settlement)} settles round ${round.game}, but ${why}: nothing was staked`, [...bets, settlement]),
      );
      break;
    }
    if (exercised) run.exercised++;
  }
  run.detail =
    run.exercised === 0
      ? ''
      : `${plural(run.exercised, 'round')} with no applied bet: ${run.exercised - run.violations.length} left unsettled`;
  return run;
}
