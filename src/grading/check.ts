import type { CheckId, ReportViolation } from '../protocol/types.generated.js';
import type { Attempt, Facts } from './facts.js';

/** What one check found in the journal. */
export interface CheckRun {
  /** How many times the journal gave the check a chance (the unit is in `detail`). */
  exercised: number;
  /** How many of those still have a window open. */
  pending: number;
  violations: ReportViolation[];
  /** One line: what was exercised and how it went. */
  detail: string;
}

/** One row of the check table. */
export interface Check {
  id: CheckId;
  /** What the provider must do. */
  title: string;
  severity: 'error' | 'warning';
  /** What to change in the client when it fails. */
  fix: string;
  /** What a tester plays to exercise it (shown while it is not exercised). */
  idle: string;
  run(facts: Facts): CheckRun;
}

const MAX_IDS = 50;

/** A violation about some attempts; user and transaction are taken from the first. */
export function violation(message: string, attempts: readonly Attempt[], tx?: string): ReportViolation {
  const first = attempts[0];
  // A storm may have thousands of attempts: the first ones show it.
  const v: ReportViolation = { message, journal_ids: [...new Set(attempts.map((a) => a.id))].slice(0, MAX_IDS) };
  if (first?.user !== undefined) v.user_id = first.user;
  const transaction = tx ?? first?.tx;
  if (transaction !== undefined) v.transaction_id = transaction;
  return v;
}

export const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** "bet tx-1 of player-1 (#12)" */
export const describe = (a: Attempt) =>
  `${a.event ?? 'callback'} ${a.tx ?? '(no transaction_id)'}${a.user === undefined ? '' : ` of ${a.user}`} (#${a.id})`;
