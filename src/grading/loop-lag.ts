import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The sampling timer's period: a punctual loop shows about this much "delay". */
const RESOLUTION_MS = 10;

/**
 * How late this process's event loop has been running lately: its arrival and reply stamps are
 * late by as much. On a loaded machine (a CI runner shared by the provider and the wallet) that can
 * reach hundreds of milliseconds, and a stamp-to-stamp gap can shrink or grow by it although the
 * provider waited as it should: the timing checks widen their tolerance by the lag of the stamps
 * they compare (docs/certification.md "Timing tolerance").
 */
export class LoopLag {
  private readonly histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private previous = 0;
  private since = 0;

  constructor() {
    this.histogram.enable();
  }

  /** The longest delay (ms) of the event loop over the last one to two seconds, at `now`. */
  at(now: number): number {
    if (now - this.since >= 1000) {
      this.previous = this.current();
      this.histogram.reset();
      this.since = now;
    }
    return Math.max(this.previous, this.current());
  }

  private current(): number {
    // Delays are in nanoseconds and include the timer's own period; without samples max is 0.
    return Math.max(0, Math.round(this.histogram.max / 1e6) - RESOLUTION_MS);
  }
}

/** The process's lag, measured once for every session and route. */
export const loopLag = new LoopLag();
