import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as GradeModule from '../src/grading/grade.js';
import type { Arrival } from '../src/grading/attempt.js';
import { median } from './report.js';
import { betBody, betResultBody, HEADERS } from './traffic.js';

/**
 * node dist/bench/grading.js [callbacks=1000000] [--traffic=faults|http] [--grader=<grade.js>]
 *
 * The grading fold alone, in this process: a session of login → bet → bet_result cycles over 1,000
 * players, folded event by event as the route folds them (a ticket while each is decided); prints
 * the fold's CPU per callback, then the cost of GET /admin/report's work (reading the state) after
 * 1,000 callbacks and after all of them.
 *
 * --traffic=faults (the default): one bet reply in ten dropped and resent 600 ms later, one
 *   settlement in seven answered R1 and resent, small bodies.
 * --traffic=http: the HTTP bench's traffic (bench/traffic.ts): every reply R0, a round per bet, its
 *   bodies, and what the route passes (request headers and the journal's reply as evidence, the
 *   loop's lag).
 * --grader: another build's dist/src/grading/grade.js (e.g. of the branch point), for an A/B run
 *   over the same traffic.
 */
const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const total = Number(args.find((a) => !a.startsWith('--')) ?? 1_000_000);
const traffic = option('traffic') ?? 'faults';
if (traffic !== 'faults' && traffic !== 'http') throw new Error(`--traffic: faults or http, not ${traffic}`);
const graderPath = option('grader');
const { DEFAULT_THRESHOLDS, newGrader, reportOf } = (await import(
  graderPath ? pathToFileURL(resolve(graderPath)).href : '../src/grading/grade.js'
)) as typeof GradeModule;
const grader = newGrader({ ...DEFAULT_THRESHOLDS, client_timeout_s: 1 });
const T0 = Date.now();
const session = { id: 'bench', started_at: new Date(T0).toISOString(), seed: null };
const reply = (code: string) => ({ code, event_type: 'bet', timestamp: 0, user_id: 'p', latest_balance: 1000 });

let id = 0;
let at = T0;
type Step = { arrival: Arrival; done: Parameters<typeof grader.complete>[1] };
/** One callback's events, made before the clock runs (only the fold is timed). */
function callback(steps: Step[], a: Omit<Arrival, 'id' | 'at' | 'body' | 'applied'>, o: { drop?: boolean; code?: string } = {}): void {
  at += 2;
  const code = o.code ?? 'R0';
  const body = { transaction_id: a.tx, event_type: a.event, timestamp: 0, feedback_data: 'fb', user_id: a.user, data: { game_no: a.game } };
  steps.push({
    // Every field, in the route's order: its arrivals have one shape (a spread of `a` would make several).
    arrival: {
      id: ++id,
      at,
      user: a.user,
      event: a.event,
      tx: a.tx,
      game: a.game,
      total: a.total,
      body,
      applied: code === 'R0',
      headers: undefined,
      reply: undefined,
      lag: undefined,
    },
    done: { end: at + 1, status: 200, body: reply(code), dropped: o.drop ?? false, clientGone: false },
  });
}

const reportMs = (): number => {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    reportOf(grader, { now: new Date(at), scenario: 'bench', session });
    times.push(performance.now() - started);
  }
  return median(times)!;
};

/** One callback of the HTTP bench's traffic, with what the route passes along (src/routes/callback.ts). */
function httpCallback(steps: Step[], user: string, event: string, tx: string, game?: string): void {
  at += 1;
  const envelope = (event_type: string, user_id: string) => ({
    transaction_id: tx,
    event_type,
    timestamp: 0,
    feedback_data: 'bench',
    user_id,
  });
  const body =
    event === 'login' ? envelope(event, user) : event === 'bet' ? betBody(envelope, user, game!) : betResultBody(envelope, user, game!);
  const replyBody = reply('R0');
  const journalled = { status: 200, headers: { 'content-type': 'application/json' }, body: replyBody, dropped: false, client_gone: false };
  const arrival: Arrival = {
    id: ++id,
    at,
    user,
    event,
    tx,
    game,
    total: game === undefined ? undefined : 2.5,
    body,
    applied: true,
    headers: { ...HEADERS, 'api-key': '***' },
    reply: journalled,
    lag: 0,
  };
  steps.push({ arrival, done: { end: at, status: 200, body: replyBody, dropped: false, clientGone: false } });
}

let early: number | undefined;
let micros = 0;
for (let i = 0; id < total;) {
  const steps: Step[] = [];
  for (const end = i + 2000; traffic === 'http' && i < end; i++) {
    const user = `bench-p${String(i % 1000).padStart(4, '0')}`;
    httpCallback(steps, user, 'login', `l${i}`);
    httpCallback(steps, user, 'bet', `b${i}`, `g${i}`);
    httpCallback(steps, user, 'bet_result', `s${i}`, `g${i}`);
  }
  for (const end = i + 2000; traffic === 'faults' && i < end; i++) {
    const user = `p${i % 1000}`;
    const game = `G${i}`;
    callback(steps, { user, event: 'login', tx: `l${i}` });
    const drop = i % 10 === 0;
    callback(steps, { user, event: 'bet', tx: `b${i}`, game, total: 10 }, { drop });
    if (drop) {
      at += 600;
      callback(steps, { user, event: 'bet', tx: `b${i}`, game, total: 10 });
    }
    const r1 = i % 7 === 0;
    callback(steps, { user, event: 'bet_result', tx: `s${i}`, game, total: 10 }, { code: r1 ? 'R1' : 'R0' });
    if (r1) {
      at += 600;
      callback(steps, { user, event: 'bet_result', tx: `s${i}`, game, total: 10 });
    }
  }
  const before = process.cpuUsage();
  for (const { arrival, done } of steps) {
    // As the route does: a ticket while the callback is decided, settled by its arrival.
    const attempt = grader.arrive(arrival, grader.expect(arrival.at));
    grader.complete(attempt, done);
    grader.count(arrival.user, []);
  }
  const used = process.cpuUsage(before);
  micros += used.user + used.system;
  if (early === undefined && id >= 1000) early = reportMs();
}
const perCallback = micros / id;

const r = reportOf(grader, { now: new Date(at), scenario: 'bench', session });
console.log(
  `grading fold (${traffic} traffic${graderPath ? `, ${graderPath}` : ''}): ${id.toLocaleString('en')} callbacks, ${perCallback.toFixed(2)} µs CPU per callback (one process, no HTTP)`,
);
console.log(
  `report (reading the state): ${early!.toFixed(2)} ms after 1,000 callbacks, ${reportMs().toFixed(2)} ms after ${id.toLocaleString('en')} (median of 20)`,
);
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
console.log(
  `verdict: ${r.summary.fail} failing checks; forgotten ${r.forgotten.transactions} transactions, ${r.forgotten.rounds} rounds; heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB${gc ? ' after gc' : ' (run with --expose-gc for the live heap)'}`,
);
