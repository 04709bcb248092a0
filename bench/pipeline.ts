import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileScenario } from '../src/core/scenario/scenario.js';
import { Answer, type CallbackExchange } from '../src/core/pipeline.js';
import type { CallbackInput } from '../src/protocol/seed/read.js';
import type { GradingFeed } from '../src/grading/feed.js';
import { Simulator } from '../src/core/simulator.js';
import { MemoryBackend } from '../src/backends/memory/memory.js';
import { loadavg } from './measure.js';
import { median } from './report.js';
import { BENCH_SCENARIO, HEADERS, trafficBodies } from './traffic.js';
import { openSimulator } from '../src/app/compose.js';

/**
 * node dist/bench/pipeline.js [callbacks=100000] [rounds=5] [batch=50] [--ungraded | --ab-grading]
 *
 * The callback pipeline without HTTP: what the callback route does for one callback (read, rule,
 * wallet, reply, journal, grading: the pipeline's `Answer` with an exchange that only keeps the
 * reply), over the bench's traffic, `batch` callbacks in flight at a time as the HTTP bench's
 * connections are, in this process. Prints the CPU per callback (process.cpuUsage: user + system,
 * garbage collection included) of each round and their median: a lever's A/B in seconds, much less
 * moved by other load than req/s. The HTTP bench (bench.ts) stays the judge.
 *
 * --ungraded: the same with a grading feed that keeps nothing (what grading costs is the difference).
 * --ab-grading: grading's cost as an A/B: `rounds` processes of each kind, alternating, one round
 * each (after its warm-up); prints both ranges and whether they overlap.
 * --pair=<other dist>: this build against another (e.g. a worktree's dist, or a bench/variant.ts
 * copy) in `rounds` pairs: both at once, each pinned to a core of its own (taskset), the cores
 * swapped every other pair, so that both meet the same neighbours; prints every pair and the median
 * of their differences. Sequential rounds on a shared machine differ by more than most levers.
 */
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const [n = 100_000, rounds = 5, batch = 50] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .map(Number);
/** Grading off: the pipeline tells it everything and it keeps nothing. */
const UNGRADED: GradingFeed = {
  expect: () => 0,
  settle: () => undefined,
  arrived: () => undefined,
  arrive: () => undefined,
  closed() {},
  complete() {},
  count() {},
};

/** One round of `script` in a process of its own (pinned to `core` when taskset is there): its CPU per callback. */
function roundOf(script: string, core: number, pinned: boolean): Promise<number> {
  const node = [process.execPath, script, String(n), '1', String(batch)];
  const [command, ...args] = pinned ? ['taskset', '-c', String(core), ...node] : node;
  return new Promise((resolve, reject) => {
    const child = spawn(command!, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const us = Number(/round 1: ([\d.]+) µs/.exec(out)?.[1]);
      if (Number.isFinite(us)) resolve(us);
      else reject(new Error(`no figure from ${script}: ${out}`));
    });
  });
}

async function pairWith(other: string): Promise<void> {
  const mine = fileURLToPath(import.meta.url);
  const theirs = join(resolve(other), 'bench', 'pipeline.js');
  const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  if (!pinned) console.log('(no taskset here: the pairs run at once, unpinned)');
  const differences: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const [a, b] = await Promise.all([roundOf(mine, r % 2, pinned), roundOf(theirs, 1 - (r % 2), pinned)]);
    differences.push(a - b);
    console.log(`pair ${r + 1}: this build ${a.toFixed(1)} µs, ${other} ${b.toFixed(1)} µs CPU per callback (${(a - b).toFixed(1)})`);
  }
  const lower = differences.filter((d) => d < 0).length;
  console.log(
    `median of the differences (this build − the other): ${median(differences)!.toFixed(1)} µs per callback; this build lower in ${lower} of ${rounds} pairs (${n} callbacks each, load average ${loadavg()})`,
  );
}

function abGrading(): void {
  const script = fileURLToPath(import.meta.url);
  const runs: Record<'graded' | 'ungraded', number[]> = { graded: [], ungraded: [] };
  for (let r = 0; r < rounds; r++) {
    for (const kind of ['graded', 'ungraded'] as const) {
      const args = [script, String(n), '1', String(batch), ...(kind === 'ungraded' ? ['--ungraded'] : [])];
      const out = spawnSync(process.execPath, args, { encoding: 'utf8' });
      const us = Number(/round 1: ([\d.]+) µs/.exec(out.stdout)?.[1]);
      if (!Number.isFinite(us)) throw new Error(`no figure from ${kind} round ${r + 1}: ${out.stderr || out.stdout}`);
      runs[kind].push(us);
      console.log(`${kind} round ${r + 1}: ${us.toFixed(1)} µs CPU per callback`);
    }
  }
  const { graded: g, ungraded: u } = runs;
  const [gMid, uMid] = [median(g)!, median(u)!];
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  console.log(
    `graded ${range(g)} µs (median ${gMid.toFixed(1)}), ungraded ${range(u)} µs (median ${uMid.toFixed(1)}): grading ${(gMid - uMid).toFixed(1)} µs per callback; the rounds ${Math.min(...g) > Math.max(...u) ? 'do not overlap' : 'overlap'} (${rounds} processes of each, ${n} callbacks each, load average ${loadavg()})`,
  );
}

async function measure(ungraded: boolean): Promise<void> {
  const real = await openSimulator(compileScenario(BENCH_SCENARIO), new MemoryBackend());
  // The simulator as the pipeline sees it, with grading that keeps nothing when asked.
  const sim: Simulator = ungraded ? Object.create(real, { gradingFeed: { value: UNGRADED } }) : real;
  const headers = { host: '127.0.0.1:8080', connection: 'keep-alive', 'content-length': '300', ...HEADERS };
  const quiet = { info() {}, error() {}, isLevelEnabled: () => false };

  /** An exchange that keeps the reply's code and tells when it is written. */
  class Exchange implements CallbackExchange {
    readonly input: CallbackInput;
    readonly clientGone = false;
    readonly log = quiet;
    sent = false;

    constructor(
      body: string,
      private readonly done: (body: string) => void,
    ) {
      this.input = { method: 'POST', url: '/callback', headers, body };
    }

    onClose(): () => void {
      return () => {};
    }
    forgetBody(): void {}
    send(_status: number, _headers: Record<string, string>, body: string): void {
      this.sent = true;
      this.done(body);
    }
    drop(): void {
      this.sent = true;
    }
    fail(error: Error): void {
      throw error;
    }
  }

  // A connection sends its next callback when the reply to its last one is written (a closed loop).
  // (Unlike a socket's, this write starts the next callback at once, inside the reply batch.)
  function connection(next: () => string, count: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let left = count;
      const send = () => {
        if (left-- === 0) return resolve();
        new Answer(sim, new Exchange(next(), written)).start();
      };
      const written = (body: string) => {
        if (!body.includes('"R0"')) return reject(new Error(`not R0: ${body}`));
        send();
      };
      send();
    });
  }

  // One stream of traffic for all connections: each callback is decided when it starts, in order.
  const next = trafficBodies();
  /** Runs about `total` callbacks (a whole number per connection); returns how many. */
  async function run(total: number): Promise<number> {
    const each = Math.max(1, Math.round(total / batch));
    await Promise.all(Array.from({ length: batch }, () => connection(next, each)));
    return each * batch;
  }

  await run(n / 5); // warm-up, and a journal at its steady size
  const perCallback: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const before = process.cpuUsage();
    const ran = await run(n);
    const used = process.cpuUsage(before);
    perCallback.push((used.user + used.system) / ran);
    console.log(`round ${r + 1}: ${perCallback.at(-1)!.toFixed(1)} µs CPU per callback`);
  }
  console.log(
    `median ${median(perCallback)!.toFixed(1)} µs CPU per callback (${n} callbacks × ${rounds} rounds, ${batch} in flight${ungraded ? ', ungraded' : ''}), load average ${loadavg()}`,
  );
}

const pair = flags.find((f) => f.startsWith('--pair='))?.slice('--pair='.length);
if (pair) await pairWith(pair);
else if (flags.includes('--ab-grading')) abGrading();
else await measure(flags.includes('--ungraded'));
