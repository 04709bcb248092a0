import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { SCENARIOS_DIR } from '../src/kernel/paths.js';
import type { CallbackRequest, Scenario } from '../src/protocol/types.generated.js';
import { compileScenario } from '../src/core/scenario/scenario.js';
import { Simulator } from '../src/core/simulator.js';
import { median } from './report.js';
import { BENCH_SCENARIO, trafficBodies } from './traffic.js';
import { openSimulator } from '../src/app/compose.js';

/**
 * node dist/bench/draw.js [callbacks=200000] [rounds=5]
 *
 * What random faults cost a callback on the memory backend, in this process: counting the
 * player's callback (`countCall`) and choosing the rule (`chooseRule`: every rule of the event
 * whose conditions hold counts the callback and, when due, draws: one SHA-256), over the bench's
 * traffic, with the rules of scenarios/chaos.json (six rules with a `probability`) and with none.
 * Prints the median CPU per callback of each and their difference. With the redis backend the
 * count is one more round trip per callback and each holding rule's counters a MULTI (docs/bench.md).
 */
const [n = 200_000, rounds = 5] = process.argv.slice(2).map(Number);
const chaos = JSON.parse(readFileSync(join(SCENARIOS_DIR, 'chaos.json'), 'utf8')) as Scenario;
const open = (rules: Scenario['rules']) =>
  openSimulator(compileScenario({ ...(BENCH_SCENARIO as Scenario), rules, seed: 1 }), new MemoryBackend());
const targets: [string, Simulator][] = [
  ['no rules', await open([])],
  ['chaos.json rules', await open(chaos.rules)],
];
const next = trafficBodies();
const requests = Array.from({ length: 30_000 }, () => JSON.parse(next()) as CallbackRequest);

function run(sim: Simulator, count: number): number {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const req = requests[i % requests.length]!;
    const n = sim.countCall(req.user_id) as number;
    void sim.chooseRule(req, n); // the memory backend chooses at once: no promise to wait for
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

for (const [, sim] of targets) run(sim, n / 5); // warm-up
const figures = new Map<string, number[]>(targets.map(([name]) => [name, []]));
for (let r = 0; r < rounds; r++) for (const [name, sim] of targets) figures.get(name)!.push(run(sim, n));
for (const [name, xs] of figures)
  console.log(`${name}: median ${median(xs)!.toFixed(2)} µs CPU per callback (${xs.map((x) => x.toFixed(2)).join(', ')})`);
const cost = median(figures.get('chaos.json rules')!)! - median(figures.get('no rules')!)!;
console.log(`the draws and counters of chaos.json: ${cost.toFixed(2)} µs per callback (${n} callbacks × ${rounds} rounds)`);
