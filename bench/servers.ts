import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { CPU_PROF, GC, REDIS_DURABLE, RESULTS, SERVER_FLAGS } from './options.js';

export interface Target {
  name: string;
  ceiling?: boolean;
  command: string[];
  env?: Record<string, string>;
  note?: string;
  /** redis targets: the bench's redis-server, whose CPU is measured apart. */
  redisPid?: number;
  sse?: boolean;
  /** Run once the server listens (e.g. creating tenants): where its traffic goes, when not POST /callback. */
  setup?: (url: string) => Promise<Route>;
}

/** Where a target's callbacks go and with which headers (a hosted tenant's path and credentials). */
export interface Route {
  path: string;
  headers: Record<string, string>;
}

export interface Server {
  url: string;
  child: ChildProcess;
  startupMs: number;
  /** --gc: sums of the server's `--trace-gc-nvp` lines so far. */
  gc?: GcTotals;
  sse?: { events: number; close(): void };
  route?: Route;
}

/**
 * CPU time (user + system) of a process and its live children (the workers of --workers) so far,
 * from /proc (Linux); undefined elsewhere.
 */
/**
 * A wallet-sim (or a build answering its command line) as the bench starts its targets: `cli` over
 * `scenario`, logging warnings only.
 */
export const walletCommand = (cli: string, scenario: string, store: string, data?: string): string[] => [
  cli,
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
];

export function cpuMs(pid: number | undefined): number | undefined {
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
/** One section of a redis-server's INFO, as field → value. */
export type RedisInfo = Record<string, string>;
export const redisInfo = async (redis: { info(section: string): Promise<string> }, section: string): Promise<RedisInfo> =>
  Object.fromEntries(
    (await redis.info(section))
      .split('\r\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );

export async function startRedisServer(dir: string): Promise<{ url: string; child: ChildProcess }> {
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
  // Its pipes must not keep the bench alive once the runs are over (the bench kills it on exit).
  child.stdout!.destroy();
  child.stderr!.destroy();
  child.unref();
  return { url: `redis://127.0.0.1:${port}`, child };
}

/** One dashboard-like listener: a plain GET of /admin/events, reading (and counting) every event. */
export function listen(url: string): Promise<{ events: number; close(): void }> {
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

/** Sums over a server's garbage collections (`--trace-gc-nvp`): bytes and milliseconds. */
export interface GcTotals {
  allocated: number;
  promoted: number;
  /** Pauses of the main thread: scavenges, and mark-compacts (their final pause). */
  scavengeMs: number;
  markMs: number;
  scavenges: number;
}

/** Adds one `--trace-gc-nvp` line (`pause=… gc=s … allocated=… promoted=…`) to the totals. */
export function addGcLine(totals: GcTotals, line: string): void {
  const kind = /\bgc=(\w+)/.exec(line)?.[1];
  if (!kind) return;
  const field = (name: string) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
  totals.allocated += field('allocated');
  totals.promoted += field('promoted');
  if (kind === 's') {
    totals.scavenges++;
    totals.scavengeMs += field('pause');
  } else totals.markMs += field('pause');
}

export function startServer(t: Target): Promise<Server> {
  const started = performance.now();
  const prof = CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'prof')}`, `--cpu-prof-name=${t.name.replace(/\W+/g, '-')}.cpuprofile`]
    : [];
  const gcFlags = GC ? ['--trace-gc-nvp'] : [];
  const child = spawn(process.execPath, ['--max-old-space-size=8192', ...SERVER_FLAGS, ...gcFlags, ...prof, ...t.command], {
    // BURN_US only where a --burn target sets it: one left in the shell must not slow the ceiling.
    env: { ...process.env, BURN_US: undefined, ...t.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listening = false;
  const gc: GcTotals | undefined = GC ? { allocated: 0, promoted: 0, scavengeMs: 0, markMs: 0, scavenges: 0 } : undefined;
  if (gc) {
    // The trace goes to stdout, a line per collection (a line may come in two chunks).
    let partial = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) addGcLine(gc, line);
    });
  }
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
      resolve({ url: m[1]!, child, startupMs: Math.round(performance.now() - started), gc });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${t.name}: server exited with ${code} before listening:\n${output}`)));
  });
}

export async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 120_000);
  await exited;
  clearTimeout(timer);
}
