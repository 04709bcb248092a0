import type { ServerOptions } from 'node:http';

/**
 * The bounds that keep a slow or hostile caller from holding the server (docs/limits.md).
 * Every value is a `start` option; 0 turns a time-out off.
 */
export interface ServerLimits {
  /** Time to receive a request's headers, from the first byte (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** Time to receive the whole request, headers and body. A scenario's delay_ms comes after and is not counted. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept between two requests. */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic at all for this long is closed, also while its reply is delayed. */
  idleTimeoutMs: number;
  /** Connections beyond this many are closed as soon as they open. */
  maxConnections: number;
  /** Listeners of GET /admin/events served at once (never more than half of maxConnections). */
  maxListeners: number;
  /** On SIGINT/SIGTERM: how long requests in flight may take to be answered before their connections are cut. */
  shutdownGraceMs: number;
}

/** The longest `then.delay_ms` the scenario schema allows. */
export const MAX_DELAY_MS = 600_000;

/** Defaults an honest provider never reaches; see docs/limits.md. */
export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Fastify's own default: longer than the 60 s idle time-out of the usual HTTP client pools and
  // load balancers, so a pooled connection is not closed under a client that is about to reuse it.
  keepAliveTimeoutMs: 72_000,
  // Longer than the longest delay_ms the schema allows: a delayed reply is never cut as idle.
  idleTimeoutMs: MAX_DELAY_MS + 60_000,
  maxConnections: 1000,
  maxListeners: 100,
  shutdownGraceMs: 10_000,
};

/**
 * The listeners served at once: --max-listeners, but at most half the connection cap, so that
 * event streams (which stay open) can never hold the connections callbacks need.
 */
export const listenerCap = (l: Pick<ServerLimits, 'maxListeners' | 'maxConnections'>): number =>
  Math.max(1, Math.min(l.maxListeners, Math.floor(l.maxConnections / 2)));

/** What is wrong with a set of limits, as a message that says what to do; undefined when fine. */
export function limitsProblem(l: ServerLimits): string | undefined {
  if (l.headersTimeoutMs > 0 && l.requestTimeoutMs > 0 && l.headersTimeoutMs > l.requestTimeoutMs) {
    return `--headers-timeout-ms (${l.headersTimeoutMs}) must not exceed --request-timeout-ms (${l.requestTimeoutMs}); lower the first or raise the second`;
  }
  return undefined;
}

/** Fastify's server options for these limits (the connection cap is set on the server once built). */
export function serverOptions(l: ServerLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  http: ServerOptions;
} {
  const checked = [l.headersTimeoutMs, l.requestTimeoutMs].filter((ms) => ms > 0);
  return {
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    connectionTimeout: l.idleTimeoutMs,
    http: {
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: l.requestTimeoutMs,
      keepAliveTimeout: l.keepAliveTimeoutMs,
      // Node checks the header and request time-outs only this often (30 s by default), so a slow
      // request could live up to twice its time-out; a quarter of the shorter one keeps it close.
      connectionsCheckingInterval: checked.length ? Math.max(50, Math.min(30_000, Math.floor(Math.min(...checked) / 4))) : 30_000,
    },
  };
}
