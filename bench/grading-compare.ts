import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as GradeModule from '../src/grading/grade.js';
import type { Arrival, Attempt } from '../src/grading/attempt.js';
import type { Grader } from '../src/grading/grader.js';
import { mulberry32 } from './random.js';

/**
 * node dist/bench/grading-compare.js <other grade.js> [sessions=400] [seed=1]
 *
 * A change of the grading fold must not change a verdict: this folds the same random event
 * sequences (arrivals under tickets, resends changed or not, replies of every kind, dropped and
 * abandoned connections, closes, findings, reports at random moments and for one player) into this
 * build's grader and the one of `other` (e.g. a build of the branch point), with small thresholds
 * and bounds so that windows close and state is forgotten, and compares every report byte for byte.
 */
type Mod = typeof GradeModule;
const [otherPath, sessionsArg, seedArg] = process.argv.slice(2);
if (!otherPath) {
  console.error('usage: node dist/bench/grading-compare.js <other dist/src/grading/grade.js> [sessions] [seed]');
  process.exit(1);
}
const mine = (await import('../src/grading/grade.js')) as Mod;
const other = (await import(pathToFileURL(resolve(otherPath)).href)) as Mod;

/** The same sequences on every run of a seed. */
const random = mulberry32(Number(seedArg ?? 1));
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
const chance = (p: number) => random() < p;

const EVENTS = ['login', 'bet', 'bet_result', 'bet', 'bet_result'];
const CODES = ['R0', 'R0', 'R0', 'R0', 'R1', 'R2', 'R3', 'R4', 'X9'];
const session = { id: 'cmp', started_at: new Date(0).toISOString(), seed: null };

interface Pair {
  arrival: Arrival;
  attempts: [Attempt, Attempt];
}

let reports = 0;
let differences = 0;

function run(n: number): void {
  const thresholds = {
    retry_window_s: pick([1, 2, 5, 60]),
    client_timeout_s: pick([1, 2, 3]),
    min_retry_gap_ms: pick([0, 300, 500, 1000]),
    max_attempts: pick([2, 3, 5, 10]),
    round_max_age_s: pick([2, 5, 10, 300]),
  };
  const limits = chance(0.7) ? { transactions: 2 + int(30), rounds: 1 + int(20) } : undefined;
  const graders: [Grader, Grader] = [mine.newGrader(thresholds, limits), other.newGrader(thresholds, limits)];
  const users = ['p1', 'p2', 'p3', 'p4'].slice(0, 1 + int(4));
  const games = ['G1', 'G2', 'G3', 'G4', 'G5'].slice(0, 1 + int(5));
  const sent: Arrival[] = [];
  const flying: Pair[] = [];
  const waiting: { ticket: [number, number]; at: number }[] = [];
  let clock = 1_000_000;
  let id = 0;
  const steps = 20 + int(200);
  const both = (fn: (g: Grader, i: 0 | 1) => void) => {
    fn(graders[0], 0);
    fn(graders[1], 1);
  };
  const compare = (now: number, userId?: string) => {
    const texts = graders.map((g, i) =>
      JSON.stringify([(i ? other : mine).reportOf(g, { now: new Date(now), scenario: 'cmp', session, userId }), g.version]),
    );
    reports++;
    if (texts[0] !== texts[1] && differences++ < 5) console.log(`session ${n}: reports differ at ${now}\n${texts[0]}\n${texts[1]}`);
  };
  for (let s = 0; s < steps; s++) {
    clock += pick([0, 1, 5, 50, 200, 400, 600, 1000, 1500, 3000, 7000]);
    const r = random();
    if (r < 0.3 || (!flying.length && r < 0.55)) {
      // A callback arrives: a new transaction, a resend (changed or not), or a new id for an old body.
      const old = sent.length && chance(0.4) ? pick(sent) : undefined;
      const event = old && chance(0.8) ? old.event : pick(EVENTS);
      const user = old && chance(0.9) ? old.user : pick(users);
      const game = event === 'login' ? undefined : old?.game !== undefined && chance(0.8) ? old.game : pick(games);
      const tx = old && chance(0.7) ? old.tx : `t${n}-${++id}`;
      const total = event === 'login' ? undefined : old?.total !== undefined && chance(0.8) ? old.total : pick([1, 5, 10, 50, 1000]);
      const body = chance(0.9) && old ? old.body : { transaction_id: tx, event_type: event, user_id: user, data: { game_no: game, total } };
      const arrival: Arrival = { id: 0, at: clock, user, event, tx, body, applied: chance(0.75) };
      if (game !== undefined) arrival.game = game;
      if (total !== undefined) arrival.total = total;
      if (chance(0.8)) Object.assign(arrival, { headers: { 'api-id': 'x' }, reply: { status: 200, body: { code: 'R0' } } });
      if (chance(0.3)) arrival.lag = pick([0, 5, 80, 400]);
      const ticketed = chance(0.8);
      // Now and then stamped before an earlier ticket (the wall clock stepped back).
      const stamp = chance(0.05) ? clock - 300 : clock;
      const ticket: [number, number] = ticketed ? [graders[0].expect(stamp), graders[1].expect(stamp)] : [0, 0];
      if (ticketed && chance(0.15)) {
        waiting.push({ ticket, at: stamp }); // decided later (or refused)
        continue;
      }
      arrival.id = ++id;
      sent.push(arrival);
      const attempts = graders.map((g, i) => g.arrive({ ...arrival }, ticketed ? ticket[i] : undefined)) as [Attempt, Attempt];
      flying.push({ arrival, attempts });
    } else if (r < 0.36 && waiting.length) {
      const w = waiting.splice(int(waiting.length), 1)[0]!;
      both((g, i) => g.settle(w.ticket[i]));
    } else if (r < 0.7 && flying.length) {
      const p = flying.splice(int(flying.length), 1)[0]!;
      const code = pick(CODES);
      const status = chance(0.9) ? 200 : pick([500, 404]);
      const body = chance(0.95) ? { code, ...(chance(0.6) ? { latest_balance: pick([0, 5, 100, 10_000]) } : {}) } : 'raw';
      const done = { end: clock, status, body, dropped: chance(0.1), clientGone: chance(0.1) };
      both((g, i) => g.complete(p.attempts[i], done));
    } else if (r < 0.75 && flying.length) {
      const p = pick(flying);
      both((g, i) => g.closed(p.attempts[i], clock));
    } else if (r < 0.85) {
      const codes = chance(0.5) ? [] : [pick(['A', 'B', 'C'])];
      const user = chance(0.9) ? pick(users) : undefined;
      both((g) => g.count(user, codes));
    } else if (r < 0.9 && waiting.length) {
      // A decided arrival, stamped when its ticket was taken.
      const w = waiting.splice(int(waiting.length), 1)[0]!;
      const arrival: Arrival = {
        id: ++id,
        at: w.at,
        user: pick(users),
        event: 'bet',
        tx: `t${n}-${++id}`,
        game: pick(games),
        body: {},
        applied: true,
      };
      const attempts = graders.map((g, i) => g.arrive({ ...arrival }, w.ticket[i])) as [Attempt, Attempt];
      flying.push({ arrival, attempts });
    } else compare(clock, chance(0.3) ? pick(users) : undefined);
  }
  compare(clock + pick([0, 1000, 100_000]));
}

const sessions = Number(sessionsArg ?? 400);
for (let n = 0; n < sessions; n++) run(n);
console.log(`${reports} reports compared over ${sessions} sessions: ${differences} differ`);
process.exitCode = differences ? 1 : 0;
