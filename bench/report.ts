import type { Measured } from './measure.js';

export const fmt = (n: number | undefined, digits = 2) => (n === undefined ? '—' : n.toFixed(digits));

export const median = (xs: number[]): number | undefined => {
  const sorted = xs.filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : undefined;
};

/**
 * One target against another over the same interleaved rounds: the median of each round's ratio
 * (each round against the other's run of the same minute; bests taken minutes apart compare two
 * machines). `atLeast`: the smallest divisor (a p99 of 0 ms reads as 1).
 */
export const roundsRatio = (a: Measured[], b: Measured[], of: (m: Measured) => number, atLeast = 0): number | undefined =>
  median(a.map((r, k) => of(r) / Math.max(atLeast, of(b[k]!))));

/** The bench's targets (docs/bench.md): bench.ts prints them as MET or MISSED, saved-runs.ts counts them. */
export const TARGETS = {
  cpuToCompare: 1.25,
  throughputToCompare: 0.85,
  p99ToCompare: 1.25,
  p99ToBare: 1.5,
  throughputToBare: 0.7,
  hostedToSingle: 1.05,
  redisToBare: 0.3,
  redisServerUs: 25,
  redisCpuToMemory: 2.5,
} as const;
export const cpuOf = (m: Measured) => m.server_cpu_us_per_req ?? NaN;

export function table(rows: Measured[], all: Measured[][], atRate: Measured[]): string {
  const lines = [
    "| target | req/s (best) | p50 ms | p99 ms (median) | ratio to (a), median of runs | server CPU µs/req (median) | CPU × (a)'s, median | redis-server CPU µs/req (median) | R0 / non-R0 | errors | start-up ms | req/s of each run |",
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const [i, m] of rows.entries()) {
    const runs = all[i]!;
    lines.push(
      `| ${m.name} | ${m.req_per_s} | ${m.p50_ms} | ${median(runs.map((r) => r.p99_ms))} | ${fmt(m.ratio_to_bare)} | ${median(runs.map((r) => r.server_cpu_us_per_req ?? NaN)) ?? '—'} | ${fmt(m.cpu_ratio_to_bare)} | ${median(runs.map((r) => r.redis_cpu_us_per_req ?? NaN)) ?? '—'} | ${sumOf(runs, 'r0')} / ${sumOf(runs, 'non_r0')} | ${sumOf(runs, 'errors')} | ${m.startup_ms} | ${runs.map((r) => r.req_per_s).join(', ')} |`,
    );
  }
  for (const m of atRate)
    lines.push(
      `| ${m.name} | ${m.req_per_s} | ${m.p50_ms} | ${m.p99_ms} | | ${m.server_cpu_us_per_req ?? '—'} | | ${m.redis_cpu_us_per_req ?? '—'} | ${m.r0} / ${m.non_r0} | ${m.errors} | | |`,
    );
  return lines.join('\n');
}

export const sumOf = (runs: Measured[], key: 'r0' | 'non_r0' | 'errors') => runs.reduce((n, r) => n + r[key], 0);
