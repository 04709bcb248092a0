import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../src/kernel/paths.js';

// bench/variant.ts edits the compiled build at fixed anchors: each variant must still find its
// own, or an A/B would measure something else than its name (docs/bench.md relies on them).
const script = join(ROOT, 'dist/bench/variant.js');
const variant = (name: string) => spawnSync(process.execPath, [script, name], { encoding: 'utf8' });

const edited: [string, string, RegExp][] = [
  ['ungraded', 'src/core/simulator.js', /get gradingFeed\(\) \{\n\s+return \{ expect: \(\) => 0/],
  ['no-fold', 'src/grading/grader.js', /this\.advance\(arrival\.at\);\n\s+return undefined;/],
  ['no-checks', 'src/grading/grader.js', /this\.hooks = hooked\(\[\]\);/],
  ['no-rounds', 'src/grading/grader.js', /fn\(this, a, tx\);\n\s+return a;/],
  [
    'no-evidence',
    'src/grading/feed.js',
    /body: undefined,\n\s+applied: code === SUCCESS && !excused,\n\s+excused,\n\s+imposed: [^\n]+,\n\s+headers: undefined,\n\s+reply: undefined,/,
  ],
  ['limits=2000', 'src/grading/model.js', /MAX_TRANSACTIONS = 2_000;[\s\S]*MAX_ROUNDS = 2_000;/],
];

for (const [name, file, change] of edited) {
  t.test(`variant ${name}: a copy of the build with that one edit`, async (t) => {
    const run = variant(name);
    t.equal(run.status, 0, run.stderr);
    const dist = run.stdout.trim();
    t.teardown(() => rmSync(dirname(dist), { recursive: true, force: true }));
    t.match(readFileSync(join(dist, file), 'utf8'), change);
    t.notMatch(readFileSync(join(ROOT, 'dist', file), 'utf8'), change, 'this build is untouched');
  });
}

t.test('an unknown variant is refused with the list of known ones', async (t) => {
  const run = variant('faster');
  t.not(run.status, 0);
  t.match(run.stderr, /no variant "faster": ungraded, no-fold/);
});
