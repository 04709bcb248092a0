/*
 * A fixed-window request counter (hosted mode's per-tenant limits): `limit` requests per window,
 * the window starting at the first request after the last one ended. The clock is injected, so
 * tests never wait for a window to pass. A refusal's headers follow the IETF draft's first form
 * (RateLimit-Limit / -Remaining / -Reset, in seconds), as express-rate-limit and others send them;
 * a request that passes gets none (nothing is built for it).
 */

export type Clock = () => number;

export interface Refused {
  /** The headers of the 429: Retry-After and RateLimit-*. */
  headers: Record<string, string>;
  /** Seconds until the window ends. */
  retryAfterS: number;
}

export class RateLimit {
  private windowStart = -Infinity;
  private used = 0;
  /** Requests refused since the start (counted, never journalled one by one). */
  refused = 0;
  /** The clock's time at the last `take` (a caller that needs the time of its request reads it here, not the clock again). */
  at = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: Clock = Date.now,
  ) {}

  /** One request: undefined when counted in the current window; the 429's headers when it is used up. */
  take(): Refused | undefined {
    const now = (this.at = this.now());
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.used = 0;
    }
    if (this.used < this.limit) {
      this.used++;
      return undefined; // nothing allocated on the way of a callback that passes
    }
    this.refused++;
    const retryAfterS = Math.max(1, Math.ceil((this.windowStart + this.windowMs - now) / 1000));
    const headers = {
      'retry-after': String(retryAfterS),
      'ratelimit-limit': String(this.limit),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(retryAfterS),
    };
    return { headers, retryAfterS };
  }
}

/**
 * Requests being answered at once (hosted mode's callbacks in flight: a reply a rule delays holds
 * its connection until it is written). `take` counts one in, `release` one out.
 */
export class InFlightLimit {
  count = 0;
  /** Requests refused since the start. */
  refused = 0;

  constructor(readonly limit: number) {}

  /** True when one more may be answered now (it is counted); false when `limit` are already. */
  take(): boolean {
    if (this.count >= this.limit) {
      this.refused++;
      return false;
    }
    this.count++;
    return true;
  }

  /** One answered (bound: a listener as it is, e.g. a response's `close`). */
  readonly release = (): void => {
    this.count--;
  };
}
