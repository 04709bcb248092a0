import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { CONNECTIONS, DURATION, LIGHT, RUNS, WARMUP } from './options.js';
import { cpuMs, type GcTotals, listen, type Server, startServer, stopServer, type Target } from './servers.js';
import { autocannonRequests as traffic } from './traffic.js';

export interface Measured {
  name: string;
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  r0: number;
  non_r0: number;
  errors: number;
  timeouts: number;
  startup_ms: number;
  /** Server CPU (user + system) per request: unlike req/s, barely moved by a busy machine or the client. */
  server_cpu_us_per_req?: number;
  /** redis-server's CPU per request (redis targets). */
  redis_cpu_us_per_req?: number;
  ratio_to_bare?: number;
  /** Server CPU per request ÷ bare Fastify's, median over rounds. */
  cpu_ratio_to_bare?: number;
  /** --gc: the server's young-generation allocation, bytes promoted to the old generation and GC pauses, per request. */
  gc_per_req?: { allocated_bytes: number; promoted_bytes: number; scavenge_us: number; mark_us: number; requests_per_scavenge: number };
  /** Events the SSE listener read during the run. */
  sse_events?: number;
  non_r0_samples: string[];
  note?: string;
}

export const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** What the server's garbage collector did per request between two readings of its totals. */
function gcPerRequest(before: GcTotals, after: GcTotals, requests: number): NonNullable<Measured['gc_per_req']> {
  const n = Math.max(1, requests);
  return {
    allocated_bytes: Math.round((after.allocated - before.allocated) / n),
    promoted_bytes: Math.round((after.promoted - before.promoted) / n),
    scavenge_us: Math.round(((1000 * (after.scavengeMs - before.scavengeMs)) / n) * 10) / 10,
    mark_us: Math.round(((1000 * (after.markMs - before.markMs)) / n) * 10) / 10,
    requests_per_scavenge: Math.round(n / Math.max(1, after.scavenges - before.scavenges)),
  };
}

/** One timed run against a running server (after its warm-up). */
export async function measure(t: Target, server: Server, run: number | 'rate'): Promise<Measured> {
  const name = run === 'rate' ? `${t.name}, ${LIGHT} connections` : t.name;
  process.stdout.write(`${name}${run === 'rate' ? '' : `, run ${run}`}: ${DURATION} s, load ${loadavg()}… `);
  const counts = { r0: 0, nonR0: 0, samples: [] as string[] };
  const cpuBefore = cpuMs(server.child.pid);
  const redisBefore = t.redisPid !== undefined ? cpuMs(t.redisPid) : undefined;
  const eventsBefore = server.sse?.events ?? 0;
  const gcBefore = server.gc && { ...server.gc };
  const r = await autocannon({
    url: server.url,
    connections: run === 'rate' ? LIGHT : CONNECTIONS,
    duration: DURATION,
    requests: traffic(counts, server.route),
  });
  const cpuAfter = cpuMs(server.child.pid);
  const redisAfter = t.redisPid !== undefined ? cpuMs(t.redisPid) : undefined;
  const m: Measured = {
    name,
    req_per_s: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    requests: r.requests.total,
    r0: counts.r0,
    non_r0: counts.nonR0,
    errors: r.errors,
    timeouts: r.timeouts,
    startup_ms: server.startupMs,
    server_cpu_us_per_req:
      cpuBefore !== undefined && cpuAfter !== undefined
        ? Math.round((1000 * (cpuAfter - cpuBefore)) / Math.max(1, r.requests.total))
        : undefined,
    redis_cpu_us_per_req:
      redisBefore !== undefined && redisAfter !== undefined
        ? Math.round((1000 * (redisAfter - redisBefore)) / Math.max(1, r.requests.total))
        : undefined,
    non_r0_samples: counts.samples,
    note: t.note,
    ...(server.sse && { sse_events: server.sse.events - eventsBefore }),
    ...(server.gc && gcBefore && { gc_per_req: gcPerRequest(gcBefore, server.gc, r.requests.total) }),
  };
  console.log(
    `${m.req_per_s} req/s, p99 ${m.p99_ms} ms, ${m.server_cpu_us_per_req ?? '?'} µs CPU/req${server.sse ? `, ${m.sse_events} events read` : ''}${t.redisPid !== undefined ? `, redis-server ${m.redis_cpu_us_per_req ?? '?'} µs/req` : ''}${m.gc_per_req ? `, GC per req: ${m.gc_per_req.allocated_bytes} B allocated, ${m.gc_per_req.promoted_bytes} B promoted, pauses ${m.gc_per_req.scavenge_us} + ${m.gc_per_req.mark_us} µs, a scavenge every ${m.gc_per_req.requests_per_scavenge} requests` : ''}`,
  );
  return m;
}

/**
 * All servers up at once, then RUNS rounds of (a), (b), (c), … interleaved, so a burst of load
 * from elsewhere on the machine hits every target alike; each target reports its best run. Every
 * other round runs them in reverse order: in one fixed order, a copy of the build measured right
 * after it came out 5–9 % cheaper than the build itself (two A/A runs, docs/bench.md), so a fixed
 * order favours whichever target comes later.
 */
export async function measureAll(targets: Target[]): Promise<{ best: Measured[]; all: Measured[][]; atRate: Measured[] }> {
  const servers: Server[] = [];
  try {
    for (const t of targets) {
      process.stdout.write(`${t.name}: starting… `);
      const server = await startServer(t);
      servers.push(server);
      if (t.sse) server.sse = await listen(server.url);
      if (t.setup) server.route = await t.setup(server.url);
      console.log(`up in ${server.startupMs} ms${t.sse ? ', one /admin/events listener attached' : ''}`);
      if (WARMUP > 0)
        await autocannon({
          url: server.url,
          connections: CONNECTIONS,
          duration: WARMUP,
          requests: traffic({ r0: 0, nonR0: 0, samples: [] }, server.route),
        });
    }
    const all: Measured[][] = targets.map(() => []);
    for (let run = 1; run <= RUNS; run++) {
      const order = [...targets.keys()];
      if (run % 2 === 0) order.reverse();
      for (const i of order) all[i]!.push(await measure(targets[i]!, servers[i]!, run));
    }
    const best = all.map((runs) => runs.reduce((a, b) => (b.req_per_s > a.req_per_s ? b : a)));
    const atRate: Measured[] = [];
    if (LIGHT > 0) for (const [i, t] of targets.entries()) if (!t.ceiling) atRate.push(await measure(t, servers[i]!, 'rate'));
    return { best, all, atRate };
  } finally {
    for (const s of servers) {
      s.sse?.close();
      await stopServer(s);
    }
  }
}
