import type { ForgottenRecord } from './forgotten.js';

/**
 * The change records of the store contract: plain JSON (amounts as decimal strings), what every
 * store applies, persists and replays. The wallet decides in terms of them; stores own them.
 */
export interface PlayerRecord {
  user_id: string;
  balance: string;
  currency: string;
}
export interface RoundRecord {
  user_id: string;
  game_no: string;
  currency: string;
  stake: string;
  /** [bet_index, bet_type, bet_amount] in the order they were placed. */
  bets: [string, string, string][];
  settled: boolean;
}
/** Bets added to a round (opened by the first): only what changed, so a bet's cost never grows with its round. */
export interface BetsRecord {
  user_id: string;
  game_no: string;
  currency: string;
  bets: [string, string, string][];
}
export interface TransactionRecord {
  transaction_id: string;
  user_id: string;
  event_type: string;
  /**
   * A short hash of the request without its timestamp: `~…` (src/kernel/digest.ts), or in a
   * record of an older version the sha256 that decide still compares the old way.
   */
  fingerprint: string;
  /** The round of a bet or the one a bet_result settled (forgotten with the transaction). */
  game_no?: string;
  /** The ledger's row (bets and settlements; absent in records of older versions): the player's currency, */
  currency?: string;
  /** the money moved (the stake debited, the credit of a settlement: ≥ 0, decimal text), */
  amount?: string;
  /** the balance after it (decimal text) */
  balance_after?: string;
  /** and when it was applied (ms since the epoch). */
  applied_at?: number;
}

export type Change =
  | ({ op: 'player' } & PlayerRecord)
  | ({ op: 'round' } & RoundRecord)
  | ({ op: 'bets' } & BetsRecord)
  | ({ op: 'txn' } & TransactionRecord)
  | ({ op: 'forgotten' } & ForgottenRecord)
  | { op: 'clear' };

// JSON, not a separator: ids may contain any character, "\u0000" included.
export function roundKey(userId: string, gameNo: string): string {
  // One callback asks for its round's key several times (the store's read and apply, grading):
  // the last key is kept, as the same two strings give the same text.
  if (userId !== lastKey.user || gameNo !== lastKey.game) lastKey = { user: userId, game: gameNo, key: JSON.stringify([userId, gameNo]) };
  return lastKey.key;
}
let lastKey = { user: '', game: '', key: JSON.stringify(['', '']) };

/** Keys of the forgotten-ids record: transactions and rounds share it. */
export const forgottenTxn = (transactionId: string) => `t${transactionId}`;
export const forgottenRound = (key: string) => `r${key}`;
