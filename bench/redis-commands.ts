import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { CLI } from './options.js';
import { cpuMs, type RedisInfo, redisInfo, startRedisServer, startServer, stopServer } from './servers.js';
import { BENCH_SCENARIO, HEADERS, PLAYERS, trafficBodies } from './traffic.js';

/**
 * node dist/bench/redis-commands.js [cycles=1000] [workers=1] [connections=1]
 *
 * What one callback of the bench's traffic (login → bet → bet_result, bench/traffic.ts) costs Redis,
 * on a redis-server of its own, per callback after a warm-up that serves every player once: the bytes in and out,
 * the read events Redis handled (one per round trip when one callback is in flight at a time:
 * `connections` 1), the CPU of redis-server and of wallet-sim, the time inside Redis by command;
 * then, with MONITOR, the commands wallet-sim sends (by name) and those its scripts run, and the
 * commands of one cycle in order.
 */
const [cycles = 1000, workers = 1, connections = 1] = process.argv.slice(2).map(Number);

type Info = RedisInfo;
const info = redisInfo;

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
    for (let i = 0; i < connections; i++) {
      const caller = await generator();
      // Each caller starts at a player of its own (the traffic's players in turn), as connections do.
      for (let skip = 0; skip < 3 * Math.floor((i * PLAYERS) / connections); skip++) caller();
      callers.push(caller);
    }
    // Warm-up: every player served once (a process keeps the records of the players it served: what
    // a callback costs once its process knows the player), scripts loaded.
    await send(wallet.url, next, 3 * PLAYERS, 1);
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
    console.log(
      `wallet-sim redis store, ${workers} process${workers > 1 ? 'es' : ''}, ${n} callbacks (${cycles} cycles of login → bet → bet_result) from ${connections} caller${connections > 1 ? 's' : ''} one callback at a time each, ${Math.round(n / seconds)} callbacks/s, node ${process.version}`,
    );
    console.log(`per callback:`);
    console.log(
      `  read events in Redis (one per round trip when one callback is in flight: 1 caller): ${per(Number(stats.total_reads_processed))}`,
    );
    console.log(`  bytes to Redis: ${per(Number(stats.total_net_input_bytes))}, from Redis: ${per(Number(stats.total_net_output_bytes))}`);
    console.log(`  redis-server CPU: ${(((cpuAfter[0]! - cpuBefore[0]!) * 1000) / n).toFixed(0)} µs`);
    console.log(`  wallet-sim CPU: ${(((cpuAfter[1]! - cpuBefore[1]!) * 1000) / n).toFixed(0)} µs (with its HTTP)`);
    console.log(`time inside Redis per callback, by command (INFO commandstats; a script's time includes its own commands'):`);
    for (const [name, { usec }] of [...calls].sort((a, b) => b[1].usec - a[1].usec)) if (usec) console.log(`  ${name}: ${per(usec)} µs`);
    await monitorCommands(redisServer.url, wallet.url, next);
  } finally {
    await stopServer(wallet);
    redis.disconnect();
    redisServer.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The commands of 100 cycles as Redis ran them (MONITOR, one callback at a time): those sent by
 * wallet-sim (the grading follower's XREAD included) and those its scripts ran, per callback;
 * then one cycle in order.
 */
async function monitorCommands(redisUrl: string, walletUrl: string, next: () => string): Promise<void> {
  const client = new Redis(redisUrl);
  const monitor = await client.monitor();
  const sent = new Map<string, number>();
  let inScripts = 0;
  let lines: string[] | undefined;
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const script = source.includes('lua');
    if (script) inScripts++;
    else sent.set(args[0]!.toLowerCase(), (sent.get(args[0]!.toLowerCase()) ?? 0) + 1);
    if (!lines) return;
    const shown = args.map((a) => (a.length > 40 ? `${a.slice(0, 37)}…(${a.length})` : a)).join(' ');
    const bytes = args.reduce((n, a) => n + Buffer.byteLength(a), 0);
    lines.push(script ? `    (script) ${shown}` : `  [${bytes} bytes] ${shown}`);
  });
  await new Promise((r) => setTimeout(r, 100));
  const cycles = 100;
  for (let i = 0; i < cycles * 3; i++) await post(walletUrl, next());
  await new Promise((r) => setTimeout(r, 300)); // their grading events, written after the reply
  const total = [...sent.values()].reduce((a, b) => a + b, 0);
  const per = (x: number) => (x / (cycles * 3)).toFixed(2);
  console.log(`commands per callback sent by wallet-sim (MONITOR, ${cycles} cycles one callback at a time): ${per(total)}`);
  for (const [name, count] of [...sent].sort((a, b) => b[1] - a[1])) console.log(`  ${name}: ${per(count)}`);
  console.log(`commands its scripts ran inside Redis, per callback: ${per(inScripts)}`);
  lines = [];
  for (const event of ['login', 'bet', 'bet_result']) {
    lines.push(`${event}:`);
    await post(walletUrl, next());
    await new Promise((r) => setTimeout(r, 100)); // its grading events, written after the reply
  }
  monitor.disconnect();
  client.disconnect();
  console.log(`one cycle, as Redis ran it (XREAD: the grading follower, on a connection of its own):\n${lines.join('\n')}`);
}

await main();
