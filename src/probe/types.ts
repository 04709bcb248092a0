import type { BetLine, RoundInfo } from '../protocol/seed/callbacks.js';
import type { KeyNotes } from '../client/format.js';
import type { Credentials, Exchange } from '../client/http.js';
import type { Money } from '../kernel/money.js';
import type { WalletCheckReport } from '../grading/wallet/wallet-grader.js';

/** Who and what the probe plays against. */
export interface ProbeTarget extends Credentials {
  url: string;
  user: string;
  currency: string;
  /** Fraction digits of the currency. */
  scale: number;
  /** How long the probe waits for one reply before it takes it as lost (--timeout). */
  timeoutMs?: number;
  /** The provider's declared time-out, what the wallet is graded against (--client-timeout). */
  clientTimeoutMs?: number;
  /** First wait before a resend; each next one doubles (default 500 ms). */
  backoffMs?: number;
  /** Attempts per transaction, the first included (default 3). */
  attempts?: number;
  /** How the connections go (the hosted probe: an agent that checks each address, redirects not followed); not reported. */
  transport?: { dispatcher?: unknown; redirect?: 'manual' };
}

export type Status = 'pass' | 'fail' | 'skip';

/** One rule checked on one reply (or on a set of them). */
export interface Assertion {
  name: string;
  passed: boolean;
  message: string;
  exchange?: number;
}

/** An exchange as the report shows it: its label, and its number in the whole run (the evidence id). */
export interface LabeledExchange extends Exchange {
  label: string;
  id: number;
  /** Whether the Api-Key sent, and the one replied, is the configured key (shown beside the masked key). */
  keys?: KeyNotes;
}

export interface CheckResult {
  name: string;
  description: string;
  /** What to change in the wallet when this check fails. */
  fix?: string;
  status: Status;
  assertions: Assertion[];
  exchanges: LabeledExchange[];
  skipped?: string;
  /** Not judged because another check owns the root cause: its id (the reason is in `skipped`). */
  see?: string;
  /** What passes but should not in production (the check still passes). */
  warnings?: string[];
  /** Failing, this check owns its exchanges: the wallet checks' violations on them say "see" it instead of failing again. */
  ownsExchanges?: boolean;
  durationMs: number;
}

/** A reply as the probe reads it: code (upper-cased: a lower-case code is WALLET_REPLY_VALID's), balance exact from the text. */
export interface Reply {
  code?: string;
  balance?: Money;
  balanceText?: string;
  body?: Record<string, unknown>;
  /** The exchange's index in its check (the last attempt's). */
  index: number;
  /** Why no code could be read (no reply, not HTTP 200, not JSON), after every resend. */
  unusable?: string;
  attempts: number;
}

export interface LedgerLine {
  check: string;
  what: string;
  delta: Money;
}

export interface OpenRound {
  round: RoundInfo;
  bets: BetLine[];
  /** A settlement sent without a definite answer: only this body (same transaction_id) may settle the round. */
  settlement?: object;
  /** Why the round is still open, when the probe could not settle it. */
  why?: string;
}

/** A wallet check as the probe reports it: `see` names the probe check that owns the root cause of what it left out. */
export type ProbeWalletCheck = WalletCheckReport & { see?: string };

/** Latency of one event's replies, in ms. */
export interface Latency {
  event: string;
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Why the probe could not check the wallet (exit 2): one line and what to do. */
export interface Stopped {
  reason:
    | 'unreachable'
    | 'blocked-port'
    | 'no-reply'
    | 'wrong-path'
    | 'not-a-wallet'
    | 'credentials'
    | 'unknown-user'
    | 'funds'
    | 'currency'
    | 'bet-refused';
  message: string;
}

export interface ProbeReport {
  target: Omit<ProbeTarget, 'apiKey' | 'transport'>;
  stopped?: Stopped;
  startedAt: string;
  durationMs: number;
  /** The probe's active checks. */
  checks: CheckResult[];
  /** The WALLET_* checks over every exchange the probe made (the same as proxy mode's). */
  walletChecks: ProbeWalletCheck[];
  latency: Latency[];
  /** Rounds the probe opened and could not settle, each with why. */
  unsettled: { game_no: string; why: string }[];
  /** Every exchange of the run, by id (the wallet checks' evidence cites these ids). */
  exchanges: LabeledExchange[];
  balance: { before?: Money; after?: Money };
}

/** The active check names, in the order they run. Stable: CI reports and tests refer to them. */
export const CHECKS = [
  'login',
  'bet',
  'settle-win',
  'settle-loss',
  'settle-push',
  'insufficient-funds',
  'bad-credentials',
  'wrong-api-id',
  'bad-credentials-settlement',
  'duplicate-replay',
  'conflicting-reuse',
  'concurrent-bets',
  'malformed-body',
  'totals-mismatch',
  'wrong-types',
  'missing-timestamp',
  'nonpositive-amount',
  'excess-fraction-digits',
  'other-currency',
  'bet-on-settled-round',
  'winloss-below-stake',
  'unknown-bet-index',
  'settlement-stake-mismatch',
  'unparsable-result-detail',
  'settle-never-bet-round',
  'settle-settled-round',
  'unknown-player',
  'concurrent-overdraw',
] as const;
export type CheckName = (typeof CHECKS)[number];
