import { errorBody, errorResponse, type Json } from './docs.js';

/*
 * What a tenant's routes can answer in hosted mode besides a single-tenant server's statuses: the
 * tenant scope (tenant-scope.ts) stands in front of each of them.
 */

const seconds = (description: string, minimum = 1) => ({ type: 'string', pattern: minimum ? '^[1-9][0-9]*$' : '^[0-9]+$', description });

/** Retry-After and the RateLimit-* headers of a 429 (src/http/rate-limit.ts). */
const RATE_LIMIT_HEADERS: Json = {
  'Retry-After': seconds('Seconds to wait before sending again.'),
  'RateLimit-Limit': seconds('Requests allowed per window (RATE_LIMITED only).'),
  'RateLimit-Remaining': seconds('Requests left in this window: 0 (RATE_LIMITED only).', 0),
  'RateLimit-Reset': seconds('Seconds until the window starts again (RATE_LIMITED only).'),
};

const UNKNOWN_404 = errorResponse(
  'No tenant with that id on this host (TENANT_UNKNOWN): check the URL the host gave you. ' +
    "On admin routes only the host's token gets this answer; any other token gets 401 or 403, so ids cannot be probed.",
  [errorBody('TENANT_UNKNOWN', 'AbCdEfGhIjKlMnOpQrStUv')],
);

const STORE_UNREACHABLE_503 = errorResponse(
  'The store the host shares with its other processes (--store redis) cannot be reached (STORE_UNREACHABLE): ask again once it is back.',
  [errorBody('STORE_UNREACHABLE', 'Redis at redis://redis:6379 does not answer')],
);

/** The callback route's hosted answers: unknown tenant, its limits, the shared store away. */
export function tenantCallbackResponses(): Record<string, Json> {
  return {
    404: UNKNOWN_404,
    429: {
      ...errorResponse(
        "The tenant's callbacks per second (--tenant-callbacks-per-second: RATE_LIMITED, with RateLimit-*) or callbacks being " +
          'answered at once (--tenant-callbacks-in-flight: IN_FLIGHT_LIMITED) are used up. Answered before the body is read, ' +
          'not journalled and not graded: send again after Retry-After.',
        [errorBody('RATE_LIMITED', 'callbacks', 50, 'second', 1), errorBody('IN_FLIGHT_LIMITED', 100)],
      ),
      headers: RATE_LIMIT_HEADERS,
    },
    503: STORE_UNREACHABLE_503,
  };
}

/** An admin route's hosted answers: unknown tenant (host's token), the tenant's admin requests per minute. */
export function tenantAdminResponses(): Record<string, Json> {
  return {
    404: UNKNOWN_404,
    429: {
      ...errorResponse(
        "The tenant's admin requests per minute (--tenant-admin-per-minute) are used up (RATE_LIMITED); the host's token is " +
          'not limited. Send again after Retry-After.',
        [errorBody('RATE_LIMITED', 'admin requests', 600, 'minute', 12)],
      ),
      headers: RATE_LIMIT_HEADERS,
    },
    503: STORE_UNREACHABLE_503,
  };
}

/**
 * Two descriptions of one status joined: the route's own answer and the scope's (both can be a 404,
 * or a 503). Examples of both are kept.
 */
export function joinResponses(own: Json | undefined, scope: Json): Json {
  if (!own) return scope;
  const media = (r: Json) => (r.content as Json | undefined)?.['application/json'] as Json | undefined;
  const examples = { ...(media(scope)?.examples as Json | undefined), ...(media(own)?.examples as Json | undefined) };
  const joined: Json = { ...scope, ...own, description: `${own.description as string} Or: ${scope.description as string}` };
  const ownMedia = media(own);
  if (ownMedia && Object.keys(examples).length) joined.content = { 'application/json': { ...ownMedia, examples } };
  return joined;
}
