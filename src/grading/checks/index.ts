import type { CheckId } from '../../protocol/types.generated.js';
import { noun, type Phrase } from '../../text/plural.js';
import type { Reducer } from '../grader.js';
import { betWithinReportedBalance } from './bet-within-reported-balance.js';
import { failedSettlementRetried } from './failed-settlement-retried.js';
import { loginBeforeBet } from './login-before-bet.js';
import { lostReplyRetried } from './lost-reply-retried.js';
import { noBetAfterLoginRefused } from './no-bet-after-login-refused.js';
import { noPrematureRetry } from './no-premature-retry.js';
import { noRetryAfterRefusal } from './no-retry-after-refusal.js';
import { noSettlementBeforeBetReply } from './no-settlement-before-bet-reply.js';
import { noSettlementOfRefusedBet } from './no-settlement-of-refused-bet.js';
import { oneSettlementPerRound } from './one-settlement-per-round.js';
import { retryBackoff } from './retry-backoff.js';
import { retrySameTransaction } from './retry-same-transaction.js';
import { retryUnchanged } from './retry-unchanged.js';
import { roundsSettled } from './rounds-settled.js';

/** One row of the check table: what it grades, and the reducer that grades it. */
export interface Check {
  id: CheckId;
  /** What the provider must do. */
  title: string;
  severity: 'error' | 'warning';
  /** What to change in the client when it fails. */
  fix: string;
  /** What a tester plays to exercise it (shown while it is not exercised). */
  idle: string;
  /** What one chance is (the unit of `exercised`), for one and for many. */
  unit: Phrase;
  /** Why a chance the check counts apart as excused (neither passed nor failed) is not held against the provider. */
  excused?: string;
  reducer: Reducer;
}

/** The certification checks, in report order (docs/checks.md; ids are stable). */
export const CHECKS: readonly Check[] = [
  {
    id: 'LOST_REPLY_RETRIED',
    severity: 'error',
    reducer: lostReplyRetried,
    unit: { one: 'bet/bet_result transaction with a lost reply', other: 'bet/bet_result transactions with a lost reply' },
    title: 'Resend a bet or bet_result whose reply was lost, with the same transaction_id, within retry_window_s',
    fix: 'When a bet or bet_result gets no reply (connection closed, time-out), queue it and resend the same request, same transaction_id, until it gets a definite answer.',
    idle: 'no bet or bet_result reply was lost: play a player whose reply is dropped or delayed beyond client_timeout_s',
    excused: 'written as the time-out ran out, within its tolerance: the provider may have read it',
  },
  {
    id: 'RETRY_SAME_TRANSACTION',
    severity: 'error',
    reducer: retrySameTransaction,
    unit: { one: 'lost or failed bet/bet_result transaction', other: 'lost or failed bet/bet_result transactions' },
    title: 'Retry a lost or failed (R1) callback under its own transaction_id',
    fix: 'Never mint a new transaction_id for a retry: the wallet may already have applied the first one (double debit or double credit). Keep the id with the pending callback.',
    idle: 'no bet or bet_result got a lost reply or R1',
  },
  {
    id: 'RETRY_UNCHANGED',
    severity: 'error',
    reducer: retryUnchanged,
    unit: noun('resent transaction'),
    title: 'Resend exactly the same body (timestamp aside)',
    fix: 'Store the body of a pending callback and resend it as it was; only timestamp may change.',
    idle: 'no transaction was sent twice',
  },
  {
    id: 'FAILED_SETTLEMENT_RETRIED',
    severity: 'error',
    reducer: failedSettlementRetried,
    unit: { one: 'settlement answered R1', other: 'settlements answered R1' },
    title: 'Resend a bet_result answered R1 until it gets R0',
    fix: 'Treat R1 on a bet_result as "not settled yet": keep resending it (same transaction_id, with back-off) until R0, or the player never gets the win.',
    idle: 'no bet_result was answered R1',
    excused:
      'its last resend answered R0 (or a definite refusal) as the time-out ran out, within its tolerance: the provider may have read it',
  },
  {
    id: 'NO_RETRY_AFTER_REFUSAL',
    severity: 'error',
    reducer: noRetryAfterRefusal,
    unit: { one: 'transaction refused with R2, R3 or R4', other: 'transactions refused with R2, R3 or R4' },
    title: 'Do not resend a transaction refused with R2, R3 or R4',
    fix: 'R2, R3 and R4 are definite answers: drop the callback from the retry queue and report the refusal to the player or operator.',
    idle: 'no transaction was refused with R2, R3 or R4',
  },
  {
    id: 'NO_SETTLEMENT_OF_REFUSED_BET',
    severity: 'error',
    reducer: noSettlementOfRefusedBet,
    unit: { one: 'round with a refused or lost bet', other: 'rounds with a refused or lost bet' },
    title: 'Send no bet_result for a round none of whose bets was applied',
    fix: 'Settle a round only once one of its bets was answered R0. A bet refused with R2–R4 staked nothing; one answered R1 or whose reply was lost may have been applied: resend it (same transaction_id) until it gets a definite answer, and settle only after an R0.',
    idle: 'no bet was refused or lost',
  },
  {
    id: 'NO_SETTLEMENT_BEFORE_BET_REPLY',
    severity: 'error',
    reducer: noSettlementBeforeBetReply,
    unit: { one: 'settlement of a round with bets', other: 'settlements of a round with bets' },
    title: "Wait for the bet's reply before settling its round",
    fix: "Send the bet_result only after the round's bets were answered (or, after a time-out, resent and answered).",
    idle: 'no round with a bet was settled',
  },
  {
    id: 'NO_PREMATURE_RETRY',
    severity: 'error',
    reducer: noPrematureRetry,
    unit: { one: 'resend while the attempt before was unanswered', other: 'resends while the attempt before was unanswered' },
    title: 'Wait out its own time-out before resending',
    fix: 'Resend only after the previous attempt was answered, its connection was closed by the wallet, or your time-out ran out, and make that time-out the client_timeout_s you declared (giving up sooner, closing the connection yourself, is the premature resend); two copies in flight race each other.',
    idle: 'no transaction was resent while its previous attempt was still unanswered (a resend after a reply or a dropped connection cannot be premature): play a player whose reply is delayed beyond client_timeout_s',
  },
  {
    id: 'RETRY_BACKOFF',
    severity: 'error',
    reducer: retryBackoff,
    unit: noun('resent transaction'),
    title: 'Space its retries (min_retry_gap_ms apart, growing waits, at most max_attempts)',
    fix: 'Retry with a back-off that never shrinks (e.g. 1 s, 2 s, 4 s…, capped) and a bounded number of attempts before handing over to reconciliation.',
    idle: 'no transaction was resent',
  },
  {
    id: 'ROUNDS_SETTLED',
    severity: 'error',
    reducer: roundsSettled,
    unit: { one: 'round opened', other: 'rounds opened' },
    excused:
      'left to the operator: the provider could not settle them, its settlement or a resend of the opening bet refused with R2–R4 by a scenario rule or the upstream, or its settlement or a bet of it left unanswered up to max_attempts',
    title: 'Settle every round it opened, within round_max_age_s',
    fix: 'Send a bet_result for every round with an applied bet, a loss too (total_winloss = -total_bet_amount), within round_max_age_s; resend it under its transaction_id while unanswered, up to max_attempts, then escalate.',
    idle: 'no bet was applied (R0), so no round was opened',
  },
  {
    id: 'ONE_SETTLEMENT_PER_ROUND',
    severity: 'error',
    reducer: oneSettlementPerRound,
    unit: noun('settled round'),
    title: 'Settle a round once',
    fix: 'Mark a round settled once its bet_result got R0; a resend of that bet_result keeps its transaction_id, never a new one.',
    idle: 'no round was settled',
  },
  {
    id: 'NO_BET_AFTER_LOGIN_REFUSED',
    severity: 'error',
    reducer: noBetAfterLoginRefused,
    unit: { one: 'player with a refused login', other: 'players with a refused login' },
    title: 'Stop betting for a player whose login was refused (R2/R3)',
    fix: "After a refused login, block the player's play until a new login succeeds.",
    idle: 'no login was refused with R2 or R3',
  },
  {
    id: 'BET_WITHIN_REPORTED_BALANCE',
    severity: 'warning',
    reducer: betWithinReportedBalance,
    unit: { one: 'bet placed after a reported balance', other: 'bets placed after a reported balance' },
    title: 'Bet within the latest_balance it was given',
    fix: 'Keep the latest_balance of every reply (R4 too) and refuse a bet above it before calling the wallet.',
    idle: 'no bet came half a second or more after a reply that reported a balance (a bet sooner than that may not have read it): bet again a moment after a reply',
  },
  {
    id: 'LOGIN_BEFORE_BET',
    severity: 'warning',
    reducer: loginBeforeBet,
    unit: { one: 'player betting', other: 'players betting' },
    title: 'Log a player in before betting',
    fix: 'Send login (and wait for R0) before the first bet of a player.',
    idle: 'no bet in the session',
  },
];
