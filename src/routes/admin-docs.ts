import { MAX_DOCUMENT_DEPTH } from '../text/json-depth.js';
import { type DocumentedSchema, errorBody, errorResponse, invalid, type Json, SHUTDOWN_503, UNREADABLE } from './docs.js';

/*
 * What every admin route can answer besides its own statuses: the admin plugin's guard
 * (admin-guard.ts) and the body parser stand in front of each of them.
 */

export interface AdminDocOptions {
  /** --admin-token is set: every admin route wants the bearer token (401 without it). */
  locked: boolean;
  /** The body limit the app runs with (the 413 example names it). */
  bodyLimit: number;
}

const FORBIDDEN =
  'The admin API refused the request: its Host is not the listening address or a name in --allowed-hosts, ' +
  'or it comes from another site (Origin, Sec-Fetch-Site). Call it from curl, a script or /docs on this host.';
export const UNREADABLE_400 =
  'The body cannot be read: Content-Type says application/json but the body is empty (BODY_EMPTY), ' +
  `not JSON (BODY_NOT_JSON), or nests deeper than ${MAX_DOCUMENT_DEPTH} levels (BAD_REQUEST naming the pointer where).`;
/** The 400 of a body nested too deep, as the guard sends it. */
export const TOO_DEEP = invalid(
  `/rules/0/then/body${'/a'.repeat(60)}`,
  `nests deeper than ${MAX_DOCUMENT_DEPTH} levels; no wallet-sim document needs that many: flatten it`,
);
const TOO_LARGE = 'The body is over the size limit (BODY_TOO_LARGE; default 1 MiB, `start --body-limit`). Nothing changed.';
const UNAUTHORIZED = 'Authorization: Bearer <--admin-token> missing or wrong (UNAUTHORIZED).';
const NOT_JSON = 'The body is not application/json (CONTENT_TYPE_NOT_JSON). Nothing changed.';

const STORE_DOWN =
  'STORE_UNREACHABLE (--store redis: Redis unreachable, not answering within --redis-timeout-ms, a cluster down, or it lost the ' +
  "wallet's state, a player's record included), with the reason and what to do; callbacks get R1 meanwhile. STORE_FAILED: a local store's write failed.";

/** The bearer security of the admin routes, when locked. */
/** PUT /admin/scenario's `warnings`: the rules that can never fire (src/core/scenario/dead-rules.ts). */
export const SCENARIO_WARNINGS = {
  type: 'array',
  description:
    'Rules that can never fire (the scenario is active all the same), each with its JSON pointer and what to do; absent when none.',
  items: {
    type: 'object',
    required: ['pointer', 'message'],
    additionalProperties: false,
    properties: { pointer: { type: 'string' }, message: { type: 'string' } },
  },
};

export const adminSecurity = (o: Pick<AdminDocOptions, 'locked'>) => (o.locked ? [{ bearer: [] as never[] }] : undefined);

/** The responses of the guard and the body parser; a write (anything but GET) has a body to refuse. */
function guardResponses(write: boolean, o: AdminDocOptions): Record<string, Json> {
  return {
    ...(o.locked ? { 401: errorResponse(UNAUTHORIZED, [errorBody('UNAUTHORIZED')]) } : {}),
    403: errorResponse(FORBIDDEN),
    ...(write
      ? {
          400: errorResponse(`${UNREADABLE_400} Nothing changed.`, [...UNREADABLE, TOO_DEEP]),
          413: errorResponse(TOO_LARGE, [errorBody('BODY_TOO_LARGE', o.bodyLimit)]),
          415: errorResponse(NOT_JSON, [errorBody('CONTENT_TYPE_NOT_JSON', 'text/plain')]),
        }
      : {}),
    503: errorResponse(`${SHUTDOWN_503} Or the store cannot serve now: ${STORE_DOWN}`, [
      errorBody(
        'STORE_UNREACHABLE',
        'Redis at redis://redis:6379 lost wallet-sim\'s state (player "p1" listed but gone: …); POST /admin/reset starts afresh',
      ),
    ]),
  };
}

/** An admin route's schema: tagged, secured when locked, with the guard's statuses beside its own. */
export function adminSchema(method: 'GET', o: Pick<AdminDocOptions, 'locked'>, schema: DocumentedSchema): DocumentedSchema;
export function adminSchema(method: 'PUT' | 'POST' | 'DELETE', o: AdminDocOptions, schema: DocumentedSchema): DocumentedSchema;
export function adminSchema(
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  o: Pick<AdminDocOptions, 'locked'> & Partial<AdminDocOptions>,
  schema: DocumentedSchema,
): DocumentedSchema {
  const own = (schema.response ?? {}) as Record<string, Json>;
  // (a GET has no body: only a write's 413 names the limit, and its overload requires it)
  const guard = guardResponses(method !== 'GET', o as AdminDocOptions);
  // The route's own answer wins, except 401: only the guard sends it.
  const response = { ...guard, ...own, ...(guard[401] ? { 401: guard[401] } : {}) };
  return { tags: ['admin'], security: adminSecurity(o), ...schema, response };
}
