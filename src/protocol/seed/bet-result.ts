import { balanceProblem, sameAmount, sum } from '../../kernel/money.js';
import { finding, hasErrors } from '../findings.js';
import type { BetResultRequest } from '../types.generated.js';
import { playerChange, roundChange } from '../../ledger/state.js';
import { amount, AMOUNT_FINDINGS, currencyFindings, roundEvent, MAX_BETS_PER_ROUND } from './checks.js';
import type { EventHandler } from '../event.js';
import { resultDetailFindings } from './result-detail.js';

/**
 * bet_result: settles the open round. Credit = total_bet_amount + total_winloss (stake back plus
 * net win; a full loss credits 0). Everything must agree with the bets placed; a rejected
 * settlement leaves the round open.
 */
export const betResult: EventHandler<BetResultRequest> = {
  type: 'bet_result',
  schema: 'BetResultRequest',
  round: 'settles',
  ...roundEvent,
  findings: [
    ...AMOUNT_FINDINGS,
    'ROUND_SETTLED',
    'BETS_TOO_MANY',
    'ROUND_EXPIRED',
    'ROUND_UNKNOWN',
    'CURRENCY_MISMATCH',
    'STAKE_MISMATCH',
    'BET_INDEX_REPEATED',
    'BET_INDEX_UNKNOWN',
    'BET_MISMATCH',
    'WINLOSS_BELOW_STAKE',
    'TOTAL_MISMATCH',
    'RESULT_DETAIL_NOT_JSON',
    'RESULT_DETAIL_INCOMPLETE',
  ],
  echoesCallbackUrl: true,
  grading: { startsSession: false },

  decide(req, { view, player, config, findings }) {
    const d = req.data;
    // Only an open round is checked against: a settled one has nothing left to compare.
    const { round, roundSettled } = view;
    const total = amount(d.total_bet_amount, d.currency, '/data/total_bet_amount', config, findings);
    const winloss = amount(d.total_winloss, d.currency, '/data/total_winloss', config, findings);
    if (roundSettled) findings.push(finding('ROUND_SETTLED', `round ${d.game_no} is already settled`, '/data/game_no'));
    if (d.bet_results.length > MAX_BETS_PER_ROUND) {
      findings.push(
        finding(
          'BETS_TOO_MANY',
          `${d.bet_results.length} bet_results; a round holds at most ${MAX_BETS_PER_ROUND} bets`,
          '/data/bet_results',
        ),
      );
      return 'R3';
    }
    if (!round && !roundSettled && view.roundForgotten) {
      findings.push(
        finding(
          'ROUND_EXPIRED',
          `round ${d.game_no} may be a settled round forgotten long ago (--retain-transactions): it cannot be settled again`,
          '/data/game_no',
        ),
      );
    } else if (!round && !roundSettled)
      findings.push(finding('ROUND_UNKNOWN', `no open round ${d.game_no} for player ${req.user_id}`, '/data/game_no'));
    findings.push(...currencyFindings(d.currency, player, round));
    if (round && !sameAmount(total, round.stake))
      findings.push(
        finding(
          'STAKE_MISMATCH',
          `total_bet_amount ${total.toFixed()} != the round's stake ${round.stake.toFixed()}`,
          '/data/total_bet_amount',
        ),
      );

    const seen = new Set<string>();
    const results = d.bet_results.map((r, i) => {
      const at = `/data/bet_results/${i}`;
      const staked = amount(r.bet_amount, d.currency, `${at}/bet_amount`, config, findings);
      const wl = amount(r.winloss, d.currency, `${at}/winloss`, config, findings);
      if (seen.has(r.bet_index))
        findings.push(finding('BET_INDEX_REPEATED', `bet_index ${r.bet_index} appears twice in bet_results`, `${at}/bet_index`));
      seen.add(r.bet_index);
      const placed = round?.bets.get(r.bet_index);
      if (round && !placed)
        findings.push(finding('BET_INDEX_UNKNOWN', `bet_index ${r.bet_index} was never bet in round ${d.game_no}`, `${at}/bet_index`));
      if (placed && !sameAmount(placed.bet_amount, staked))
        findings.push(
          finding(
            'BET_MISMATCH',
            `bet_amount ${staked.toFixed()} != the ${placed.bet_amount.toFixed()} bet on bet_index ${r.bet_index}`,
            `${at}/bet_amount`,
          ),
        );
      if (placed && placed.bet_type !== r.bet_type)
        findings.push(
          finding('BET_MISMATCH', `bet_type ${r.bet_type} != the ${placed.bet_type} bet on bet_index ${r.bet_index}`, `${at}/bet_type`),
        );
      // A win (or a zero) cannot lose more than its stake: no negated Decimal is made for it.
      if ((wl.isNeg() || staked.isNeg()) && wl.lt(staked.neg()))
        findings.push(
          finding('WINLOSS_BELOW_STAKE', `winloss ${wl.toFixed()} loses more than bet_amount ${staked.toFixed()}`, `${at}/winloss`),
        );
      return { staked, wl };
    });
    const staked = sum(results.map((r) => r.staked));
    const net = sum(results.map((r) => r.wl));
    if (!sameAmount(winloss, net))
      findings.push(
        finding(
          'TOTAL_MISMATCH',
          `total_winloss ${winloss.toFixed()} != sum of bet_results[].winloss ${net.toFixed()}`,
          '/data/total_winloss',
        ),
      );
    if (!sameAmount(total, staked))
      findings.push(
        finding(
          'TOTAL_MISMATCH',
          `total_bet_amount ${total.toFixed()} != sum of bet_results[].bet_amount ${staked.toFixed()}`,
          '/data/total_bet_amount',
        ),
      );
    findings.push(...resultDetailFindings(d.result_detail));
    if (hasErrors(findings) || !round) return 'R3';

    const after = player.balance.plus(total.plus(winloss));
    const tooLarge = balanceProblem(after, player.currency, config.scale(player.currency));
    if (tooLarge) {
      findings.push(
        finding(
          'AMOUNT_TOO_LARGE',
          `the settlement would make the balance ${tooLarge.message}; nothing was credited`,
          '/data/total_winloss',
        ),
      );
      return 'R3';
    }
    // A settled round keeps no bets: the store keeps its key only.
    return [playerChange({ ...player, balance: after }), roundChange({ ...round, bets: new Map(), settled: true })];
  },
};
