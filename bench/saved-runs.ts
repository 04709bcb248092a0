import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/kernel/paths.js';
import type { Measured } from './measure.js';
import { cpuOf, fmt, roundsRatio, TARGETS } from './report.js';

/**
 * node dist/bench/saved-runs.js [results dir] [--match <text>] [--since <ISO date>] [--skip <dates>] [--all]
 *
 * Every saved bench run (bench/results/*.json) at 50 connections with a `--compare` target (b0)
 * whose name contains `--match` (e.g. lean-wallet), one line each: the medians of its rounds'
 * ratios, as the bench's verdicts take them — the memory store's CPU per callback ÷ (b0)'s, the
 * p99 of each ÷ bare Fastify's, the throughput of each ÷ bare's — then how many runs met each
 * target. Left out unless --all: runs with node flags for the servers (experiments), profiled runs
 * (`--cpu-prof`, recorded since 27 Nov 2026 05:50) and runs of fewer than 5 rounds. `--since`: only
 * runs saved from then on (e.g. 2026-11-27T01:20, since when the bench alternates the targets' order
 * every other round). `--skip`: runs saved at these times (ISO prefixes, comma-separated: a profiled
 * run of before 05:50 on 27 Nov 2026, say). What one run says moves by ±0.1 on a shared machine; this says how often a
 * target is met.
 */
interface Saved {
  date: string;
  connections: number;
  server_flags?: string[];
  cpu_prof?: boolean;
  targets: Measured[];
  runs: Measured[][];
}

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const match = option('match') ?? '';
const since = option('since') ?? '';
const skipped = (option('skip') ?? '').split(',').filter(Boolean);
const all = args.includes('--all');
const dir =
  args.find((a, i) => !a.startsWith('--') && !['--match', '--since', '--skip'].includes(args[i - 1] ?? '')) ??
  join(ROOT, 'bench', 'results');

const rows: { date: string; cpu: number; thrToB0: number; p99ToB0: number; p99: number; p99b0: number; thr: number; thrB0: number }[] = [];
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const saved = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Saved;
  if (saved.connections !== 50 || !saved.runs || saved.date < since || skipped.some((d) => saved.date.startsWith(d))) continue;
  if (!all && (saved.server_flags?.length || saved.cpu_prof || saved.runs[0]!.length < 5)) continue;
  const names = saved.targets.map((t) => t.name);
  const [bare, memory, b0] = [
    names.indexOf('(a) bare Fastify'),
    names.indexOf('(b) wallet-sim, memory store'),
    names.findIndex((n) => n.startsWith('(b0)')),
  ];
  if (bare < 0 || memory < 0 || b0 < 0 || !names[b0]!.includes(match)) continue;
  const R = saved.runs;
  const ratio = (i: number, j: number, of: (m: Measured) => number, atLeast?: number) => roundsRatio(R[i]!, R[j]!, of, atLeast) ?? NaN;
  rows.push({
    date: saved.date,
    cpu: ratio(memory, b0, cpuOf),
    thrToB0: ratio(memory, b0, (m) => m.req_per_s),
    p99ToB0: ratio(memory, b0, (m) => m.p99_ms, 1),
    p99: ratio(memory, bare, (m) => m.p99_ms, 1),
    p99b0: ratio(b0, bare, (m) => m.p99_ms, 1),
    thr: ratio(memory, bare, (m) => m.req_per_s),
    thrB0: ratio(b0, bare, (m) => m.req_per_s),
  });
}

console.log(
  "| run (UTC) | memory CPU ÷ (b0)'s | memory req/s ÷ (b0)'s | memory p99 ÷ (b0)'s | memory p99 ÷ bare's | (b0) p99 ÷ bare's | memory req/s ÷ bare's | (b0) req/s ÷ bare's |",
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| ${r.date.slice(0, 16).replace('T', ' ')} | ${fmt(r.cpu)} | ${fmt(r.thrToB0)} | ${fmt(r.p99ToB0)} | ${fmt(r.p99)} | ${fmt(r.p99b0)} | ${fmt(r.thr)} | ${fmt(r.thrB0)} |`,
  );
const met = (of: (r: (typeof rows)[number]) => boolean) => `${rows.filter(of).length} of ${rows.length}`;
console.log(`\n${rows.length} runs${match ? ` against a (b0) named "${match}"` : ''}${since ? ` since ${since}` : ''}; targets met:`);
const { cpuToCompare, throughputToCompare, p99ToCompare, p99ToBare, throughputToBare } = TARGETS;
console.log(`- memory CPU per callback <= ${cpuToCompare}x (b0)'s: ${met((r) => r.cpu <= cpuToCompare)}`);
console.log(`- memory req/s >= ${throughputToCompare}x (b0)'s: ${met((r) => r.thrToB0 >= throughputToCompare)}`);
console.log(`- memory p99 <= ${p99ToCompare}x (b0)'s: ${met((r) => r.p99ToB0 <= p99ToCompare)}`);
console.log(
  `- all three (issue 49's lines): ${met((r) => r.cpu <= cpuToCompare && r.thrToB0 >= throughputToCompare && r.p99ToB0 <= p99ToCompare)}`,
);
console.log(
  `- memory p99 <= ${p99ToBare}x bare's: ${met((r) => r.p99 <= p99ToBare)}; (b0)'s p99 <= ${p99ToBare}x bare's: ${met((r) => r.p99b0 <= p99ToBare)}`,
);
console.log(
  `- memory req/s >= ${throughputToBare}x bare's: ${met((r) => r.thr >= throughputToBare)}; (b0)'s: ${met((r) => r.thrB0 >= throughputToBare)}`,
);
