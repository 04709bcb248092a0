import { readFileSync } from 'node:fs';

/**
 * node dist/bench/profile.js <file.cpuprofile> [top=25]
 *
 * Where a server's main thread spent its time, from a `--cpu-prof` profile (`npm run bench --
 * --cpu-prof` writes one per server): self time by function (with file:line), the garbage
 * collector's share, and the idle share. Time is the samples' deltas, so the shares are of the
 * profiled span.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node dist/bench/profile.js <file.cpuprofile> [top]');
  process.exit(1);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (id: number) => {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(?=src\/)/, '')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
};
const self = new Map<string, number>();
/** Time with the function anywhere on the stack (each function counted once per sample). */
const inclusive = new Map<string, number>();
let total = 0;
for (const [i, id] of profile.samples.entries()) {
  const dt = profile.timeDeltas[i] ?? 0;
  const key = keyOf(id);
  self.set(key, (self.get(key) ?? 0) + dt);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(keyOf(at));
  for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
  total += dt;
}
const idle = self.get('(idle)') ?? 0;
const busy = total - idle;
const pct = (us: number, of: number) => `${((100 * us) / of).toFixed(1)} %`;
console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s profiled, main thread busy ${(busy / 1e6).toFixed(1)} s (${pct(busy, total)}); garbage collector ${pct(self.get('(garbage collector)') ?? 0, busy)} of busy`,
);
console.log('self time, share of busy time:');
for (const [key, us] of [...self]
  .filter(([k]) => k !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`${pct(us, busy).padStart(7)}  ${key}`);
console.log('total time (self + callees), share of busy time, our code and the main libraries:');
const ours = /^(?!\(root\)|\(program\))\S+ (src\/|fastify\/|pino\/|safe-stable-stringify|secure-json-parse|decimal\.js|ajv|node:)/;
for (const [key, us] of [...inclusive]
  .filter(([k]) => ours.test(k))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`${pct(us, busy).padStart(7)}  ${key}`);
