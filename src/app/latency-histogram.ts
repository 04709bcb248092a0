import type { Registry } from 'prom-client';

/** What prom-client's registry reads of a metric when scraped (its `get`). */
interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName: string;
}

/**
 * A histogram without labels whose `observe` is a few array steps: prom-client's builds a label
 * hash, a closure and a label object for every observation, which was a measurable part of a
 * tenant's callback (docs/bench.md, "Hosted mode"). It is registered in a prom-client registry
 * and scraped as prom-client's own histogram is: the same lines, in the same order
 * (`_bucket{le=…}` cumulative, `le="+Inf"`, `_sum`, `_count`).
 */
export class LatencyHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** Observations at or below each bound (not cumulative), and above the last one. */
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registers: Registry[],
  ) {
    this.counts = new Array<number>(buckets.length + 1).fill(0);
    for (const r of registers) r.registerMetric(this as never);
  }

  observe(value: number): void {
    const { buckets } = this;
    let i = 0;
    while (i < buckets.length && value > buckets[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  // (async as prom-client's metrics' `get`: the registry awaits it)
  async get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: string }> {
    const bucket = `${this.name}_bucket`;
    let acc = 0;
    const values: MetricValue[] = this.buckets.map((le, i) => ({ value: (acc += this.counts[i]!), labels: { le }, metricName: bucket }));
    values.push(
      { value: this.count, labels: { le: '+Inf' }, metricName: bucket },
      { value: this.sum, labels: {}, metricName: `${this.name}_sum` },
      { value: this.count, labels: {}, metricName: `${this.name}_count` },
    );
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}
