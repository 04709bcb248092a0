import type { ReportViolation } from '../protocol/types.generated.js';
import { count } from '../text/plural.js';

/** A check's violations as a report lists them: the ones kept, then a line for the `more` not kept. */
export function listedViolations(kept: readonly ReportViolation[], more: number, id: string): ReportViolation[] {
  if (!more) return [...kept];
  return [...kept, { message: `… and ${count(more, { one: 'more violation', other: 'more violations' })} of ${id}`, journal_ids: [] }];
}

/** The line listedViolations adds for the violations it did not keep (it cites no journal entry). */
const MORE = /^… and (\d+) more violations? of /;

/** How many violations a listed check had: the ones kept, and the ones its last line only counts. */
export function violationCount(listed: readonly ReportViolation[]): number {
  const more = listed.length ? MORE.exec(listed[listed.length - 1]!.message) : null;
  return more && !listed[listed.length - 1]!.journal_ids.length ? listed.length - 1 + Number(more[1]) : listed.length;
}

/** Of a check's listed violations: how many it had, and how many are listed one by one (the rest only counted). */
export function violationTally(listed: readonly ReportViolation[]): { total: number; itemized: number } {
  const total = violationCount(listed);
  return { total, itemized: total === listed.length ? total : listed.length - 1 };
}

/** The first violation quoted in a headline is cut to this many characters: the headline stays one readable line. */
const QUOTED = 240;

/**
 * One line naming every violation of a check, for a place that shows one line only (a JUnit
 * failure's message attribute, the headline of a CI page): how many, the first, how many more.
 * Undefined when none is listed.
 */
export function violationsHeadline(listed: readonly ReportViolation[]): string | undefined {
  const first = listed[0]?.message.replace(/\s+/g, ' ').trim();
  if (first === undefined) return undefined;
  const quoted = first.length > QUOTED ? `${first.slice(0, QUOTED - 1)}…` : first;
  const n = violationCount(listed);
  return n > 1 ? `${n} violations: ${quoted} (and ${n - 1} more)` : quoted;
}
