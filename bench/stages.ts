import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app/app.js';
import { logger } from '../src/app/logger.js';
import { compileScenario } from '../src/core/scenario/scenario.js';
import {} from '../src/core/simulator.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { injectedCpu } from './injected.js';
import { median } from './report.js';
import { type Profile, stageTimes } from './stage-map.js';
import { BENCH_SCENARIO, trafficBodies } from './traffic.js';
import { openSimulator } from '../src/app/compose.js';

/**
 * node dist/bench/stages.js [requests=20000] [rounds=3]
 *
 * Where a callback's CPU goes, by stage (parse, auth, validate, rules, decide, fingerprint, store,
 * journal, grading, reply, the HTTP framework, GC …): bare Fastify and the wallet-sim app (memory
 * store, logger at warn, the bench's traffic) through Fastify's `inject`, in this process. Each
 * round measures the CPU per request unprofiled, then samples a profile of the same run length;
 * each stage's µs per callback is its share of the profile's busy time times the unprofiled CPU.
 * No sockets here: the HTTP bench's socket cost is on top (bench/stage-map.ts classifies its
 * `--cpu-prof` files too: node dist/bench/stage-map.js <file.cpuprofile> <requests>).
 */
const [n = 20_000, rounds = 3] = process.argv.slice(2, 4).map(Number);
const reply = JSON.stringify({ code: 'R0', event_type: 'bet', timestamp: 0, user_id: 'bench', latest_balance: 1000 });
const log = () => logger({ logLevel: 'warn', logFormat: 'json' });

function bare(): FastifyInstance {
  const app = Fastify({ logger: log() });
  app.post('/callback', async (_request, res) => res.header('content-type', 'application/json').send(reply));
  return app;
}

const sim = await openSimulator(compileScenario(BENCH_SCENARIO), new MemoryBackend());
const targets: [string, FastifyInstance][] = [
  ['bare Fastify, logger at warn', bare()],
  ['wallet-sim, memory store, logger at warn', await buildApp({ sim, logger: log() })],
];
const bodies = new Map(targets.map(([, app]) => [app, trafficBodies()]));

const run = (app: FastifyInstance, count: number) => injectedCpu(app, bodies.get(app)!, count);

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
const cpu: number[][] = targets.map(() => []);
const shares: Map<string, number>[][] = targets.map(() => []);
for (const [, app] of targets) await run(app, n / 4); // warm-up
for (let r = 0; r < rounds; r++)
  for (const [i, [, app]] of targets.entries()) {
    cpu[i]!.push(await run(app, n));
    await session.post('Profiler.start');
    await run(app, n);
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
    const times = stageTimes(profile);
    const busy = [...times.values()].reduce((a, b) => a + b, 0);
    shares[i]!.push(new Map([...times].map(([stage, us]) => [stage, us / busy])));
  }
session.disconnect();

const cpuOf = targets.map((_, i) => median(cpu[i]!)!);
const stages = [...new Set(shares.flatMap((rs) => rs.flatMap((m) => [...m.keys()])))];
const perCallback = (i: number, stage: string) => median(shares[i]!.map((m) => m.get(stage) ?? 0))! * cpuOf[i]!;
stages.sort((a, b) => perCallback(1, b) - perCallback(1, a));
console.log(
  `${new Date().toISOString()}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${n} requests × ${rounds} rounds`,
);
console.log('| stage | bare Fastify µs | wallet-sim µs | difference µs |');
console.log('|---|---:|---:|---:|');
for (const stage of stages) {
  const [a, b] = [perCallback(0, stage), perCallback(1, stage)];
  console.log(`| ${stage} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b - a).toFixed(1)} |`);
}
console.log(
  `| **CPU per request (median, unprofiled)** | **${cpuOf[0]!.toFixed(1)}** | **${cpuOf[1]!.toFixed(1)}** | **${(cpuOf[1]! - cpuOf[0]!).toFixed(1)}** |`,
);
for (const [i, [name]] of targets.entries())
  console.log(`${name}: rounds ${cpu[i]!.map((x) => x.toFixed(1)).join(', ')} µs CPU per request`);
for (const [, app] of targets) await app.close();
