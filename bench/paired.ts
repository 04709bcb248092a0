import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { besideTarget, hostedTarget } from './hosted.js';
import { loadavg } from './measure.js';
import { median } from './report.js';
import { cpuMs, type Server, startRedisServer, startServer, stopServer, type Target, walletCommand } from './servers.js';
import { autocannonRequests, BENCH_SCENARIO, HEADERS } from './traffic.js';

/**
 * node dist/bench/paired.js [rounds=8] [seconds=5] [connections=25] <target>...
 *
 * Targets driven at the same time, not one after the other: each round drives every target at
 * once for `seconds`, so whatever else the machine does in that minute weighs on all of them
 * alike (bench.ts gives each target its own few seconds of the machine in turn, and on a shared
 * 2-core machine those differ by ±20 %). Prints each round's server CPU per callback (all threads,
 * and the main thread alone: the rest is V8's helpers, concurrent GC and compilation) and, for
 * every target after the first, the median of the rounds' ratios to the first. Targets:
 *
 *   b          the single-tenant memory store
 *   r          the single-tenant Redis store, one process, over a redis-server of its own (whose CPU
 *              per callback is printed apart: each target's commits alone in its redis-server)
 *   bw:<n>     the same, after answering n admin requests (PUT /admin/players/<id>) first
 *   bh:<n>     the same, in a process that first created n tenants (default 1,000) in a hosted app
 *              beside it (never listening; ./host-beside.ts): a diagnostic of that history (with
 *              the callback lane it no longer stands in for a host: docs/hosted-cost.md)
 *   h          a tenant's callback path on a hosted wallet-sim of 1,000 tenants (h:<n>: of n);
 *              with BENCH_DROP_OTHERS=1 in the environment, all tenants but the driven one are
 *              deleted once created
 *   …@<dir>    another build's (a copy of dist/ inside the repo, e.g. bench/results/before)
 *   …+<file>   the server preloads that module first (node --import; a .cjs: --require)
 *
 * With two targets the server CPU per callback of the pair moved together within a few per cent
 * on a machine at load average 4–5 (docs/hosted.md, "What a tenant's callback costs, taken apart").
 */
const args = process.argv.slice(2);
const nums = args.filter((a) => /^\d+$/.test(a)).map(Number);
// (--gc, read by ./options.js: the servers trace their collections, summed below)
const specs = args.filter((a) => !/^\d+$/.test(a) && !a.startsWith('--'));
const [rounds = 8, seconds = 5, connections = 25] = nums;

const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-paired-'));
const scenario = join(dir, 'bench-scenario.json');
await writeFile(scenario, JSON.stringify(BENCH_SCENARIO));
const wallet = (dist: string) => walletCommand(join(dist, 'src/cli.js'), scenario, 'memory');
const targets: Target[] = [];
const redisServers: ChildProcess[] = [];
for (const [i, spec] of specs.entries()) {
  const preload = spec.includes('+') ? spec.slice(spec.indexOf('+') + 1) : undefined;
  const [kindOf, dist = join(import.meta.dirname, '..')] = spec.replace(/\+.*$/, '').split('@') as [string, string?];
  const [kind, count] = kindOf.split(':') as [string, string?];
  const label = `(${kind}${i})`;
  targets.push(
    kind === 'bh'
      ? besideTarget(wallet(dist), dist, label, count === undefined ? undefined : Number(count))
      : kind === 'h'
        ? await hostedTarget(dir, wallet(dist), label, '', count === undefined ? undefined : Number(count))
        : kind === 'r'
          ? await redisTarget(dist, label)
          : {
              name: `${label} memory store ${dist}`,
              command: wallet(dist),
              ...(kind === 'bw' && { setup: adminTraffic(Number(count ?? 1000)) }),
            },
  );
  // `+<file>`: the server preloads that module first (e.g. one holding some live heap).
  if (preload)
    Object.assign(targets.at(-1)!, {
      name: `${targets.at(-1)!.name} +${preload}`,
      env: { NODE_OPTIONS: `${preload.endsWith('.cjs') ? '--require' : '--import'} ${preload}` },
    });
}
const servers: Server[] = [];
try {
  for (const t of targets) {
    const s = await startServer(t);
    if (t.setup) s.route = await t.setup(s.url);
    servers.push(s);
    console.log(`${t.name}: up`);
  }
  const drive = (s: Server, duration: number) =>
    autocannon({ url: s.url, connections, duration, requests: autocannonRequests({ r0: 0, nonR0: 0, samples: [] }, s.route) });
  await Promise.all(servers.map((s) => drive(s, 3))); // warm-up
  const cpu: number[][] = targets.map(() => []);
  const gcBefore = servers.map((s) => s.gc && { ...s.gc });
  const requests = servers.map(() => 0);
  /** The main thread's share (the rest: V8's helper threads, i.e. concurrent GC and compilation, and libuv's). */
  const main: number[][] = targets.map(() => []);
  /** Redis targets: their redis-server's CPU per callback. */
  const redisCpu: number[][] = targets.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const redisBefore = targets.map((t) => (t.redisPid ? cpuMs(t.redisPid)! : 0));
    const before = servers.map((s) => cpuMs(s.child.pid)!);
    const mainBefore = servers.map((s) => mainMs(s.child.pid!));
    const results = await Promise.all(servers.map((s) => drive(s, seconds)));
    const after = servers.map((s) => cpuMs(s.child.pid)!);
    const mainAfter = servers.map((s) => mainMs(s.child.pid!));
    const redisAfter = targets.map((t) => (t.redisPid ? cpuMs(t.redisPid)! : 0));
    for (const [i, res] of results.entries()) {
      const n = Math.max(1, res.requests.total);
      requests[i]! += res.requests.total;
      if (targets[i]!.redisPid) redisCpu[i]!.push((1000 * (redisAfter[i]! - redisBefore[i]!)) / n);
      cpu[i]!.push((1000 * (after[i]! - before[i]!)) / n);
      main[i]!.push((1000 * (mainAfter[i]! - mainBefore[i]!)) / n);
    }
    console.log(
      `round ${r + 1}, load ${loadavg()}: ${results.map((res, i) => `${cpu[i]![r]!.toFixed(0)} µs, main ${main[i]![r]!.toFixed(0)}${targets[i]!.redisPid ? `, redis-server ${redisCpu[i]![r]!.toFixed(0)}` : ''} (${Math.round(res.requests.average)} req/s)`).join(' | ')}`,
    );
  }
  for (const [i, t] of targets.entries()) {
    const ratio = i === 0 ? '' : `, ÷ first: median of rounds' ratios ${median(cpu[i]!.map((c, r) => c / cpu[0]![r]!))!.toFixed(3)}`;
    const mainRatio = i === 0 ? '' : `; main thread ${median(main[i]!.map((c, r) => c / main[0]![r]!))!.toFixed(3)}`;
    const [gc, gcAt] = [servers[i]!.gc, gcBefore[i]];
    if (gc && gcAt) {
      const per = (x: number) => (x / Math.max(1, requests[i]!)).toFixed(1);
      console.log(
        `${t.name}: GC per callback: ${per(gc.allocated - gcAt.allocated)} B allocated, ${per(gc.promoted - gcAt.promoted)} B promoted, ` +
          `pauses ${per(1000 * (gc.scavengeMs - gcAt.scavengeMs))} µs scavenging + ${per(1000 * (gc.markMs - gcAt.markMs))} µs marking, a scavenge every ${per(gc.scavenges - gcAt.scavenges === 0 ? 0 : (requests[i]! * requests[i]!) / (gc.scavenges - gcAt.scavenges))} callbacks`,
      );
    }
    console.log(
      `${t.name}: ${median(cpu[i]!)!.toFixed(0)} µs CPU per callback (main thread ${median(main[i]!)!.toFixed(0)}), median${ratio}${mainRatio}`,
    );
    if (t.redisPid) {
      const first = redisCpu[0]!.length
        ? `, ÷ first: median of rounds' ratios ${median(redisCpu[i]!.map((c, r) => c / redisCpu[0]![r]!))!.toFixed(3)}`
        : '';
      console.log(`${t.name}: redis-server ${median(redisCpu[i]!)!.toFixed(1)} µs CPU per callback, median${i === 0 ? '' : first}`);
    }
  }
} finally {
  for (const s of servers) await stopServer(s);
  for (const child of redisServers) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
}

/** `r`: the Redis store of the build in `dist`, one process, over a redis-server of its own. */
async function redisTarget(dist: string, label: string): Promise<Target> {
  const redis = await startRedisServer(await mkdtemp(join(dir, 'redis-')));
  redisServers.push(redis.child);
  return {
    name: `${label} redis store ${dist}`,
    command: [...walletCommand(join(dist, 'src/cli.js'), scenario, 'redis'), '--redis-url', redis.url],
    redisPid: redis.child.pid,
  };
}

/** CPU time (ms) of a process's main thread only. */
function mainMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** `bw:<n>`: the single-tenant server first answers n admin requests (PUT /admin/players/<id>), as a hosted one answers POST /tenants. */
function adminTraffic(n: number) {
  return async (url: string) => {
    for (let i = 0; i < n; i++) {
      const res = await fetch(`${url}/admin/players/warm-${i}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ balance: 100 }),
      });
      if (res.status !== 200) throw new Error(`PUT /admin/players answered ${res.status}: ${await res.text()}`);
    }
    return { path: '/callback', headers: HEADERS };
  };
}
