import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The sampling timer's period: a punctual loop shows about this much "delay". */
const RESOLUTION_MS = 10;

/**
 * How late this process's event loop has been running lately: its arrival and reply stamps are
 * late by as much. On a loaded machine (a CI runner shared by the provider and the wallet) that can
 * reach hundreds of milliseconds, and a stamp-to-stamp gap can shrink or grow by it although the
 * provider waited as it should: the timing checks widen their tolerance by the lag of the stamps
 * they compare (docs/certification.md "Timing tolerance").
 *
 * Two monitors, each cleared every other second in turn: clearing one also drops its baseline, so
 * the first period after it is not a sample (a block of the loop then would go unseen); the other
 * one, cleared a second earlier, sees it.
 */
export class LoopLag {
  private readonly monitors = [monitorEventLoopDelay({ resolution: RESOLUTION_MS }), monitorEventLoopDelay({ resolution: RESOLUTION_MS })];
  /** The monitor to clear next: the one cleared longest ago. */
  private next = 0;
  /** How many times a monitor was cleared (a test waits for it). */
  rotations = 0;
  /** The first time read in this batch of events; NaN after it. */
  private batchStart = Number.NaN;
  /** The monitors' lag, read at `batchStart`. */
  private lag = 0;

  /** `periodMs`: how often one monitor is cleared (a second; a test's own may be shorter). */
  constructor(periodMs = 1000) {
    for (const m of this.monitors) m.enable();
    // Cleared by the clock, not by reads: after an idle pause the lag read is that of the last one
    // to two periods, not the worst of the pause (a stall long before would widen every tolerance).
    const rotate = () => {
      this.monitors[this.next]!.reset();
      this.next = 1 - this.next;
      this.rotations++;
    };
    setInterval(rotate, periodMs).unref();
  }

  /**
   * How late a stamp taken at `now` may be (ms): the longest delay of the event loop over at least
   * the last period, and how long the batch of events it is handled in has run before it.
   */
  at(now: number): number {
    // The monitors are filled by timers of this same loop: they cannot change while the loop
    // handles one batch of events (many callbacks, at load), so they are read once for them. Nor
    // do they see the batch itself until it ends: a callback handled late in a long one (a burst of
    // players on a starved machine) waited in its socket while those before it were handled.
    if (Number.isNaN(this.batchStart)) {
      setImmediate(this.forget);
      this.batchStart = now;
      // Delays are in nanoseconds and include the timer's own period; without samples max is 0.
      this.lag = Math.max(0, Math.round(Math.max(this.monitors[0]!.max, this.monitors[1]!.max) / 1e6) - RESOLUTION_MS);
    }
    return this.lag + Math.max(0, now - this.batchStart);
  }

  /** Samples taken by the monitor cleared longest ago (its first period after enabling is not one). */
  get samples(): number {
    return this.monitors[this.next]!.count;
  }

  private readonly forget = () => {
    this.batchStart = Number.NaN;
  };
}

/** The process's lag, measured once for every session and route. */
export const loopLag = new LoopLag();
