// What the admin API sends: the server's own types (type-only imports, generated from schemas/ where they can be).
import type { RuleHits as RuleHitsList } from '../../src/protocol/types.generated.js';
export type { Finding, Severity } from '../../src/protocol/findings.js';

/** GET /admin/players: one player; GET /admin/journal: one serve event (schemas/). */
export type { JournalEntry, Player } from '../../src/protocol/types.generated.js';

/** GET /health (schemas/health.schema.json): in proxy mode, `upstream` names the wallet under test. */
export type { Health } from '../../src/protocol/types.generated.js';

/** GET /admin/scenario/rules: one rule's counters (schemas/rule-hits.schema.json). */
export type RuleHits = RuleHitsList[number];

/** A scenario as the dashboard reads it: loose, since a pasted one may be invalid (the generated Scenario is a valid one). */
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
