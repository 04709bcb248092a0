import type { ReportTiming } from '../protocol/types.generated.js';

/** Samples kept for the medians (the newest); maxima are exact over the whole session. */
const SAMPLES = 10_000;

/** A bounded ring of the newest samples. */
class Samples {
  private readonly values: number[] = [];
  private next = 0;
  max = -Infinity;

  add(v: number): void {
    if (this.values.length < SAMPLES) this.values.push(v);
    else this.values[this.next] = v;
    this.next = (this.next + 1) % SAMPLES;
    if (v > this.max) this.max = v;
  }

  median(): number | null {
    if (!this.values.length) return null;
    const sorted = [...this.values].sort((a, b) => a - b);
    return sorted[(sorted.length - 1) >> 1]!;
  }

  get empty(): boolean {
    return this.values.length === 0;
  }
}

/**
 * Lower edges (ms) of the retry-gap histogram's buckets, each up to the next (the last open-ended):
 * roughly doubling, so a resend at once, a client's minimum gap, its time-out and a minute's back-off
 * each fall in a bucket of their own.
 */
export const GAP_EDGES_MS = [0, 50, 100, 250, 500, 1000, 2000, 5000, 10_000, 20_000, 60_000] as const;

/** The bucket of a gap: the last edge at or below it. */
const bucketOf = (gap: number) => {
  let i = GAP_EDGES_MS.length - 1;
  while (i > 0 && gap < GAP_EDGES_MS[i]!) i--;
  return i;
};

/**
 * The provider's timing profile: what its client actually does — how long it waits before giving
 * up on a reply (from an attempt's arrival to the caller closing the connection, when it closed
 * first), how long it waits between attempts, how many attempts one transaction takes.
 */
export class Timing {
  private readonly timeouts = new Samples();
  private readonly firstGaps = new Samples();
  private readonly gaps = new Samples();
  private mostAttempts = 0;
  /** Every gap of the session, counted per bucket (exact: no sample is dropped). */
  private readonly gapCounts = new Array<number>(GAP_EDGES_MS.length).fill(0);

  /** The caller closed an attempt's connection `ms` after it arrived, before any reply. */
  closed(ms: number): void {
    this.timeouts.add(Math.max(0, ms));
  }

  /** A resend arrived `gap` ms after the previous attempt; it is its transaction's `attempts`th. */
  resend(gap: number, attempts: number): void {
    this.gaps.add(Math.max(0, gap));
    this.gapCounts[bucketOf(Math.max(0, gap))]!++;
    if (attempts === 2) this.firstGaps.add(Math.max(0, gap));
    this.mostAttempts = Math.max(this.mostAttempts, attempts);
  }

  profile(): ReportTiming {
    const round = (v: number | null) => (v === null ? null : Math.round(v));
    return {
      observed_timeout_ms: this.timeouts.empty ? null : { median: round(this.timeouts.median())!, max: Math.round(this.timeouts.max) },
      retry_gap_ms: this.gaps.empty
        ? null
        : {
            first: round(this.firstGaps.median())!,
            p50: round(this.gaps.median())!,
            max: Math.round(this.gaps.max),
            buckets: GAP_EDGES_MS.map((from, i) => ({ from_ms: from, to_ms: GAP_EDGES_MS[i + 1] ?? null, count: this.gapCounts[i]! })),
          },
      max_attempts: this.mostAttempts || null,
    };
  }
}
