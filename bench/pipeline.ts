import { compileScenario } from '../src/scenario/scenario.js';
import { handleCallback } from '../src/callback/handle.js';
import { Simulator } from '../src/simulator.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { BENCH_SCENARIO, HEADERS, trafficBodies } from './traffic.js';

/**
 * node dist/bench/pipeline.js [callbacks=100000] [rounds=5]
 *
 * The callback pipeline without HTTP: what the callback route does for one callback (handleCallback,
 * then the journal entry begun and finished), over the bench's traffic, in this process. Prints the
 * CPU per callback (process.cpuUsage: user + system, garbage collection included) of each round
 * and their median: a lever's A/B in seconds, much less moved by other load than req/s. The HTTP
 * bench (bench.ts) stays the judge.
 */
const [n = 100_000, rounds = 5] = process.argv.slice(2).map(Number);
const sim = await Simulator.open(compileScenario(BENCH_SCENARIO), new MemoryBackend());
const next = trafficBodies();
const headers = { host: '127.0.0.1:8080', connection: 'keep-alive', 'content-length': '300', ...HEADERS };

async function one(): Promise<void> {
  const started = performance.now();
  const receivedAt = new Date().toISOString();
  const body = next();
  const out = await handleCallback(sim, { method: 'POST', url: '/callback', headers, body });
  if (out.code !== 'R0') throw new Error(`not R0: ${out.reason}`);
  const pending = sim.journal.begin(Object.assign(out.entry, { received_at: receivedAt }), body.length);
  pending.finish({ replied_at: new Date().toISOString(), duration_ms: Math.round(performance.now() - started), client_gone: false });
}

for (let i = 0; i < n / 5; i++) await one(); // warm-up, and a journal at its steady size
const perCallback: number[] = [];
for (let r = 0; r < rounds; r++) {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await one();
  const used = process.cpuUsage(before);
  perCallback.push((used.user + used.system) / n);
  console.log(`round ${r + 1}: ${perCallback.at(-1)!.toFixed(1)} µs CPU per callback`);
}
const sorted = [...perCallback].sort((a, b) => a - b);
console.log(
  `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} µs CPU per callback (${n} callbacks × ${rounds} rounds), load average ${(
    await import('node:os')
  )
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
