import t from 'tap';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/paths.js';

// bench/saved-runs.ts: how often the saved runs met each target, from the rounds as the bench
// takes them (docs/bench.md quotes its counts).
const script = join(ROOT, 'dist/bench/saved-runs.js');

const round = (name: string, req_per_s: number, p99_ms: number, cpu: number) => ({
  name,
  req_per_s,
  p50_ms: 1,
  p99_ms,
  requests: 1,
  r0: 1,
  non_r0: 0,
  errors: 0,
  timeouts: 0,
  startup_ms: 1,
  server_cpu_us_per_req: cpu,
  non_r0_samples: [],
});

/** A saved run of three rounds: bare, memory, (b0), with the memory store's and (b0)'s figures per round. */
function saved(memory: [number, number, number][], b0: [number, number, number][], flags: string[] = []) {
  const names = ['(a) bare Fastify', '(b) wallet-sim, memory store', '(b0) memory store, build ../lean-wallet'];
  const runs = [
    [0, 1, 2].map(() => round(names[0]!, 1000, 4, 40)),
    memory.map((m) => round(names[1]!, ...m)),
    b0.map((m) => round(names[2]!, ...m)),
  ];
  return { date: '2026-11-27T05:00:00.000Z', connections: 50, server_flags: flags, targets: runs.map((r) => r[0]), runs };
}

t.test('one line per run with a --compare target, and how many met each target', async (t) => {
  const dir = t.testdir({});
  // Met everything (CPU 1.2x, p99 1.5x, 0.7x) in the median round; missed everything; an experiment with node flags.
  writeFileSync(
    join(dir, 'a.json'),
    JSON.stringify(
      saved(
        [
          [700, 6, 60],
          [700, 6, 60],
          [600, 9, 90],
        ],
        [
          [800, 5, 50],
          [800, 5, 50],
          [800, 5, 50],
        ],
      ),
    ),
  );
  writeFileSync(
    join(dir, 'b.json'),
    JSON.stringify(
      saved(
        [
          [500, 12, 90],
          [500, 12, 90],
          [500, 12, 90],
        ],
        [
          [600, 8, 60],
          [600, 8, 60],
          [600, 8, 60],
        ],
      ),
    ),
  );
  writeFileSync(
    join(dir, 'c.json'),
    JSON.stringify(
      saved(
        [
          [900, 4, 40],
          [900, 4, 40],
          [900, 4, 40],
        ],
        [
          [900, 4, 40],
          [900, 4, 40],
          [900, 4, 40],
        ],
        ['--x'],
      ),
    ),
  );
  writeFileSync(join(dir, 'notes.md'), 'not a run');
  const run = spawnSync(process.execPath, [script, dir, '--match', 'lean-wallet'], { encoding: 'utf8' });
  t.equal(run.status, 0, run.stderr);
  t.match(run.stdout, /\| 2026-11-27 05:00 \| 1\.20 \| 1\.50 \| 1\.25 \| 0\.70 \| 0\.80 \|/);
  t.match(run.stdout, /\| 2026-11-27 05:00 \| 1\.50 \| 3\.00 \| 2\.00 \| 0\.50 \| 0\.60 \|/);
  t.match(run.stdout, /2 runs against a \(b0\) named "lean-wallet"/, 'the run with node flags is left out');
  t.match(run.stdout, /CPU per callback <= 1\.25x \(b0\)'s: 1 of 2/);
  t.match(run.stdout, /memory p99 <= 1\.5x bare's: 1 of 2; \(b0\)'s p99 <= 1\.5x bare's: 1 of 2/);
  t.match(run.stdout, /memory req\/s >= 0\.7x bare's: 1 of 2; \(b0\)'s: 1 of 2/);

  const all = spawnSync(process.execPath, [script, dir, '--all'], { encoding: 'utf8' });
  t.match(all.stdout, /^3 runs; targets met:/m, '--all keeps the experiments');
  const other = spawnSync(process.execPath, [script, dir, '--match', 'base'], { encoding: 'utf8' });
  t.match(other.stdout, /^0 runs against/m, 'only (b0) targets whose name matches');
});
