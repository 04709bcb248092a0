/*
 * A fixed-window request counter (hosted mode's per-tenant limits): `limit` requests per window,
 * the window starting at the first request after the last one ended. The clock is injected, so
 * tests never wait for a window to pass. The headers follow the IETF draft's first form
 * (RateLimit-Limit / -Remaining / -Reset, in seconds), as express-rate-limit and others send them.
 */

export type Clock = () => number;

export interface Taken {
  ok: boolean;
  /** The headers the answer carries: RateLimit-* always, Retry-After when refused. */
  headers: Record<string, string>;
  /** Refused: seconds until the window ends. */
  retryAfterS: number;
}

export class RateLimit {
  private windowStart = -Infinity;
  private used = 0;
  /** Requests refused since the start (counted, never journalled one by one). */
  refused = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: Clock = Date.now,
  ) {}

  /** One request: counted in the current window, or refused when it is used up. */
  take(): Taken {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.used = 0;
    }
    const resetS = Math.max(1, Math.ceil((this.windowStart + this.windowMs - now) / 1000));
    const ok = this.used < this.limit;
    if (ok) this.used++;
    else this.refused++;
    const headers: Record<string, string> = {
      'ratelimit-limit': String(this.limit),
      'ratelimit-remaining': String(this.limit - this.used),
      'ratelimit-reset': String(resetS),
    };
    if (!ok) headers['retry-after'] = String(resetS);
    return { ok, headers, retryAfterS: resetS };
  }
}
