// What the wallet-side checks read: the wallet leg of an exchange (src/core/exchange.ts), and the
// ids of the checks.

export type { WalletAnswer, WalletExchange } from '../../core/exchange.js';
export type { NoReplyCause } from '../../core/wallet-leg.js';
export { maskKey } from '../../protocol/seed/reply-read.js';

/** The wallet-side check ids (stable: reports, JUnit and `--fail-on` name them). */
export const WALLET_CHECK_IDS = [
  'WALLET_REPLY_VALID',
  'WALLET_IDEMPOTENT',
  'WALLET_BALANCE_EXACT',
  'WALLET_REFUSES_SHORT_BET',
  'WALLET_ANSWERS_IN_TIME',
  'WALLET_REFUSES_INVALID',
  'WALLET_ROUND_RULES',
  'WALLET_CONCURRENCY_SAFE',
] as const;
export type WalletCheckId = (typeof WALLET_CHECK_IDS)[number];
