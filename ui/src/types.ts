// What the admin API sends. The journal entry is the server's own type (type-only import).
export type { JournalEntry } from '../../src/journal/journal.js';
export type { Finding, Severity } from '../../src/protocol/findings.js';

export interface Player {
  user_id: string;
  balance: number;
  currency: string;
}

export interface RuleHits {
  index: number;
  name: string;
  matched: number;
  fired: number;
  exhausted: boolean;
}

export interface ScenarioDoc {
  name: string;
  description?: string;
  currencies?: Record<string, number>;
  defaults?: { currency?: string };
  rules?: { name?: string; when?: Record<string, unknown>; then?: Record<string, unknown>; times?: number; probability?: number }[];
  /** The seed of the probability draws (always set by the simulator). */
  seed?: number;
  grading?: { client_timeout_s?: number };
  [key: string]: unknown;
}

export interface BundledScenario {
  name: string;
  file: string;
  description?: string;
  document: ScenarioDoc;
}

/** GET /admin/report (DESIGN.md "Session grading"). */
export type CheckStatus = 'pass' | 'fail' | 'pending' | 'not_exercised';
export interface Violation {
  message: string;
  user_id?: string;
  transaction_id?: string;
  journal_ids?: number[];
}
export interface Check {
  id: string;
  title: string;
  severity: 'error' | 'warning';
  status: CheckStatus;
  exercised: number;
  violations: Violation[];
}
export interface Report {
  generated_at: string;
  scenario: string;
  summary: Partial<Record<CheckStatus, number>>;
  checks: Check[];
  open_rounds?: { user_id: string; game_no: string; stake: number; opened_at: string; age_s: number }[];
  findings?: Record<string, number>;
}
