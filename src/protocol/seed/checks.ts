import { amountProblem, type Money, money, ZERO } from '../../kernel/money.js';
import { type Finding, finding, type FindingCode } from '../findings.js';
import type { Player, Round } from '../../ledger/state.js';
import type { WalletConfig } from '../event.js';

/** Bets one request may carry, and a round may hold (R3 BETS_TOO_MANY beyond): no callback's cost grows without bound. */
export const MAX_BETS_PER_REQUEST = 500;
export const MAX_BETS_PER_ROUND = 2000;

/** The findings of amount(): an event whose request carries amounts raises them. */
export const AMOUNT_FINDINGS = [
  'AMOUNT_NOT_FINITE',
  'AMOUNT_INEXACT',
  'AMOUNT_SCALE',
  'AMOUNT_TOO_LARGE',
] as const satisfies readonly FindingCode[];

/** An amount as an exact decimal; a problem with it (scale, digits, bound) is a finding. */
export function amount(n: number, currency: string, pointer: string, config: WalletConfig, findings: Finding[]): Money {
  if (!Number.isFinite(n)) {
    findings.push(finding('AMOUNT_NOT_FINITE', `${n} is not a finite amount`, pointer));
    return ZERO;
  }
  const m = money(n);
  const problem = amountProblem(m, currency, config.scale(currency));
  if (problem) findings.push(finding(problem.code, problem.message, pointer));
  return m;
}

/**
 * The currency must be the player's, and the round's: the player's may have been changed (admin
 * API, scenario) since the round was opened, and a round is staked and settled in one currency.
 */
export function currencyFindings(currency: string, player: Player, round: Round | undefined): Finding[] {
  const out: Finding[] = [];
  if (currency !== player.currency)
    out.push(finding('CURRENCY_MISMATCH', `currency ${currency} differs from the player's ${player.currency}`, '/data/currency'));
  if (round && currency !== round.currency)
    out.push(
      finding('CURRENCY_MISMATCH', `currency ${currency} differs from round ${round.game_no}'s ${round.currency}`, '/data/currency'),
    );
  return out;
}

/** What every event of a round shares: the round it touches, the fields rules can match on. */
export const roundEvent = {
  gameNo: (req: { data: { game_no: string } }) => req.data.game_no,
  matchFields: ({
    data: d,
  }: {
    data: { game_no: string; table_no: string; game_type: string; currency: string; total_bet_amount: number };
  }) => ({
    game_no: d.game_no,
    table_no: d.table_no,
    game_type: d.game_type,
    currency: d.currency,
    amount: d.total_bet_amount,
  }),
};
