import { type ChildProcess, spawn } from 'node:child_process';
import { get } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { ROOT } from '../src/paths.js';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, SnapshotFile } from '../src/store/snapshot-file.js';
import type { Change } from '../src/store/state.js';
import { BENCH_SCENARIO as SCENARIO, betBody, betResultBody, HEADERS, player, PLAYERS } from './traffic.js';

/**
 * npm run bench [-- --history] [--duration 10] [--runs 3] [--light-connections 5] [--warmup 2] [--connections 50] [--cpu-prof]
 *                 [--quick]                                     (about a minute: bare Fastify and the memory store only)
 *                 [--redis [--workers 1,2] [--redis-durable]]   (the redis store with 1, 2, … processes, its own redis-server)
 *                 [--server-flags "--max-semi-space-size=64"]   (node flags for the servers)
 *                 [--wallet-args "--journal-size 0"]            (extra wallet-sim start options)
 *                 [--compare bench/results/base]                (also the memory store of another build's dist/, A/B in one run)
 *                 [--compare-args "--log-level info"]           (extra wallet-sim start options of the --compare target only)
 *                 [--sse]                                       (also the memory store with one /admin/events listener)
 *
 * Every server runs in its own process (the built CLI, or bare-server.js for the ceiling) and
 * autocannon drives it from this one, all on 127.0.0.1 with port 0. The traffic is valid:
 * login → bet → bet_result cycles over 1,000 players, unique transaction ids, every bet_result
 * settling the round its connection just bet. R0 and non-R0 replies are counted; a run that is
 * mostly rejections measures nothing and fails.
 */
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const num = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const str = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
/** About a minute: bare Fastify and the memory store, 5 interleaved rounds of 5 s, then 5 s at 5 connections. */
const QUICK = flag('quick');
const DURATION = num('duration', QUICK ? 5 : 10);
const WARMUP = num('warmup', 2);
const RUNS = num('runs', QUICK ? 5 : 3);
/**
 * Also measure latency under light load: this many connections, closed loop; 0 = skip. (autocannon's
 * --rate sends each second's quota in a burst at the start of the second, which measures queueing
 * behind the burst rather than latency at that rate.)
 */
const LIGHT = num('light-connections', 5);
const CONNECTIONS = num('connections', 50);
const HISTORY = flag('history');
/** --redis: the redis store (a redis-server of the bench's own) with 1, 2, … processes, beside bare Fastify and the memory store. */
const REDIS = flag('redis');
const WORKERS = (() => {
  const i = args.indexOf('--workers');
  return (i >= 0 ? args[i + 1]! : '1,2')
    .split(',')
    .map(Number)
    .filter((n) => n >= 1);
})();
/** --redis-durable: redis-server with appendonly yes + appendfsync always (what survives a crash). */
const REDIS_DURABLE = flag('redis-durable');
const CPU_PROF = flag('cpu-prof');
/** Another build's dist/ folder (e.g. a copy of dist/ before a change): its memory store is measured beside this build's. */
const COMPARE = str('compare');
/** Also the memory store with one dashboard listener reading GET /admin/events (issue 12). */
const SSE = flag('sse');
const list = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? '').split(' ').filter(Boolean) : [];
};
/** Node flags for every server, e.g. "--max-semi-space-size=64". */
const SERVER_FLAGS = list('server-flags');
/** Extra `wallet-sim start` options for A/B experiments, e.g. "--journal-size 0". */
const WALLET_ARGS = list('wallet-args');
/** Extra `wallet-sim start` options for the --compare target only (with `--compare dist`: an A/B of an option). */
const COMPARE_ARGS = list('compare-args');
const MIN_R0_SHARE = 0.95;
const RESULTS = join(ROOT, 'bench/results');
const CLI = join(ROOT, 'dist/src/cli.js');
const BARE = join(ROOT, 'dist/bench/bare-server.js');

interface Target {
  name: string;
  ceiling?: boolean;
  command: string[];
  env?: Record<string, string>;
  note?: string;
  redis?: boolean;
  sse?: boolean;
}
interface Measured {
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
  /** Events the SSE listener read during the run. */
  sse_events?: number;
  non_r0_samples: string[];
  note?: string;
}

/** login → bet → bet_result per connection cycle (autocannon resets the context each cycle). */
function traffic(counts: { r0: number; nonR0: number; samples: string[] }): autocannon.Request[] {
  const run = Date.now().toString(36);
  let tx = 0;
  let next = 0;
  const envelope = (event_type: string, user_id: string) => ({
    transaction_id: `${run}-${++tx}`,
    event_type,
    timestamp: Math.floor(Date.now() / 1000),
    feedback_data: 'bench',
    user_id,
  });
  const onResponse = (status: number, body: string) => {
    if (status === 200 && body.includes('"code":"R0"')) counts.r0++;
    else {
      counts.nonR0++;
      if (counts.samples.length < 5) counts.samples.push(`${status} ${body.slice(0, 300)}`);
    }
  };
  type Ctx = { user?: string; game?: string };
  const post = (build: (ctx: Ctx) => object): autocannon.Request => ({
    method: 'POST',
    path: '/callback',
    headers: HEADERS,
    setupRequest: (req, ctx) => {
      req.body = JSON.stringify(build(ctx as Ctx));
      return req;
    },
    onResponse,
  });
  return [
    post((ctx) => {
      ctx.user = player(next++);
      return envelope('login', ctx.user);
    }),
    post((ctx) => {
      ctx.game = `${run}-g${tx}`;
      return betBody(envelope, ctx.user!, ctx.game);
    }),
    post((ctx) => betResultBody(envelope, ctx.user!, ctx.game!)),
  ];
}

/**
 * CPU time (user + system) of a process and its live children (the workers of --workers) so far,
 * from /proc (Linux); undefined elsewhere.
 */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    let ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
    let children: string[] = [];
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      /* none */
    }
    for (const child of children) ms += cpuMs(Number(child)) ?? 0;
    return ms;
  } catch {
    return undefined;
  }
}

/** The redis-server of a --redis bench: a free port, a temp dir, nothing persisted unless --redis-durable. */
async function startRedisServer(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const { createServer } = await import('node:net');
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
  const persistence = REDIS_DURABLE ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${out}`)));
  });
  return { url: `redis://127.0.0.1:${port}`, child };
}

let redisPid: number | undefined;

interface Server {
  url: string;
  child: ChildProcess;
  startupMs: number;
  sse?: { events: number; close(): void };
}

/** One dashboard-like listener: a plain GET of /admin/events, reading (and counting) every event. */
function listen(url: string): Promise<{ events: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/admin/events`, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /admin/events answered ${res.statusCode}`));
      const listener = { events: 0, close: () => req.destroy() };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        for (let i = chunk.indexOf('\ndata: '); i >= 0; i = chunk.indexOf('\ndata: ', i + 1)) listener.events++;
      });
      res.on('error', () => {});
      resolve(listener);
    });
    req.on('error', reject);
  });
}

function startServer(t: Target): Promise<Server> {
  const started = performance.now();
  const prof = CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'prof')}`, `--cpu-prof-name=${t.name.replace(/\W+/g, '-')}.cpuprofile`]
    : [];
  const child = spawn(process.execPath, ['--max-old-space-size=8192', ...SERVER_FLAGS, ...prof, ...t.command], {
    env: { ...process.env, ...t.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listening = false;
  return new Promise((resolve, reject) => {
    // Read until the server says where it listens; then keep draining its output (log lines at
    // --log-level info) without holding it.
    const onData = (chunk: Buffer) => {
      if (listening) return;
      output += chunk.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!m) return;
      listening = true;
      output = '';
      resolve({ url: m[1]!, child, startupMs: Math.round(performance.now() - started) });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${t.name}: server exited with ${code} before listening:\n${output}`)));
  });
}

async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 120_000);
  await exited;
  clearTimeout(timer);
}

/** One timed run against a running server (after its warm-up). */
async function measure(t: Target, server: Server, run: number | 'rate'): Promise<Measured> {
  const name = run === 'rate' ? `${t.name}, ${LIGHT} connections` : t.name;
  process.stdout.write(`${name}${run === 'rate' ? '' : `, run ${run}`}: ${DURATION} s, load ${loadavg()}… `);
  const counts = { r0: 0, nonR0: 0, samples: [] as string[] };
  const cpuBefore = cpuMs(server.child.pid);
  const redisBefore = t.redis ? cpuMs(redisPid) : undefined;
  const eventsBefore = server.sse?.events ?? 0;
  const r = await autocannon({
    url: server.url,
    connections: run === 'rate' ? LIGHT : CONNECTIONS,
    duration: DURATION,
    requests: traffic(counts),
  });
  const cpuAfter = cpuMs(server.child.pid);
  const redisAfter = t.redis ? cpuMs(redisPid) : undefined;
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
  };
  console.log(
    `${m.req_per_s} req/s, p99 ${m.p99_ms} ms, ${m.server_cpu_us_per_req ?? '?'} µs CPU/req${server.sse ? `, ${m.sse_events} events read` : ''}${t.redis ? `, redis-server ${m.redis_cpu_us_per_req ?? '?'} µs/req` : ''}`,
  );
  return m;
}

/**
 * All servers up at once, then RUNS rounds of (a), (b), (c), … interleaved, so a burst of load
 * from elsewhere on the machine hits every target alike; each target reports its best run.
 */
async function measureAll(targets: Target[]): Promise<{ best: Measured[]; all: Measured[][]; atRate: Measured[] }> {
  const servers: Server[] = [];
  try {
    for (const t of targets) {
      process.stdout.write(`${t.name}: starting… `);
      const server = await startServer(t);
      servers.push(server);
      if (t.sse) server.sse = await listen(server.url);
      console.log(`up in ${server.startupMs} ms${t.sse ? ', one /admin/events listener attached' : ''}`);
      if (WARMUP > 0)
        await autocannon({
          url: server.url,
          connections: CONNECTIONS,
          duration: WARMUP,
          requests: traffic({ r0: 0, nonR0: 0, samples: [] }),
        });
    }
    const all: Measured[][] = targets.map(() => []);
    for (let run = 1; run <= RUNS; run++) {
      for (const [i, t] of targets.entries()) all[i]!.push(await measure(t, servers[i]!, run));
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

/** A data file holding `txns` prior transactions (half bets, half settlements), written directly. */
async function historyFile(dir: string, txns: number): Promise<string> {
  const data = join(dir, `history-${txns}.json`);
  const changes: Change[] = [];
  for (let i = 0; i < PLAYERS; i++) changes.push({ op: 'player', user_id: player(i), balance: '1000000', currency: 'USD' });
  for (let i = 0; i < txns / 2; i++) {
    const user_id = player(i);
    const game_no = `h${i}`;
    changes.push({
      op: 'round',
      user_id,
      game_no,
      currency: 'USD',
      stake: '2.5',
      bets: [
        ['1', 'P', '1.5'],
        ['2', 'T', '1'],
      ],
      settled: true,
    });
  }
  for (let i = 0; i < txns; i++) {
    changes.push({
      op: 'txn',
      transaction_id: `hist-${i}`,
      user_id: player(i >> 1),
      event_type: i % 2 ? 'bet_result' : 'bet',
      fingerprint: `fp${i.toString(36).padStart(40, '0')}`,
    });
  }
  const file = new SnapshotFile(data);
  await file.write({
    header: {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      log_seq: 0,
      written_at: new Date().toISOString(),
      records: changes.length,
    },
    changes,
  });
  console.log(`history: ${txns.toLocaleString('en')} prior transactions → ${(file.bytes / 1e6).toFixed(1)} MB snapshot`);
  return data;
}

const fmt = (n: number | undefined, digits = 2) => (n === undefined ? '—' : n.toFixed(digits));

const median = (xs: number[]): number | undefined => {
  const sorted = xs.filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : undefined;
};

function table(rows: Measured[], all: Measured[][], atRate: Measured[]): string {
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

const sumOf = (runs: Measured[], key: 'r0' | 'non_r0' | 'errors') => runs.reduce((n, r) => n + r[key], 0);
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-bench-'));
  try {
    const scenario = join(dir, 'bench-scenario.json');
    await writeFile(scenario, JSON.stringify(SCENARIO));
    const wallet = (store: string, data?: string): string[] => [
      CLI,
      'start',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--scenario',
      scenario,
      '--store',
      store,
      ...(data ? ['--data', data] : []),
      '--log-level',
      'warn',
      ...WALLET_ARGS,
    ];

    const memory = { name: '(b) wallet-sim, memory store', command: wallet('memory') };
    const extra: Target[] = [
      ...(COMPARE
        ? [
            {
              name: `(b0) memory store, build ${COMPARE}${COMPARE_ARGS.length ? ` ${COMPARE_ARGS.join(' ')}` : ''}`,
              command: [join(COMPARE, 'src/cli.js'), ...wallet('memory').slice(1), ...COMPARE_ARGS],
            },
          ]
        : []),
      ...(SSE ? [{ name: '(b+) memory store, one /admin/events listener', command: wallet('memory'), sse: true }] : []),
    ];
    const redis = REDIS ? await startRedisServer(dir) : undefined;
    redisPid = redis?.child.pid;
    if (redis) process.on('exit', () => redis.child.kill('SIGKILL'));
    const onRedis = (workers: number): Target => ({
      name: `(r${workers}) wallet-sim, redis store, ${workers} process${workers > 1 ? 'es' : ''}`,
      redis: true,
      command: [...wallet('redis'), '--redis-url', redis!.url, '--redis-prefix', `bench-${workers}:`, '--workers', String(workers)],
    });
    const targets: Target[] = REDIS
      ? [{ name: '(a) bare Fastify', ceiling: true, command: [BARE] }, memory, ...WORKERS.map(onRedis)]
      : HISTORY
        ? [
            { name: '(a) bare Fastify', ceiling: true, command: [BARE] },
            { name: '(c) file store, 10,000 prior txns', command: wallet('file', await historyFile(dir, 10_000)) },
            { name: '(c) file store, 1,000,000 prior txns', command: wallet('file', await historyFile(dir, 1_000_000)) },
          ]
        : [
            { name: '(a) bare Fastify', ceiling: true, command: [BARE] },
            memory,
            ...(QUICK ? [] : [{ name: '(c) wallet-sim, file store', command: wallet('file', join(dir, 'bench.json')) }]),
            ...extra,
          ];

    const loadBefore = loadavg();
    console.log(
      `wallet-sim bench${HISTORY ? ' --history' : ''}${QUICK ? ' --quick' : ''}${REDIS ? ` --redis${REDIS_DURABLE ? ' (appendfsync always)' : ' (no persistence)'}` : ''}, ${new Date().toISOString()}, load average ${loadBefore}: ${CONNECTIONS} connections, best of ${RUNS} interleaved runs of ${DURATION} s per target, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}${SERVER_FLAGS.length ? `, server flags ${SERVER_FLAGS.join(' ')}` : ''}${WALLET_ARGS.length ? `, wallet-sim ${WALLET_ARGS.join(' ')}` : ''}`,
    );
    const { best: rows, all, atRate } = await measureAll(targets);
    // Each run's ratio is taken against the bare run just before it (the same minute of machine
    // load), and the median of those is reported: bests taken minutes apart compare two machines.
    const bareRuns = all[targets.findIndex((t) => t.ceiling)];
    if (bareRuns) {
      for (const [i, m] of rows.entries()) {
        m.ratio_to_bare = median(all[i]!.map((r, k) => r.req_per_s / bareRuns[k]!.req_per_s));
        m.cpu_ratio_to_bare = median(all[i]!.map((r, k) => (r.server_cpu_us_per_req ?? NaN) / (bareRuns[k]!.server_cpu_us_per_req ?? NaN)));
      }
    }

    console.log(`\n${table(rows, all, atRate)}\n`);
    const cpuMedian = (i: number) => median(all[i]!.map((r) => r.server_cpu_us_per_req ?? NaN));
    for (const [i, m] of rows.entries()) {
      if (!targets[i]!.ceiling)
        console.log(
          `${m.name}: ${fmt(m.ratio_to_bare)}x bare Fastify's req/s (median of ${RUNS} runs), ${cpuMedian(i) ?? '?'} µs server CPU per callback (${fmt(m.cpu_ratio_to_bare)}x bare's ${cpuMedian(0) ?? '?'} µs)`,
        );
    }
    console.log(`load average: ${loadBefore} before, ${loadavg()} after (1, 5, 15 min; ${cpus().length} cores)`);
    const verdicts: string[] = [];
    const check = (ok: boolean, text: string) => verdicts.push(`${ok ? 'MET   ' : 'MISSED'} ${text}`);
    const [, b, c] = rows;
    const p99 = (i: number) => median(all[i]!.map((r) => r.p99_ms)) ?? Infinity;
    if (!HISTORY && b) {
      const cpuX = fmt(b.cpu_ratio_to_bare);
      check((b.ratio_to_bare ?? 0) >= 0.6, `memory >= 0.6x bare Fastify, median of runs (${fmt(b.ratio_to_bare)}x; aim 0.7x)`);
      check((b.cpu_ratio_to_bare ?? Infinity) <= 2, `memory server CPU per callback <= 2x bare's (${cpuX}x; aim 1.5x)`);
      check(p99(1) <= 10, `memory p99 <= 10 ms at ${CONNECTIONS} connections, median of runs (${p99(1)} ms)`);
      const bRate = atRate[0];
      if (bRate) check(bRate.p99_ms <= 5, `memory p99 <= 5 ms at ${LIGHT} connections (${bRate.p99_ms} ms)`);
    }
    if (!HISTORY && !QUICK && !REDIS && c) check((c.ratio_to_bare ?? 0) >= 0.5, `file >= 0.5x bare Fastify (${fmt(c.ratio_to_bare)}x)`);
    if (HISTORY && b && c) {
      // Server CPU per request is the cost itself; req/s also moves with whatever else the machine runs.
      const cpuGrowth = (c.server_cpu_us_per_req ?? Infinity) / (b.server_cpu_us_per_req ?? 1);
      check(
        cpuGrowth <= 1.15,
        `file cost flat from 10k to 1M prior txns: server CPU/request ${b.server_cpu_us_per_req} → ${c.server_cpu_us_per_req} µs (x${fmt(cpuGrowth)}); req/s x${fmt(c.req_per_s / b.req_per_s)}; p99 ${b.p99_ms} → ${c.p99_ms} ms`,
      );
      const [b1, c1] = atRate;
      if (b1 && c1)
        check(
          c1.p99_ms <= 2 * Math.max(b1.p99_ms, 2),
          `file p99 with ${LIGHT} connections flat from 10k to 1M (${b1.p99_ms} → ${c1.p99_ms} ms)`,
        );
    }
    console.log(verdicts.join('\n'));

    const invalid = [...all.flat(), ...atRate].filter((m) => m.r0 / Math.max(1, m.r0 + m.non_r0) < MIN_R0_SHARE);
    mkdirSync(RESULTS, { recursive: true });
    const out = join(
      RESULTS,
      `bench-${HISTORY ? 'history-' : ''}${REDIS ? 'redis-' : ''}${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
    );
    writeFileSync(
      out,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: {
            cores: cpus().length,
            cpu: cpus()[0]?.model,
            node: process.version,
            platform: process.platform,
            loadavg_at_end: readFileSync('/proc/loadavg', 'utf8').trim(),
          },
          mode: HISTORY ? 'history' : REDIS ? (REDIS_DURABLE ? 'redis-durable' : 'redis') : QUICK ? 'quick' : 'targets',
          loadavg_before: loadBefore,
          server_flags: SERVER_FLAGS,
          wallet_args: WALLET_ARGS,
          connections: CONNECTIONS,
          duration_s: DURATION,
          runs_per_target: RUNS,
          targets: rows,
          runs: all,
          at_rate: atRate,
          verdicts,
          valid: invalid.length === 0,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`\nresults: ${out}`);
    if (invalid.length) {
      for (const m of invalid)
        console.error(
          `\nINVALID RUN: ${m.name} answered R0 to only ${m.r0} of ${m.r0 + m.non_r0} requests; a bench of rejections measures nothing. Samples:\n  ${m.non_r0_samples.join('\n  ')}`,
        );
      process.exitCode = 1;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
