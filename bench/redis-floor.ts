import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startSimulator } from '../src/index.js';
import { type RedisInfo, redisInfo, startRedisServer } from './servers.js';
import { BENCH_SCENARIO, HEADERS, trafficBodies } from './traffic.js';
import { COMMIT } from '../src/backends/redis/commit.js';

/**
 * node dist/bench/redis-floor.js [calls=50000] [clients=50]
 *
 * What a bet's commit costs inside redis-server, against scripts that keep the same data with fewer
 * arguments and commands (issue 49's ≤ 25 µs, and its method: redis-benchmark, 50 clients, redis-server
 * CPU from INFO). wallet-sim's own script runs with the arguments a real bet sent it (captured with
 * MONITOR from a wallet-sim on this redis-server), made repeatable: its new keys random
 * (`__rand_int__`), the player written back as expected. The others are sketches, not stores:
 *   lean-same-data  the same records, journal entry and grading event, keys built in the script, 12 arguments, 9 commands
 *   lean-minimal    the issue's lean commit: balance, idempotency claim, record, journal and grading XADD, 6 arguments
 *   lean-small      lean-minimal with a 100-byte journal entry and grading event (what the payloads cost)
 * and wallet-sim's commit from one connection: 12 calls pipelined, against 12 commits in one call
 * (BATCHED: what one script call per turn of the event loop would save inside Redis).
 */
const [calls = 50_000, clients = 50] = process.argv.slice(2).map(Number);

const LEAN_SAME_DATA = `
local p = ARGV[1]
local v = redis.call('MGET', p .. ':player', p .. ':txn:' .. ARGV[2], 'claim:' .. ARGV[2], p .. ':round:' .. ARGV[3])
if v[1] ~= ARGV[4] or v[2] or v[3] or v[4] then return 0 end
redis.call('MSET', p .. ':player', ARGV[5], p .. ':round:' .. ARGV[3], ARGV[6], 'claim:' .. ARGV[2], ARGV[7], p .. ':txn:' .. ARGV[2], ARGV[8])
redis.call('RPUSH', 'order', ARGV[2])
redis.call('HINCRBY', 'calls', p, 1)
local id = redis.call('INCR', 'journal:id')
redis.call('XADD', 'journal', 'MAXLEN', '~', 10000, '*', 'e', '{"id":' .. id .. ARGV[9])
local s = redis.call('GET', 'grading:session')
redis.call('XADD', 'grading:' .. s, 'MAXLEN', '~', 200000, '*', 'e', ARGV[10], 'i', id)
return id
`;

const LEAN_MINIMAL = `
local b = redis.call('GET', ARGV[1])
if redis.call('SET', 'txn:' .. ARGV[2], ARGV[3], 'NX') == false then return 0 end
redis.call('SET', ARGV[1], b)
local id = redis.call('XADD', 'journal', 'MAXLEN', '~', 10000, '*', 'e', ARGV[4])
redis.call('XADD', 'grading', 'MAXLEN', '~', 200000, '*', 'e', ARGV[5])
return 1
`;

/** Commits in one call: ARGV is their count, then each one's argument count and arguments. */
const BATCHED = `${COMMIT.replace('local i = 1\n', 'local function commit(i)\n').replace(/return \{1, seal\(i\)\}\s*$/, 'return {1, seal(i)}\nend\n')}
local out, base = {}, 2
for k = 1, tonumber(ARGV[1]) do
  out[k] = commit(base + 1)
  base = base + 1 + tonumber(ARGV[base])
end
return out
`;
/** Commits per connection in the batched rows (the bench's traffic sends about 12 per write). */
const DEPTH = 12;

/** The commit script up to its checks: what they cost without the writes (the captured bet passes them). */
function checkOnly(): string {
  const cut = COMMIT.indexOf('if not same then return');
  if (cut < 0) throw new Error('the commit script changed: find where its checks end');
  return `${COMMIT.slice(0, cut)}return {same and 1 or 0}`;
}

type Info = RedisInfo;
const info = redisInfo;
const cpuUs = (i: Info) => (Number(i.used_cpu_user) + Number(i.used_cpu_sys)) * 1e6;

/** One bet's EVALSHA as wallet-sim sends it (login, bet, bet_result of a player it served, after a warm-up). */
async function capturedBet(url: string, dir: string): Promise<string[]> {
  const file = join(dir, 'scenario.json');
  await writeFile(file, JSON.stringify(BENCH_SCENARIO));
  const sim = await startSimulator({ port: 0, logLevel: 'silent', store: 'redis', redisUrl: url, scenario: file });
  const next = trafficBodies();
  const post = () => fetch(`${sim.url}/callback`, { method: 'POST', headers: HEADERS, body: next() }).then((r) => r.text());
  for (let i = 0; i < 6; i++) await post();
  const client = new Redis(url);
  const monitor = await client.monitor();
  const seen: string[][] = [];
  monitor.on('monitor', (_t: string, args: string[]) => {
    if (String(args[0]).toLowerCase() === 'evalsha') seen.push(args.map(String));
  });
  await sleep(100);
  for (let i = 0; i < 3; i++) await post(); // login, bet, bet_result
  while (seen.length < 3) await sleep(20);
  monitor.disconnect();
  client.disconnect();
  await sim.close();
  return seen[1]!;
}

/** How redis-benchmark sends: its clients, calls pipelined per client, and commits per call. */
interface Sending {
  clients: number;
  pipeline: number;
  commits: number;
}

/** redis-server CPU and evalsha time per commit of `args` run for `calls` commits by redis-benchmark. */
async function measure(
  redis: Redis,
  port: string,
  args: string[],
  how: Sending = { clients, pipeline: 1, commits: 1 },
): Promise<{ cpu: number; evalsha: number; ok: string; keys: number }> {
  await redis.config('RESETSTAT');
  const keys = async () => Number(/keys=(\d+)/.exec((await info(redis, 'keyspace')).db0 ?? '')?.[1] ?? 0);
  const keysBefore = await keys();
  const before = cpuUs(await info(redis, 'cpu'));
  const n = Math.round(calls / how.commits);
  const sending = ['-n', String(n), '-c', String(how.clients), '-P', String(how.pipeline)];
  await new Promise<void>((resolve, reject) => {
    const child = spawn('redis-benchmark', ['-p', port, ...sending, '-r', '1000000000', '-q', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`redis-benchmark exited with ${code}`))));
  });
  const cpu = (cpuUs(await info(redis, 'cpu')) - before) / (n * how.commits);
  const stats = await info(redis, 'commandstats');
  const evalsha = Number(/usec_per_call=([\d.]+)/.exec(stats.cmdstat_evalsha ?? '')?.[1] ?? NaN);
  const failed = Number(/failed_calls=(\d+)/.exec(stats.cmdstat_evalsha ?? '')?.[1] ?? 0);
  return {
    cpu,
    evalsha: evalsha / how.commits,
    ok: failed ? `${failed} failed` : 'ok',
    keys: ((await keys()) - keysBefore) / (n * how.commits),
  };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-redis-floor-'));
  const { url, child } = await startRedisServer(dir);
  const port = new URL(url).port;
  const redis = new Redis(url);
  try {
    const bet = await capturedBet(url, dir);
    // Repeatable: the transaction, claim, round and settled-round keys new each call; the player written back as it was.
    const expectedPlayer = bet[14]!;
    const args = bet.map((a) => (/:(txn|claim|round|settled):/.test(a) ? `${a}-__rand_int__` : a));
    const playerKey = bet.indexOf(bet[6]!, 8);
    args[playerKey + 1] = expectedPlayer;
    const tail = bet.find((a) => a.startsWith(',"transaction_id"'))!;
    const event = bet.at(-1)!;
    const record = bet[playerKey + 7]!;
    await redis.set(bet[6]!, expectedPlayer); // (its bet_result moved it on)
    await redis.set('grading:session', 'b370373a');
    const [same, minimal] = await Promise.all([redis.script('LOAD', LEAN_SAME_DATA), redis.script('LOAD', LEAN_MINIMAL)]);
    await redis.set('p:{u1}:player', expectedPlayer);
    // Where the commit's time goes: its arguments alone (an empty script), its checks alone (the script
    // cut after them), and the commit without its grading event or without both seal steps (their flags 0).
    const [empty, check, batched] = await Promise.all([
      redis.script('LOAD', 'return 1'),
      redis.script('LOAD', checkOnly()),
      redis.script('LOAD', BATCHED),
    ]);
    const one = args.slice(3);
    const sealAt = bet.indexOf(bet.find((a) => a.endsWith('journal'))!) - 1;
    const gradeAt = bet.indexOf(bet.find((a) => a.endsWith('grading:session'))!) - 1;
    const flagged = (at: number) => args.map((a, i) => (i === at ? '0' : a));
    const sameBytes = 'x'.repeat(args.slice(3).reduce((n, a) => n + Buffer.byteLength(a), 0) - 4);
    const rows: [string, string[], number, Sending?][] = [
      ["wallet-sim's commit script (a bet)", args, bet.length - 3],
      ['  its arguments alone (an empty script)', ['evalsha', empty as string, ...args.slice(2)], bet.length - 3],
      ['  an empty script with 5 short arguments (what any call costs)', ['evalsha', empty as string, '0', 'a', 'b', 'c', 'd', 'e'], 5],
      ['  an empty script, 59 arguments of 5 bytes (their count)', ['evalsha', empty as string, '0', ...Array(59).fill('xxxxx')], 59],
      [
        '  an empty script, 5 arguments of the same bytes (their bytes)',
        ['evalsha', empty as string, '0', 'a', 'b', 'c', 'd', sameBytes],
        5,
      ],
      ['  its checks alone (the script cut after them)', ['evalsha', check as string, ...args.slice(2)], bet.length - 3],
      ['  its writes and journal entry, no grading event', flagged(gradeAt), bet.length - 3],
      ['  its writes, no journal entry nor grading event', flagged(sealAt), bet.length - 3],
      [
        'lean-same-data',
        [
          'evalsha',
          same as string,
          '0',
          'p:{u1}',
          't-__rand_int__',
          'g-__rand_int__',
          expectedPlayer,
          expectedPlayer,
          bet[playerKey + 3]!,
          bet[playerKey + 5]!,
          record,
          tail,
          event,
        ],
        10,
      ],
      ['lean-minimal', ['evalsha', minimal as string, '0', 'p:{u1}:player', '__rand_int__', record, `{"id":1${tail}`, event], 5],
      ['lean-small', ['evalsha', minimal as string, '0', 'p:{u1}:player', 's__rand_int__', record, 'x'.repeat(100), 'y'.repeat(100)], 5],
      [`wallet-sim's commit, 1 connection, ${DEPTH} calls pipelined`, args, bet.length - 3, { clients: 1, pipeline: DEPTH, commits: 1 }],
      [
        `  ${DEPTH} commits in one call, 1 connection (µs per commit)`,
        ['evalsha', batched as string, '0', String(DEPTH), ...Array.from({ length: DEPTH }, () => [String(one.length), ...one]).flat()],
        bet.length - 3,
        { clients: 1, pipeline: 1, commits: DEPTH },
      ],
    ];
    console.log(`redis-server CPU per call, ${calls} calls from ${clients} clients (redis-benchmark), ${new Date().toISOString()}`);
    console.log(
      '| script | arguments | bytes | redis-server CPU µs/call | evalsha µs/call (commandstats) | keys written per call (a commit: 3 or 1) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [name, a, n, how] of rows) {
      const r = await measure(redis, port, a, how);
      const bytes = Math.round(a.slice(3).reduce((s, x) => s + Buffer.byteLength(x), 0) / (how?.commits ?? 1));
      console.log(
        `| ${name} | ${n} | ${bytes} | ${r.cpu.toFixed(1)} | ${r.evalsha.toFixed(1)}${r.ok === 'ok' ? '' : ` (${r.ok})`} | ${r.keys.toFixed(2)} |`,
      );
    }
  } finally {
    redis.disconnect();
    child.kill();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
