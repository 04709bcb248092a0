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

/** GET /admin/report (docs/certification.md): the server's own types. */
export type { CheckStatus, Report, ReportCheck as Check, ReportViolation as Violation } from '../../src/protocol/types.generated.js';
