import type { Report, ReportCheck } from '../protocol/types.generated.js';

/** The checks of one side of a report, under the heading people read. */
export interface Side {
  side: ReportCheck['side'];
  heading: string;
  checks: ReportCheck[];
}

/**
 * A report's checks by side: the provider's, then (proxy mode only) the operator wallet's. A side
 * with no check is left out, so a report without --upstream has one list, as before.
 */
export function sidesOf(r: Pick<Report, 'checks'>): Side[] {
  const sides: Side[] = [
    { side: 'provider', heading: "The provider's callback client", checks: r.checks.filter((c) => c.side !== 'wallet') },
    {
      side: 'wallet',
      heading: "The operator's wallet (graded from the upstream's replies)",
      checks: r.checks.filter((c) => c.side === 'wallet'),
    },
  ];
  return sides.filter((s) => s.checks.length > 0);
}
