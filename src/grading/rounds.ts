import { money, sum } from '../money.js';
import type { OpenRound } from '../protocol/types.generated.js';
import type { Attempt, Facts, Round } from './facts.js';

export interface Opened {
  round: Round;
  opener: Attempt;
  settlement?: Attempt;
}

/** Rounds opened by an applied (R0) bet, with the applied bet_result that settled each, if any. */
export function openedRounds(f: Facts): Opened[] {
  const out: Opened[] = [];
  for (const round of f.rounds.values()) {
    const opener = round.bets.find((b) => b.applied);
    if (opener) out.push({ round, opener, settlement: round.results.find((r) => r.applied) });
  }
  return out;
}

/** The open rounds of the report, oldest first. The stake counts each applied bet transaction once. */
export function openRounds(f: Facts): OpenRound[] {
  return openedRounds(f)
    .filter((o) => !o.settlement)
    .sort((a, b) => a.opener.at - b.opener.at)
    .map(({ round, opener }) => {
      const stakes = new Map<string, number>();
      for (const b of round.bets)
        if (b.applied && b.total !== undefined && !stakes.has(b.tx ?? `#${b.id}`)) stakes.set(b.tx ?? `#${b.id}`, b.total);
      return {
        user_id: round.user,
        game_no: round.game,
        stake: sum([...stakes.values()].map((s) => money(s))).toNumber(),
        opened_at: new Date(opener.at).toISOString(),
        age_s: Math.max(0, Math.floor((f.now - opener.at) / 1000)),
      };
    });
}
