import { type Money, money, toJsonNumber } from '../../kernel/money.js';
import type { Change } from '../../ledger/change.js';
import type { View } from '../../ledger/store.js';
import type { FindingCode } from '../../protocol/findings.js';
import { type Code, NOT_ENOUGH_BALANCE, SUCCESS } from '../../protocol/seed/codes.js';
import type { CallbackRequest } from '../../protocol/types.generated.js';
import { decide, type WalletConfig } from '../../wallet/decide.js';

// What the reference (./reference.ts) would answer to one callback, read from the money rules' decision.

/** Why the reference would refuse a callback, by the wallet check that owns that kind of refusal. */
export type RefusalKind = 'invalid' | 'round' | 'short' | 'unjudged';

/** What the reference would answer to one callback, and what applying it would change. */
export interface ReferenceAnswer {
  code: Code;
  /** The balance it would report (the player's, when refused). */
  balance: Money;
  /** A resend of a transaction the reference applied: replayed, nothing changes. */
  replayed: boolean;
  /** Why it refuses (absent for an R0). */
  kind?: RefusalKind;
  /** The rule it refuses by, in words (the first error finding, or the short balance). */
  rule?: string;
  changes: readonly Change[];
}

/** The rules a wallet's R0 breaks, by finding: the body's own (WALLET_REFUSES_INVALID) or the round's (WALLET_ROUND_RULES). */
const KIND_OF: Partial<Record<FindingCode, RefusalKind>> = {
  KEY_REPEATED: 'invalid',
  TOTAL_MISMATCH: 'invalid',
  AMOUNT_SCALE: 'invalid',
  AMOUNT_NOT_FINITE: 'invalid',
  AMOUNT_INEXACT: 'invalid',
  WINLOSS_BELOW_STAKE: 'invalid',
  RESULT_DETAIL_NOT_JSON: 'invalid',
  BET_INDEX_REPEATED: 'invalid',
  ROUND_SETTLED: 'round',
  ROUND_UNKNOWN: 'round',
  STAKE_MISMATCH: 'round',
  BET_INDEX_UNKNOWN: 'round',
  BET_MISMATCH: 'round',
  CURRENCY_MISMATCH: 'round',
  TRANSACTION_REUSED: 'round',
  // wallet-sim's own bounds (bets per round, amounts below 10^15 minor units, retention) and unknown
  // players are not rules an operator's wallet must share: not judged.
};

/** Round rules that rest on the round's bets before: not judged where a round may have begun before the session. */
const BEFORE_THE_SESSION = new Set<FindingCode>(['ROUND_UNKNOWN', 'STAKE_MISMATCH', 'BET_INDEX_UNKNOWN', 'BET_MISMATCH']);

/** The balance a player is given while the operator's wallet has reported none (no bet of a test is short of it). */
export const UNKNOWN_BALANCE = money('1000000000');
/** A balance no bet of a test is short of: a wallet that applied a short bet is followed with it. */
export const raised = (balance: Money): Money => (balance.isNeg() ? UNKNOWN_BALANCE : balance.plus(UNKNOWN_BALANCE));

/** The money rules' decision on a view, read as the reference's answer. */
export function answerOf(view: View, req: CallbackRequest, config: WalletConfig, closedWorld: boolean): ReferenceAnswer {
  const d = decide(view, req, { ...config, autoCreatePlayers: true });
  const balance = d.balance ?? view.player?.balance ?? money(0);
  if (d.code === SUCCESS) return { code: d.code, balance, replayed: d.replayed, changes: d.changes };
  if (d.code === NOT_ENOUGH_BALANCE) {
    const stake = (req as { data?: { total_bet_amount?: number } }).data?.total_bet_amount;
    return {
      code: d.code,
      balance,
      replayed: false,
      kind: 'short',
      rule: `a bet of ${stake === undefined ? '?' : toJsonNumber(money(stake))} above the balance of ${balance.toFixed()} is refused (${NOT_ENOUGH_BALANCE})`,
      changes: [],
    };
  }
  // The body's own rules first (they hold whatever the state), then the round's; wallet-sim's own bounds are not judged.
  const errors = d.findings.filter((f) => f.severity === 'error');
  const first = errors.find((f) => KIND_OF[f.code] === 'invalid') ?? errors.find((f) => KIND_OF[f.code] === 'round') ?? errors[0];
  const kind = (first && (closedWorld || !BEFORE_THE_SESSION.has(first.code)) && KIND_OF[first.code]) || 'unjudged';
  return { code: d.code, balance, replayed: false, kind, rule: first ? `${first.code}: ${first.message}` : undefined, changes: [] };
}
