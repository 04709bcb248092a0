import type { ReportViolation } from '../protocol/types.generated.js';
import { count } from '../text/plural.js';

/** A check's violations as a report lists them: the ones kept, then a line for the `more` not kept. */
export function listedViolations(kept: readonly ReportViolation[], more: number, id: string): ReportViolation[] {
  if (!more) return [...kept];
  return [...kept, { message: `… and ${count(more, { one: 'more violation', other: 'more violations' })} of ${id}`, journal_ids: [] }];
}
