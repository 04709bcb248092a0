import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app/app.js';
import { logger } from '../src/app/logger.js';
import { compileScenario } from '../src/core/scenario/scenario.js';
import {} from '../src/core/simulator.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { injectedCpu } from './injected.js';
import { median } from './report.js';
import { BENCH_SCENARIO, trafficBodies } from './traffic.js';
import { openSimulator } from '../src/app/compose.js';

/**
 * node dist/bench/inject.js [requests=20000] [rounds=5] [log level=warn]   (info: redirect stdout)
 * ONLY=b node --cpu-prof dist/bench/inject.js …   (one target, to profile it alone)
 *
 * The HTTP framework's share, in this process and without sockets: the server CPU per request of
 * Fastify's `inject` for (a) bare Fastify (the bench's ceiling route), (a+) the same with the
 * CLI's logger, (b) the whole wallet-sim app (memory store, the bench's traffic) and (c) the same app
 * with a grading session that folds nothing, interleaved. (b) − (a+) is what the app costs above
 * Fastify (the HTTP bench's gap beyond that is the socket); (b) − (c) is what the fold costs.
 */
const [n = 20_000, rounds = 5] = process.argv.slice(2, 4).map(Number);
const level = process.argv[4] ?? 'warn';
const reply = JSON.stringify({ code: 'R0', event_type: 'bet', timestamp: 0, user_id: 'bench', latest_balance: 1000 });

function bare(withLogger: boolean): FastifyInstance {
  const app = Fastify({ logger: withLogger ? logger({ logLevel: level, logFormat: 'json' }) : false });
  app.post('/callback', async (_request, res) => res.header('content-type', 'application/json').send(reply));
  return app;
}

const sim = await openSimulator(compileScenario(BENCH_SCENARIO), new MemoryBackend());
// (c): the same app whose grading session folds nothing: (b) − (c) is the fold's cost per callback (its events are
// still queued and handed over, src/grading/batched-feed.ts; bench/pipeline.ts --ab-grading measures grading whole).
const ungraded = await openSimulator(compileScenario(BENCH_SCENARIO), new MemoryBackend());
const { grader } = ungraded.grading;
Object.assign(grader, { arrive: (a: object) => ({ ...a, nth: 0, outcome: 'waiting' }), complete() {}, count() {}, closed() {} });
const targets: [string, FastifyInstance][] = [
  ['(a) bare Fastify', bare(false)],
  [`(a+) bare Fastify, logger at ${level}`, bare(true)],
  [`(b) wallet-sim app, memory store, logger at ${level}`, await buildApp({ sim, logger: logger({ logLevel: level, logFormat: 'json' }) })],
  [
    `(c) the same without grading, logger at ${level}`,
    await buildApp({ sim: ungraded, logger: logger({ logLevel: level, logFormat: 'json' }) }),
  ],
];
const only = process.env.ONLY;
if (only) targets.splice(0, Infinity, ...targets.filter(([name]) => name.startsWith(`(${only})`)));
// One traffic per target: a cycle (login, bet, its settlement) never spans two apps.
const bodies = new Map(targets.map(([, app]) => [app, trafficBodies()]));
const cpu: number[][] = targets.map(() => []);

const run = (app: FastifyInstance, count: number) => injectedCpu(app, bodies.get(app)!, count);

for (const [, app] of targets) await run(app, n / 4); // warm-up
for (let r = 0; r < rounds; r++) for (const [i, [, app]] of targets.entries()) cpu[i]!.push(await run(app, n));
for (const [i, [name]] of targets.entries()) {
  const m = median(cpu[i]!)!;
  console.error(`${name}: ${m.toFixed(1)} µs CPU per request (median; rounds ${cpu[i]!.map((x) => x.toFixed(1)).join(', ')})`);
}
for (const [, app] of targets) await app.close();
