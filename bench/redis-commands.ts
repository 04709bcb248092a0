import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { CLI } from './options.js';
import { cpuMs, startRedisServer, startServer, stopServer } from './servers.js';
import { BENCH_SCENARIO, HEADERS, trafficBodies } from './traffic.js';

/**
 * node dist/bench/redis-commands.js [cycles=1000] [workers=1] [connections=1]
 *
 * What one callback of the bench's traffic (login → bet → bet_result, bench/traffic.ts) costs Redis,
 * on a redis-server of its own: the commands sent (by name; those a script runs inside Redis
 * counted apart), the bytes in and out, the read events Redis handled (one per round trip when
 * one callback is in flight at a time: `connections` 1), redis-server's CPU, and the commands of
 * one cycle in order (MONITOR). Figures per callback, after a warm-up of 100 cycles.
 */
const [cycles = 1000, workers = 1, connections = 1] = process.argv.slice(2).map(Number);

type Info = Record<string, string>;
const info = async (redis: Redis, section: string): Promise<Info> =>
  Object.fromEntries(
    (await redis.info(section))
      .split('\r\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );

/** cmdstat_<name> → calls and µs inside Redis (a script's own commands are counted too, and in its time). */
const commandCalls = (stats: Info) =>
  new Map(
    Object.entries(stats).map(([k, v]) => [
      k.replace(/^cmdstat_/, ''),
      { calls: Number(/calls=(\d+)/.exec(v)?.[1] ?? 0), usec: Number(/usec=(\d+)/.exec(v)?.[1] ?? 0) },
    ]),
  );

async function post(url: string, body: string): Promise<string> {
  const res = await fetch(`${url}/callback`, { method: 'POST', headers: HEADERS, body });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('"code":"R0"')) throw new Error(`not R0: ${res.status} ${text}`);
  return text;
}

/** `n` callbacks of the traffic, over `conns` callers each sending one at a time. */
async function send(url: string, next: () => string, n: number, conns: number): Promise<void> {
  let left = n;
  // Each caller sends whole cycles (login → bet → bet_result of one player, in order).
  const caller = async () => {
    while (left > 0) {
      left -= 3;
      for (let i = 0; i < 3; i++) await post(url, next());
    }
  };
  // One traffic generator per caller: its cycles stay in order.
  await Promise.all(Array.from({ length: conns }, caller));
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-redis-commands-'));
  const redisServer = await startRedisServer(dir);
  process.on('exit', () => redisServer.child.kill('SIGKILL'));
  const redis = new Redis(redisServer.url);
  const scenario = join(dir, 'scenario.json');
  await writeFile(scenario, JSON.stringify(BENCH_SCENARIO));
  const wallet = await startServer({
    name: 'wallet-sim, redis store',
    command: [CLI, 'start', '--port', '0', '--host', '127.0.0.1', '--scenario', scenario, '--store', 'redis'].concat([
      '--redis-url',
      redisServer.url,
      '--log-level',
      'warn',
      '--workers',
      String(workers),
    ]),
  });
  try {
    // Generators of their own (ids unique by the millisecond each was made in): one for the
    // warm-up and the MONITOR cycle, one per caller (its cycles in order).
    const generator = async () => {
      await new Promise((r) => setTimeout(r, 2));
      return trafficBodies();
    };
    const next = await generator();
    const callers: (() => string)[] = [];
    for (let i = 0; i < connections; i++) callers.push(await generator());
    await send(wallet.url, next, 300, 1); // warm-up
    // The grading events written without waiting are folded by now.
    await new Promise((r) => setTimeout(r, 300));
    await redis.config('RESETSTAT');
    const cpuBefore = [cpuMs(redisServer.child.pid)!, cpuMs(wallet.child.pid)!];
    const started = performance.now();
    const n = cycles * 3;
    await Promise.all(callers.map((c) => send(wallet.url, c, n / connections, 1)));
    const seconds = (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 300));
    const cpuAfter = [cpuMs(redisServer.child.pid)!, cpuMs(wallet.child.pid)!];
    const stats = await info(redis, 'stats');
    const calls = commandCalls(await info(redis, 'commandstats'));
    // This client's own INFO and CONFIG calls are no callback's.
    calls.delete('info');
    calls.delete('config|resetstat');
    const per = (x: number) => (x / n).toFixed(2);
    const scripts = (calls.get('evalsha')?.calls ?? 0) + (calls.get('eval')?.calls ?? 0);
    console.log(
      `wallet-sim redis store, ${workers} process${workers > 1 ? 'es' : ''}, ${n} callbacks (${cycles} cycles of login → bet → bet_result) from ${connections} caller${connections > 1 ? 's' : ''} one callback at a time each, ${Math.round(n / seconds)} callbacks/s, node ${process.version}`,
    );
    console.log(`per callback:`);
    console.log(`  commands Redis processed (scripts' inner commands included): ${per(Number(stats.total_commands_processed))}`);
    console.log(`  script calls (EVALSHA): ${per(scripts)}`);
    console.log(`  read events (one per round trip when one callback is in flight): ${per(Number(stats.total_reads_processed))}`);
    console.log(`  bytes to Redis: ${per(Number(stats.total_net_input_bytes))}, from Redis: ${per(Number(stats.total_net_output_bytes))}`);
    console.log(`  redis-server CPU: ${(((cpuAfter[0]! - cpuBefore[0]!) * 1000) / n).toFixed(0)} µs`);
    console.log(`  wallet-sim CPU: ${(((cpuAfter[1]! - cpuBefore[1]!) * 1000) / n).toFixed(0)} µs (with its HTTP)`);
    console.log(
      `commands per callback, by name (* also run inside scripts), and µs inside Redis per callback (a script's include its commands'):`,
    );
    for (const [name, { calls: count, usec }] of [...calls].sort((a, b) => b[1].calls - a[1].calls))
      if (count) console.log(`  ${name}${IN_SCRIPTS.has(name) ? '*' : ''}: ${per(count)}, ${per(usec)} µs`);
    await monitorOneCycle(redisServer.url, wallet.url, next);
  } finally {
    await stopServer(wallet);
    redis.disconnect();
    redisServer.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/** Commands a script of the store calls inside Redis (counted by commandstats as well as their script). */
const IN_SCRIPTS = new Set(['get', 'set', 'del', 'sadd', 'rpush', 'llen', 'lpop', 'append', 'incr', 'incrby', 'decrby', 'sismember']);

/** The commands of one login → bet → bet_result cycle, in the order Redis ran them (MONITOR). */
async function monitorOneCycle(redisUrl: string, walletUrl: string, next: () => string): Promise<void> {
  const client = new Redis(redisUrl);
  const monitor = await client.monitor();
  const lines: string[] = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const shown = args.map((a) => (a.length > 40 ? `${a.slice(0, 37)}…(${a.length})` : a)).join(' ');
    const bytes = args.reduce((n, a) => n + Buffer.byteLength(a), 0);
    lines.push(source.includes('lua') ? `    (script) ${shown}` : `  [${bytes} bytes] ${shown}`);
  });
  await new Promise((r) => setTimeout(r, 100));
  for (const event of ['login', 'bet', 'bet_result']) {
    lines.push(`${event}:`);
    await post(walletUrl, next());
    await new Promise((r) => setTimeout(r, 100)); // its grading events, written after the reply
  }
  monitor.disconnect();
  client.disconnect();
  console.log(`one cycle, as Redis ran it (MONITOR; XREAD/GET of the grading follower included):\n${lines.join('\n')}`);
}

await main();
