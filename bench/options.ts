import { join } from 'node:path';
import { ROOT } from '../src/kernel/paths.js';

/**
 * npm run bench [-- --history] [--duration 10] [--runs 3] [--light-connections 5] [--warmup 2] [--connections 50] [--cpu-prof]
 *                 [--quick]                                     (about a minute: bare Fastify and the memory store only)
 *                 [--redis [--workers 1,2] [--redis-durable]]   (the redis store with 1, 2, … processes, its own redis-server)
 *                 [--server-flags "--max-semi-space-size=64"]   (node flags for the servers)
 *                 [--wallet-args "--journal-size 0"]            (extra wallet-sim start options)
 *                 [--compare bench/results/base]                (also the memory store of another build's dist/, A/B in one run)
 *                 [--compare-args "--log-level info"]           (extra wallet-sim start options of the --compare target only)
 *                 [--gc]                                        (each run also: bytes allocated and promoted, GC pauses per request)
 *                 [--sse]                                       (also the memory store with one /admin/events listener)
 *                 [--proxy]                                     (also proxy mode: wallet-sim --upstream before a memory store)
 *                 [--hosted]                                    (also a tenant's callback path on a hosted wallet-sim of 1,000 tenants)
 *                 [--burn 20,50,100]                            (also bare Fastify doing that many µs of work per request)
 *                 [--soak <minutes> [--soak-players 50] [--soak-seed 1]]  (instead: the chaos soak, bench/soak.ts)
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
export const QUICK = flag('quick');
export const DURATION = num('duration', QUICK ? 5 : 10);
export const WARMUP = num('warmup', 2);
export const RUNS = num('runs', QUICK ? 5 : 3);
/**
 * Also measure latency under light load: this many connections, closed loop; 0 = skip. (autocannon's
 * --rate sends each second's quota in a burst at the start of the second, which measures queueing
 * behind the burst rather than latency at that rate.)
 */
export const LIGHT = num('light-connections', 5);
export const CONNECTIONS = num('connections', 50);
export const HISTORY = flag('history');
/** --redis: the redis store (a redis-server of the bench's own) with 1, 2, … processes, beside bare Fastify and the memory store. */
export const REDIS = flag('redis');
export const WORKERS = (() => {
  const i = args.indexOf('--workers');
  return (i >= 0 ? args[i + 1]! : '1,2')
    .split(',')
    .map(Number)
    .filter((n) => n >= 1);
})();
/** --lean-redis (with --redis): also a lean wallet on the same Redis (bench/lean-redis-server.ts), a yardstick for the Redis store. */
export const LEAN_REDIS = flag('lean-redis');
export const LEAN_REDIS_SERVER = join(ROOT, 'dist/bench/lean-redis-server.js');
/** --redis-durable: redis-server with appendonly yes + appendfsync always (what survives a crash). */
export const REDIS_DURABLE = flag('redis-durable');
export const CPU_PROF = flag('cpu-prof');
/**
 * --gc: the servers run with `--trace-gc-nvp`, and each run also reports the server's young-generation
 * bytes allocated, bytes promoted to the old generation and garbage-collection pauses per request
 * (what a change's allocations cost, measured in the server the bench drives).
 */
export const GC = flag('gc');
/** Another build's dist/ folder (e.g. a copy of dist/ before a change): its memory store is measured beside this build's. */
export const COMPARE = str('compare');
/** Also the memory store with one dashboard listener reading GET /admin/events (issue 12). */
export const SSE = flag('sse');
/**
 * Also proxy mode: a wallet-sim memory store started once as the upstream, and wallet-sim
 * `--upstream` in front of it as a target; (b), the memory store called directly, is the same
 * wallet without the proxy, so the difference is what a proxied callback adds.
 */
export const PROXY = flag('proxy');
/** Also the hosted sandbox: a tenant's callback on a wallet-sim --hosted holding 1,000 tenants (bench/hosted.ts). */
export const HOSTED = flag('hosted');
const list = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? '').split(' ').filter(Boolean) : [];
};
/** Node flags for every server, e.g. "--max-semi-space-size=64". */
export const SERVER_FLAGS = list('server-flags');
/** Extra `wallet-sim start` options for A/B experiments, e.g. "--journal-size 0". */
export const WALLET_ARGS = list('wallet-args');
/** Extra `wallet-sim start` options for the --compare target only (with `--compare dist`: an A/B of an option). */
export const COMPARE_ARGS = list('compare-args');
/**
 * --burn 20,50,100: bare Fastify again with that many µs of work per request (a busy loop on the
 * clock, so a busy machine makes it less CPU), one target each, in the default and --quick runs:
 * what any server doing that much per callback can reach on this machine and client.
 */
export const BURN = list('burn')
  .flatMap((l) => l.split(','))
  .map(Number)
  .filter((us) => us > 0);
/** --soak <minutes>: the chaos soak (bench/soak.ts) instead of the throughput runs. */
export const SOAK = num('soak', 0);
export const SOAK_PLAYERS = num('soak-players', 50);
export const SOAK_SEED = num('soak-seed', 1);
export const MIN_R0_SHARE = 0.95;
export const RESULTS = join(ROOT, 'bench/results');
export const CLI = join(ROOT, 'dist/src/cli.js');
export const BARE = join(ROOT, 'dist/bench/bare-server.js');
