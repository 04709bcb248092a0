import type { Simulator } from '../core/simulator.js';

/** How often a stream that asked for grading events looks for a change (windows close with time, too). */
export const GRADING_TICK_MS = 500;

/**
 * `event: grading` messages on an event stream (`GET /admin/events?grading=true`): one when the
 * stream opens and one whenever the session's verdict changed — a check exercised, violated, a
 * window opened or closed, a new session. The dashboard reads the report only then, so its cost
 * follows the changes, not the callbacks, and never the session's length. Returns the stop function.
 */
export function watchGrading(sim: Simulator, send: (text: string) => void, everyMs = GRADING_TICK_MS): () => void {
  let last = '';
  let folding = false;
  let stopped = false;
  const tick = () => {
    if (folding) return;
    folding = true;
    // Folded first, then the clock moved: a shared session (Redis) folds other processes' events on
    // demand, and a window judged before the event that closes it in time was folded would fail a
    // provider that did its part (a resend in time, read as never sent).
    void sim
      .currentGrading()
      .then(({ grader, info }) => {
        if (stopped) return;
        grader.advance(Date.now() - grader.lagMs); // windows that closed by now are judged
        const version = grader.version;
        const seen = `${info.id}:${version}`;
        if (seen === last) return;
        last = seen;
        send(`event: grading\ndata: ${JSON.stringify({ session: info.id, version })}\n\n`);
      })
      .catch(() => undefined) // Redis away: the next tick
      .finally(() => (folding = false));
  };
  tick();
  const timer = setInterval(tick, everyMs).unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * `event: scenario` messages on a stream that asked for grading events (the dashboard's): one
 * whenever another scenario became active — PUT /admin/scenario from any client, start --watch,
 * another process of a shared store — so an open page shows the rules in force without waiting
 * for a callback. Returns the stop function.
 */
export function watchScenario(sim: Simulator, send: (text: string) => void, everyMs = GRADING_TICK_MS): () => void {
  let last = sim.scenario;
  const timer = setInterval(() => {
    if (sim.scenario === last) return;
    last = sim.scenario;
    send(`event: scenario\ndata: ${JSON.stringify({ name: last.source.name })}\n\n`);
  }, everyMs).unref();
  return () => clearInterval(timer);
}
