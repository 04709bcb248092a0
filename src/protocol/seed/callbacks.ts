import { randomBytes } from 'node:crypto';
import { type Money, money, sum } from '../../kernel/money.js';
import type { BetRequest, BetResultRequest, LoginRequest } from '../types.generated.js';

/**
 * Builders of well-formed callbacks, the provider's side of the protocol: fresh transaction ids,
 * integer timestamps, totals computed with exact decimals, result_detail as a JSON string.
 * Shared by `wallet-sim send` and `wallet-sim probe`.
 */

const RUN = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
let seq = 0;

/** A transaction id unique across runs and processes: `<prefix>-<run>-<n>`. */
export const newTransactionId = (prefix = 'ws') => `${prefix}-${RUN}-${++seq}`;
/** A game round id, unique like a transaction id. */
export const newGameNo = (prefix = 'G') => `${prefix}-${RUN}-${++seq}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An exact amount as the JSON number that prints as the same decimal text. */
export const amountNumber = (m: Money): number => Number(m.toFixed());

export interface Envelope {
  user_id: string;
  feedback_data?: string;
  transaction_id?: string;
  timestamp?: number;
}
export interface RoundInfo {
  currency: string;
  game_no: string;
  game_type?: string;
  table_no?: string;
}
export interface BetLine {
  bet_index: string;
  bet_type: string;
  bet_amount: Money;
}
export interface ResultLine extends BetLine {
  winloss: Money;
}

const envelope = (e: Envelope, event_type: string) => ({
  transaction_id: e.transaction_id ?? newTransactionId(event_type),
  event_type,
  timestamp: e.timestamp ?? nowSeconds(),
  feedback_data: e.feedback_data ?? 'wallet-sim',
  user_id: e.user_id,
});

const roundData = (r: RoundInfo) => ({
  currency: r.currency,
  game_type: r.game_type ?? 'BAC',
  table_no: r.table_no ?? 'WS01',
  game_no: r.game_no,
});

export function loginRequest(e: Envelope): LoginRequest {
  return envelope(e, 'login') as LoginRequest;
}

/** A bet whose total_bet_amount is the exact sum of its lines (unless `total` says otherwise). */
export function betRequest(e: Envelope, round: RoundInfo, bets: BetLine[], total?: Money): BetRequest {
  return {
    ...envelope(e, 'bet'),
    data: {
      ...roundData(round),
      total_bet_amount: amountNumber(total ?? sum(bets.map((b) => b.bet_amount))),
      bets: bets.map((b) => ({ bet_index: b.bet_index, bet_type: b.bet_type, bet_amount: amountNumber(b.bet_amount) })),
    },
  } as BetRequest;
}

/** The baccarat outcome a net win-loss suggests: P when the player side won money, B when it lost, T on a push. */
export const resultFor = (winloss: Money) => (winloss.gt(0) ? 'P' : winloss.lt(0) ? 'B' : 'T');

const DETAILS: Record<string, object> = {
  P: { pscore: 8, bscore: 3, pcards: ['H8', 'S13'], bcards: ['D2', 'C1'] },
  B: { pscore: 2, bscore: 9, pcards: ['C2', 'D10'], bcards: ['S4', 'H5'] },
  T: { pscore: 7, bscore: 7, pcards: ['S3', 'H4'], bcards: ['D7', 'C10'] },
};

/** A settlement: totals are exact sums of the lines (unless overridden), result_detail a JSON string. */
export function betResultRequest(
  e: Envelope,
  round: RoundInfo,
  results: ResultLine[],
  override: { total?: Money; winloss?: Money; result?: string } = {},
): BetResultRequest {
  const winloss = override.winloss ?? sum(results.map((r) => r.winloss));
  const result = override.result ?? resultFor(sum(results.map((r) => r.winloss)));
  return {
    ...envelope(e, 'bet_result'),
    data: {
      ...roundData(round),
      total_bet_amount: amountNumber(override.total ?? sum(results.map((r) => r.bet_amount))),
      total_winloss: amountNumber(winloss),
      result,
      result_detail: JSON.stringify(DETAILS[result] ?? DETAILS.T),
      bet_results: results.map((r) => ({
        bet_index: r.bet_index,
        bet_type: r.bet_type,
        bet_amount: amountNumber(r.bet_amount),
        winloss: amountNumber(r.winloss),
      })),
    },
  } as BetResultRequest;
}

export { money };
