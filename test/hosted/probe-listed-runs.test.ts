// The hosted probe's run list on Redis merges the shelf (every process's runs) with this process's
// own: the last `kept` runs, oldest first, each once, this process's copy winning. Before, a
// process holding 20 old runs of its own beside the shelf's 20 newer ones listed 40.
import t from 'tap';
import { listedRuns } from '../../src/routes/probe-run.js';

interface R {
  id: string;
  started_at: string;
  state: string;
}
const at = (minute: number) => new Date(Date.UTC(2026, 11, 2, 1, minute)).toISOString();
const run = (id: string, minute: number, state = 'done'): R => ({ id, started_at: at(minute), state });
const ids = (runs: R[]) => runs.map((r) => r.id);
/** Runs a..: one a minute from `from`, newest first (as the shelf lists them). */
const shelf = (prefix: string, from: number, n: number) => Array.from({ length: n }, (_, i) => run(`${prefix}${i}`, from + i)).reverse();
const local = (runs: R[]) => new Map(runs.map((r) => [r.id, r]));

const rows: { name: string; shelved: R[]; here: R[]; kept: number; want: string[] }[] = [
  { name: 'nothing anywhere', shelved: [], here: [], kept: 3, want: [] },
  { name: 'the shelf alone, oldest first', shelved: shelf('s', 0, 3), here: [], kept: 3, want: ['s0', 's1', 's2'] },
  {
    name: 'this process alone (Redis was away for its puts)',
    shelved: [],
    here: [run('h0', 0), run('h1', 1)],
    kept: 3,
    want: ['h0', 'h1'],
  },
  {
    name: 'one run in both: listed once, where the shelf has it',
    shelved: shelf('s', 0, 3),
    here: [run('s2', 2)],
    kept: 5,
    want: ['s0', 's1', 's2'],
  },
  {
    name: "this process's old runs the shelf dropped, beside another process's newer ones: the last kept",
    shelved: shelf('b', 10, 3),
    here: [run('a0', 0), run('a1', 1), run('a2', 2)],
    kept: 3,
    want: ['b0', 'b1', 'b2'],
  },
  {
    name: "a run of this process not yet on the shelf, newer than the shelf's: in its place by time",
    shelved: shelf('s', 0, 3),
    here: [run('h', 5, 'running')],
    kept: 3,
    want: ['s1', 's2', 'h'],
  },
  {
    name: 'interleaved processes: by start time',
    shelved: [run('b1', 3), run('a1', 2), run('b0', 1), run('a0', 0)],
    here: [run('a0', 0), run('a1', 2), run('a2', 4)],
    kept: 4,
    want: ['b0', 'a1', 'b1', 'a2'],
  },
  {
    name: "a running run of this process whose clock lags the others': kept, not cut as the oldest",
    shelved: shelf('s', 10, 3),
    here: [run('h', 0, 'running')],
    kept: 3,
    want: ['h', 's1', 's2'],
  },
  {
    name: "the shelf's order stands, whatever the start times say (one run at a time per tenant)",
    shelved: [run('late-clock', 1), run('early', 5)],
    here: [],
    kept: 5,
    want: ['early', 'late-clock'],
  },
];

for (const row of rows)
  t.test(row.name, async (t) => {
    t.same(ids(listedRuns(row.shelved, local(row.here), row.kept)), row.want);
  });

t.test("this process's copy wins over the shelf's (the freshest: a check written since)", async (t) => {
  const fresh = run('s1', 1, 'running');
  const listed = listedRuns(shelf('s', 0, 2), local([fresh]), 5);
  t.equal(listed[1], fresh);
});

t.test('twenty and twenty: twenty listed', async (t) => {
  const listed = listedRuns(shelf('b', 30, 20), local(shelf('a', 0, 20)), 20);
  t.equal(listed.length, 20);
  t.same(ids(listed), ids(shelf('b', 30, 20)).reverse());
});
