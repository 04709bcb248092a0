import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app/app.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { openSimulator } from '../src/app/compose.js';
import { compileScenario } from '../src/core/scenario/scenario.js';
import { benchLogger, hostedInProcess, type InjectRoute } from './hosted-in-process.js';
import { median } from './report.js';
import { BENCH_SCENARIO, HEADERS, trafficBodies } from './traffic.js';

/**
 * node dist/bench/hosted-inject.js [requests=20000] [rounds=5] [tenants=1000]
 *
 * What the hosted layer costs a callback, in this process and without sockets: the CPU per request
 * of Fastify's `inject` for (b) the single-tenant app and (h) a tenant's callback path on a hosted
 * app holding `tenants` tenants (same limits, callbacks-per-second lifted), rounds interleaved.
 * Less moved by other load than the HTTP bench (bench.ts --hosted), which stays the judge.
 */
const [n = 20_000, rounds = 5, count = 1000] = process.argv.slice(2, 5).map(Number);

const single = await buildApp({ sim: await openSimulator(compileScenario(BENCH_SCENARIO), new MemoryBackend()), logger: benchLogger() });
const { hosted, tenants, route } = await hostedInProcess(count);
const targets: [string, FastifyInstance, InjectRoute][] = [
  ['(b) single-tenant app', single, { url: '/callback', headers: HEADERS }],
  [`(h) a tenant's callback, ${count} tenants`, hosted, route],
];
const bodies = new Map(targets.map(([, app]) => [app, trafficBodies()]));

async function cpuOf(app: FastifyInstance, to: InjectRoute, times: number): Promise<number> {
  const next = bodies.get(app)!;
  const before = process.cpuUsage();
  for (let i = 0; i < times; i++) {
    const res = await app.inject({ method: 'POST', url: to.url, headers: to.headers, payload: next() });
    if (res.statusCode !== 200 || !res.body.includes('"R0"')) throw new Error(`not R0: ${res.statusCode} ${res.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / times;
}

for (const [, app, to] of targets) await cpuOf(app, to, n / 4); // warm-up
const cpu: number[][] = targets.map(() => []);
for (let r = 0; r < rounds; r++) for (const [i, [, app, to]] of targets.entries()) cpu[i]!.push(await cpuOf(app, to, n));
for (const [i, [name]] of targets.entries())
  console.log(`${name}: ${median(cpu[i]!)!.toFixed(1)} µs CPU per request (median; rounds ${cpu[i]!.map((x) => x.toFixed(1)).join(', ')})`);
const ratios = cpu[1]!.map((h, i) => h / cpu[0]![i]!);
console.log(`(h) ÷ (b), median of the rounds' ratios: ${median(ratios)!.toFixed(3)}`);
for (const [, app] of targets) await app.close();
await tenants.close();
