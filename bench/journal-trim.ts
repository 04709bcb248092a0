import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { JOURNAL_ADD } from '../src/backends/redis/journal-add.js';
import { redisInfo, startRedisServer } from './servers.js';

/**
 * node dist/bench/journal-trim.js [calls=30000] [rounds=3]
 *
 * What adding one entry to a full journal costs inside redis-server, and what cheaper ways of
 * bounding it would cost (redis-benchmark, 50 clients, a 1,200-character entry, a journal of 1,000
 * entries). wallet-sim's `journal_add` keeps an exact bound on entries and on characters: it finds
 * the oldest entry's size in a list kept beside the stream, then drops it (XDEL); `read-oldest` is
 * how it did before 30 Nov 2026 (XRANGE of the oldest, then XDEL). The others are sketches:
 *   add-only          INCRBY and XADD, no bound (what the add itself costs)
 *   maxlen-approx     XADD MAXLEN ~ (whole nodes dropped now and then; no byte bound)
 *   xtrim             the count bound by XTRIM = length - 1 (no read of the size: no byte bound)
 *   sizes-list        xtrim, the sizes kept in a list beside the stream (RPUSH, LPOP): an exact byte bound
 */
const [calls = 30_000, rounds = 3] = process.argv.slice(2).map(Number);
const ENTRY = 'x'.repeat(1200);
const add = `redis.call('INCRBY', KEYS[1] .. ':b', 1200) local id = redis.call('XADD', KEYS[1], `;
const fields = `'*', 'id', '1', 'n', '1200', 'e', ARGV[1])`;
const SCRIPTS: Record<string, string> = {
  "wallet-sim's journal_add": `${JOURNAL_ADD}
return journal_add(KEYS[1], KEYS[1] .. ':b', 1000, 67108864, 1200, {'id', '1', 'n', '1200', 'e', ARGV[1]})`,
  'read-oldest': `${add}${fields}
local len = redis.call('XLEN', KEYS[1])
if len > 1000 then
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  redis.call('XDEL', KEYS[1], oldest[1])
  redis.call('DECRBY', KEYS[1] .. ':b', oldest[2][4])
end
return 1`,
  'add-only': `${add}${fields} return 1`,
  'maxlen-approx': `${add}'MAXLEN', '~', 1000, ${fields} return 1`,
  xtrim: `${add}${fields}
local len = redis.call('XLEN', KEYS[1])
if len > 1000 then redis.call('XTRIM', KEYS[1], 'MAXLEN', '=', len - 1) redis.call('DECRBY', KEYS[1] .. ':b', 1200) end
return 1`,
  'sizes-list': `${add}${fields}
redis.call('RPUSH', KEYS[1] .. ':s', 1200)
local len = redis.call('XLEN', KEYS[1])
if len > 1000 then
  redis.call('XTRIM', KEYS[1], 'MAXLEN', '=', len - 1)
  redis.call('DECRBY', KEYS[1] .. ':b', redis.call('LPOP', KEYS[1] .. ':s'))
end
return 1`,
};

const dir = await mkdtemp(join(tmpdir(), 'wallet-sim-journal-trim-'));
const { url, child } = await startRedisServer(dir);
const redis = new Redis(url);
const cpuUs = async () => {
  const i = await redisInfo(redis, 'cpu');
  return (Number(i.used_cpu_user) + Number(i.used_cpu_sys)) * 1e6;
};
try {
  const results = new Map<string, string[]>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, lua] of Object.entries(SCRIPTS)) {
      const sha = (await redis.script('LOAD', lua)) as string;
      await redis.config('RESETSTAT');
      const before = await cpuUs();
      const args = ['-p', new URL(url).port, '-n', String(calls), '-c', '50', '-q', 'evalsha', sha, '1', `j:${name}`, ENTRY];
      await new Promise((resolve) => spawn('redis-benchmark', args, { stdio: 'ignore' }).once('exit', resolve));
      const evalsha = /usec_per_call=([\d.]+)/.exec((await redisInfo(redis, 'commandstats')).cmdstat_evalsha ?? '')?.[1];
      const cpu = ((await cpuUs()) - before) / calls;
      results.set(name, [...(results.get(name) ?? []), `${cpu.toFixed(1)} (${evalsha})`]);
    }
  }
  console.log(`one add to a full journal of 1,000 entries, ${calls} calls from 50 clients, ${rounds} rounds, ${new Date().toISOString()}`);
  console.log('| script | redis-server CPU µs per call (evalsha µs, commandstats), each round |\n|---|---|');
  for (const [name, r] of results) console.log(`| ${name} | ${r.join(', ')} |`);
} finally {
  redis.disconnect();
  child.kill();
  await rm(dir, { recursive: true, force: true });
}
