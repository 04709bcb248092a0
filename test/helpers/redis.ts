// A real redis-server per test file: on a free port, in a temp dir, stopped in teardown.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { Redis } from 'ioredis';
import { type GenKeys, KeyLayout } from '../../src/backends/redis/keys.js';
import { skip, skipUnlessRequired } from './required.js';

export const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';

/**
 * Why redis-server cannot run here (the Redis tests are then skipped, visibly), or undefined. In CI
 * (or with WALLET_SIM_REQUIRE_REDIS=1) a missing redis-server throws instead: test/helpers/required.ts.
 */
export function redisMissing(): string | undefined {
  const r = spawnSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' });
  return skipUnlessRequired(
    'REDIS',
    r.status === 0 ? undefined : `${REDIS_SERVER} not found: install redis-server (apt-get install redis-server; .ci/run does)`,
  );
}

export interface RedisServer {
  url: string;
  port: number;
  /** A cluster node's bus port (startRedis with `cluster`). */
  busPort?: number;
  dir: string;
  /** Kills it (SIGKILL: a crash) and waits for the exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (what AOF kept comes back). */
  restart(): Promise<void>;
  /** Sends SIGSTOP (Redis frozen: connections stay open, nothing answers) or SIGCONT. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void;
}

/** A port nobody listens on right now (redis-server has no port 0). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Whether the redis-server on `port` answers and is process `pid`: test files run side by side, and
 * a server that lost a port race must not adopt the other file's server as its own.
 */
const ping = (port: number, pid: number | undefined) =>
  new Promise<boolean>((resolve) => {
    const socket = new Socket();
    let text = '';
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
    socket.on('data', (d) => {
      text += d.toString();
      const id = /process_id:(\d+)/.exec(text);
      if (id) {
        socket.destroy();
        resolve(Number(id[1]) === pid);
      }
    });
    socket.connect(port, '127.0.0.1', () => socket.write('INFO server\r\n'));
  });

/**
 * Starts redis-server on a free port in a temp dir. `durable`: AOF with appendfsync always (what
 * survives a SIGKILL is every acknowledged write); otherwise nothing is persisted.
 */
export async function startRedis(t: Test, { durable = false, cluster = false } = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-sim-redis-'));
  let child: ChildProcess | undefined;
  let port = 0;
  const persistence = durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];

  // A cluster node (test/helpers/redis-cluster.ts): its bus on a free port of its own (not port + 10000, which may be taken or past
  // 65535), chosen again with the port at each attempt (another test's connection may have taken it meanwhile).
  let busPort: number | undefined;
  const clusterArgs = () =>
    cluster
      ? ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port', String(busPort)].concat([
          '--cluster-require-full-coverage',
          'no',
          '--cluster-node-timeout',
          '2000',
        ])
      : [];
  const launch = async (): Promise<boolean> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir, ...clusterArgs()];
    const proc = spawn(REDIS_SERVER, args, {
      stdio: 'ignore',
    });
    child = proc;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    for (let i = 0; i < 200; i++) {
      if (await ping(port, proc.pid)) return true;
      const gone = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 50))]);
      if (gone) return false; // the port was taken after all
    }
    proc.kill('SIGKILL');
    return false;
  };

  for (let attempt = 0; ; attempt++) {
    if (cluster) busPort = await freePort();
    port = await freePort();
    if (port === busPort) continue; // (the same port twice: both are chosen again)
    if (await launch()) break;
    if (attempt >= 5) throw new Error(`redis-server did not start (tried 6 ports) in ${dir}`);
  }

  const kill = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGKILL');
    await exited;
  };
  const restart = async () => {
    await kill();
    for (let i = 0; i < 50; i++) {
      if (await launch()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`redis-server did not restart on port ${port}`);
  };
  const signal = (sig: 'SIGSTOP' | 'SIGCONT') => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(sig);
  };
  t.teardown(async () => {
    signal('SIGCONT'); // a test that failed while Redis was stopped
    await kill();
    rmSync(dir, { recursive: true, force: true });
  });
  return { url: `redis://127.0.0.1:${port}`, port, busPort, dir, kill, restart, signal };
}

/** A key prefix no other test of this file uses. */
let prefixes = 0;
export const uniquePrefix = (name = 'test') => `wallet-sim-test:${name}:${process.pid}:${++prefixes}:`;

/**
 * The file's own redis-server, or undefined when there is none: the file's tests are then skipped,
 * and the reason (how to install it) is printed.
 */
export async function redisOrSkip(t: Test): Promise<RedisServer | undefined> {
  const missing = redisMissing();
  if (!missing) return startRedis(t);
  skip(t, 'the Redis tests of this file', missing);
  return undefined;
}

/**
 * The keys of the generation a wallet under `prefix` works on now (src/backends/redis/keys.ts): 0 on
 * a single Redis until a reset, a clock-based number on a cluster (cluster-generations.ts).
 */
export async function ledgerKeys(client: Pick<Redis, 'get'>, prefix: string): Promise<GenKeys> {
  const layout = new KeyLayout(prefix);
  return layout.of(Number(await client.get(layout.gen)));
}
