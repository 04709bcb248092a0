import { sameAmount, sum, toJsonNumber } from '../../kernel/money.js';
import { finding, hasErrors } from '../findings.js';
import type { BetRequest } from '../types.generated.js';
import { playerChange } from '../../ledger/state.js';
import { amount, AMOUNT_FINDINGS, currencyFindings, roundEvent, MAX_BETS_PER_REQUEST, MAX_BETS_PER_ROUND } from './checks.js';
import type { EventHandler } from '../event.js';

/**
 * bet: R3 when the totals, the currency or the round disagree; R4 when the balance is short;
 * otherwise debit the stake and add the bets to the round (user_id, game_no).
 */
export const bet: EventHandler<BetRequest> = {
  type: 'bet',
  schema: 'BetRequest',
  round: 'opens',
  ...roundEvent,
  findings: [
    ...AMOUNT_FINDINGS,
    'BETS_TOO_MANY',
    'ROUND_EXPIRED',
    'BET_INDEX_REPEATED',
    'TOTAL_MISMATCH',
    'ROUND_SETTLED',
    'CURRENCY_MISMATCH',
  ],
  echoesCallbackUrl: false,
  grading: { startsSession: false },
  refusal: (code, req, balance) =>
    code === 'R4' ? `R4: balance ${balance?.toFixed()} is less than total_bet_amount ${req.data.total_bet_amount}` : undefined,

  decide(req, { view, player, config, findings }) {
    const d = req.data;
    const { round, roundSettled } = view;
    const total = amount(d.total_bet_amount, d.currency, '/data/total_bet_amount', config, findings);
    if (d.bets.length > MAX_BETS_PER_REQUEST) {
      findings.push(
        finding(
          'BETS_TOO_MANY',
          `${d.bets.length} bets in one request; at most ${MAX_BETS_PER_REQUEST} are accepted: split them over several bet callbacks`,
          '/data/bets',
        ),
      );
      return 'R3';
    }
    const held = round?.bets.size ?? 0;
    if (held + d.bets.length > MAX_BETS_PER_ROUND) {
      findings.push(
        finding(
          'BETS_TOO_MANY',
          `round ${d.game_no} would hold ${held + d.bets.length} bets; a round holds at most ${MAX_BETS_PER_ROUND}`,
          '/data/bets',
        ),
      );
    }
    if (!round && !roundSettled && view.roundForgotten) {
      findings.push(
        finding(
          'ROUND_EXPIRED',
          `round ${d.game_no} may be a settled round forgotten long ago (--retain-transactions): no more bets on it; use a new game_no`,
          '/data/game_no',
        ),
      );
    }
    const seen = new Set<string>();
    const bets = d.bets.map((b, i) => {
      const at = `/data/bets/${i}`;
      if (seen.has(b.bet_index) || round?.bets.has(b.bet_index))
        findings.push(finding('BET_INDEX_REPEATED', `bet_index ${b.bet_index} is already in round ${d.game_no}`, `${at}/bet_index`));
      seen.add(b.bet_index);
      return { index: b.bet_index, type: b.bet_type, amount: amount(b.bet_amount, d.currency, `${at}/bet_amount`, config, findings) };
    });
    const stake = sum(bets.map((b) => b.amount));
    if (!sameAmount(total, stake))
      findings.push(
        finding(
          'TOTAL_MISMATCH',
          `total_bet_amount ${total.toFixed()} != sum of bets[].bet_amount ${stake.toFixed()}`,
          '/data/total_bet_amount',
        ),
      );
    findings.push(...currencyFindings(d.currency, player, round));
    if (roundSettled) findings.push(finding('ROUND_SETTLED', `round ${d.game_no} is already settled: no more bets`, '/data/game_no'));
    if (hasErrors(findings)) return 'R3';
    if (player.balance.lt(total)) return 'R4';

    // Only the bets this callback adds: its cost never grows with its round.
    const added: [string, string, string][] = bets.map((b) => [b.index, b.type, toJsonNumber(b.amount)]);
    return [
      playerChange({ ...player, balance: player.balance.minus(total) }),
      { op: 'bets', user_id: req.user_id, game_no: d.game_no, currency: d.currency, bets: added },
    ];
  },
};
