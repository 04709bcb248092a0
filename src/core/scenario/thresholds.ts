import type { GradingThresholds, ReportThresholds } from '../../protocol/types.generated.js';

export type Thresholds = ReportThresholds;

/** docs/certification.md "Thresholds": the defaults of a scenario's `grading` object. */
export const DEFAULT_THRESHOLDS: Readonly<Thresholds> = Object.freeze({
  retry_window_s: 60,
  client_timeout_s: 10,
  min_retry_gap_ms: 500,
  max_attempts: 10,
  round_max_age_s: 300,
});

/** A scenario's `grading` object with every absent threshold filled in. */
export function thresholdsOf(grading: GradingThresholds | undefined): Thresholds {
  return { ...DEFAULT_THRESHOLDS, ...grading };
}
