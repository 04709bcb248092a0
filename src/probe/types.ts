import type { BetLine, RoundInfo } from '../client/callbacks.js';
import type { Credentials, Exchange } from '../client/http.js';
import type { Money } from '../money.js';

/** Who and what the probe plays against. */
export interface ProbeTarget extends Credentials {
  url: string;
  user: string;
  currency: string;
  /** Fraction digits of the currency. */
  scale: number;
  timeoutMs?: number;
}

export type Status = 'pass' | 'fail' | 'skip';

/** One rule checked on one reply (or on a set of them). */
export interface Assertion {
  name: string;
  passed: boolean;
  message: string;
  exchange?: number;
}

export interface LabeledExchange extends Exchange {
  label: string;
}

export interface CheckResult {
  name: string;
  description: string;
  status: Status;
  assertions: Assertion[];
  exchanges: LabeledExchange[];
  skipped?: string;
  durationMs: number;
}

/** A reply as the probe reads it: code, and latest_balance as an exact decimal from the raw text. */
export interface Reply {
  code?: string;
  balance?: Money;
  balanceText?: string;
  body?: Record<string, unknown>;
  index: number;
}

export interface LedgerLine {
  check: string;
  what: string;
  delta: Money;
}

export interface OpenRound {
  round: RoundInfo;
  bets: BetLine[];
}

export interface ProbeReport {
  target: Omit<ProbeTarget, 'apiKey'>;
  /** Why the battery stopped after the first check (the wallet refused the credentials). */
  stopped?: string;
  startedAt: string;
  durationMs: number;
  checks: CheckResult[];
  balance: {
    before?: Money;
    after?: Money;
    lines: { check: string; what: string; delta: Money }[];
    expected?: Money;
  };
}

/** The check names, in the order they run. Stable: CI reports and tests refer to them. */
export const CHECKS = [
  'login',
  'bet',
  'settle-win',
  'settle-loss',
  'settle-push',
  'insufficient-funds',
  'bad-credentials',
  'duplicate-replay',
  'conflicting-reuse',
  'totals-mismatch',
  'concurrent-bets',
  'malformed-body',
  'cleanup',
  'balance-reconciliation',
] as const;
