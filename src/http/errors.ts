import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { count, noun } from '../text/plural.js';
import { CLI_NAMING, type OptionNaming } from '../text/option-naming.js';

/*
 * Every error the HTTP API answers outside the callback protocol, in one table (Fastify core's
 * and Mockoon's precedent): code → HTTP status → a message that names the thing and the fix.
 * Replies are `{ error: <code>, message, details? }` (schemas/error.schema.json, `ApiError`).
 * Fastify's own codes (FST_ERR_…) never reach a caller: `fromFastify` translates them.
 */

export interface ApiErrorBody {
  error: string;
  message: string;
  details?: { pointer: string; message: string }[];
}
export interface ApiErrorReply {
  status: number;
  body: ApiErrorBody;
  /** Headers the answer carries (a 429's Retry-After and RateLimit-*). */
  headers?: Record<string, string>;
}

export const API_ERRORS = {
  BAD_REQUEST: {
    status: 400,
    // A bad query names what the route takes: a misspelt filter is then one look away from the right one.
    message: (detail: string, route?: string, parameters?: readonly string[]) =>
      parameters?.length ? `${detail}; ${route} takes the query parameters ${parameters.join(', ')} (described at /docs)` : detail,
  },
  BODY_EMPTY: {
    status: 400,
    message: () =>
      'the body is empty but Content-Type says application/json: send a JSON document (e.g. {}), ' +
      'or no Content-Type when there is nothing to send',
  },
  BODY_NOT_JSON: {
    status: 400,
    /** `scenario`: PUT /admin/scenario's complaint, with the line and column, instead of a players example. */
    message: (scenario?: string) =>
      scenario === undefined
        ? 'the body is not valid JSON (or has a __proto__ / constructor.prototype key): ' +
          `check the quoting, e.g. curl -d '{"balance": 100}'`
        : `the scenario is not valid JSON: ${scenario}; send the file as it is, e.g. ` +
          "curl -X PUT -H 'content-type: application/json' --data-binary @scenario.json <base URL>/admin/scenario",
  },
  CONTENT_LENGTH_WRONG: { status: 400, message: () => 'Content-Length does not match the body that was sent: let your client compute it' },
  SCENARIO_INVALID: { status: 400, message: (detail: string) => detail },
  UNAUTHORIZED: {
    status: 401,
    message: (wanted: string = 'the admin API wants Authorization: Bearer <--admin-token>') => wanted,
  },
  FORBIDDEN: { status: 403, message: (detail: string) => detail },
  HOST_NOT_ALLOWED: {
    status: 403,
    message: (host: string) =>
      'the admin API answers only requests addressed to localhost, an IP address or a name ' +
      `given to --allowed-hosts; Host was "${host}": ` +
      'to reach it under that name, start wallet-sim with --allowed-hosts NAME (env WALLET_SIM_ALLOWED_HOSTS)',
  },
  CROSS_SITE_REFUSED: {
    status: 403,
    message: (origin: string) =>
      `the admin API refuses requests from web pages of another site (${origin}), ` +
      'so no page you open can drive it; ' +
      'to let a page of yours call it, start wallet-sim with --cors ORIGIN naming that exact origin (env WALLET_SIM_CORS)',
  },
  TENANT_UNKNOWN: {
    status: 404,
    message: (id: string) =>
      `no tenant ${id} on this host: check the URL the host gave you (POST /tenants answered it; GET /tenants lists them)`,
  },
  HOSTED: {
    status: 404,
    message: (route: string) =>
      `wallet-sim runs hosted (start --hosted): ${route} is a tenant's, under /t/<tenant id>/ ` +
      '(e.g. POST /t/<id>/callback, GET /t/<id>/admin/report, /t/<id>/ui); the host creates tenants with POST /tenants',
  },
  PLAYER_UNKNOWN: {
    status: 404,
    message: (userId: string, admin = '/admin') => `no player ${userId}: create it with PUT ${admin}/players/${userId}`,
  },
  NOT_FOUND: { status: 404, message: (detail: string) => `${detail}: the routes are listed at /docs` },
  SIGNING_NOT_ENABLED: {
    status: 404,
    // `unsigned`: how this reader asks for the unsigned report (the route's query, the CLI's option, the Node API's method).
    message: (name: OptionNaming = CLI_NAMING, unsigned = 'ask without ?signed=true') =>
      `this wallet-sim holds no signing key, so it signs no report: start it with ${name.option('signingKey')} <private key file> ` +
      `(${name.env('signingKey') ? `env ${name.env('signingKey')}; ` : ''}create a pair with wallet-sim keygen --out <dir>), ` +
      `or ${unsigned} for the unsigned report`,
  },
  METHOD_NOT_ALLOWED: { status: 405, message: (detail: string) => detail },
  BALANCES_UPSTREAM: {
    status: 409,
    message: (upstream: string) =>
      `wallet-sim is proxying to ${upstream} (--upstream): balances live in the upstream wallet, which wallet-sim does not write; ` +
      "set the test player's balance in the upstream wallet (GET /admin/players lists the balances it last reported)",
  },
  PLAYER_LIMIT: {
    status: 409,
    message: (max: number, admin = '/admin') =>
      `this workspace holds ${max} players, its most (the host's --tenant-players): set the balance of a player it has, ` +
      `or POST ${admin}/reset to start over with the scenario's players`,
  },
  TENANT_LIMIT: {
    status: 409,
    message: (max: number) =>
      `this host holds ${max} tenants, its most (--max-tenants): delete one (DELETE /tenants/:id) or start the host with a higher --max-tenants`,
  },
  BODY_TOO_LARGE: {
    status: 413,
    message: (limit: number) => `the body is over the ${limit}-byte limit; send less or start with --body-limit`,
  },
  MEDIA_TYPE_UNSUPPORTED: {
    status: 415,
    message: (type: string) => `Content-Type ${type} is not accepted here: send the body as application/json`,
  },
  CONTENT_TYPE_NOT_JSON: {
    status: 415,
    message: (type: string) =>
      `admin writes with a body want Content-Type: application/json, got "${type}"; ` +
      "send JSON with -H 'content-type: application/json' (curl)",
  },
  RATE_LIMITED: {
    status: 429,
    message: (what: string, limit: number, per: string, retryAfterS: number) =>
      `this tenant's ${what} are limited to ${limit} per ${per} (the host's setting): ` +
      `send again in ${retryAfterS} s (Retry-After), and spread them out (RateLimit-Remaining says how many are left)`,
  },
  IN_FLIGHT_LIMITED: {
    status: 429,
    message: (limit: number) =>
      `this tenant already has ${limit} callbacks being answered, its most at once (the host's --tenant-callbacks-in-flight; ` +
      'a reply a rule delays counts until it is written): wait for those replies, then send again (Retry-After)',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    message: (headersMs: number, requestMs: number) =>
      `the request did not arrive in time (its headers within ${headersMs} ms, --headers-timeout-ms; all of it within ` +
      `${requestMs} ms, --request-timeout-ms), so the connection was closed: send each request whole and at once, or start wallet-sim with larger time-outs`,
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    message: () => "the request's headers are larger than Node's limit (16 KiB in all): send fewer or shorter headers",
  },
  HTTP_MALFORMED: {
    status: 400,
    message: (reason: string) =>
      `the request is not valid HTTP/1.1 (${reason}), so the connection was closed: check how the client writes its request line, ` +
      'headers, Content-Length and Transfer-Encoding (one of them, not both)',
  },
  SHUTTING_DOWN: {
    status: 503,
    message: () => 'wallet-sim is shutting down and did not process this request; send it again once wallet-sim is listening again',
  },
  LISTENERS_FULL: {
    status: 503,
    message: (max: number, stream = 'GET /admin/events', tenants = false) =>
      tenants
        ? `${count(max, noun('listener'))} of this tenant already ${max === 1 ? 'follows' : 'follow'} ${stream}, the most a tenant ` +
          "may open (the host's --tenant-listeners); close one (a dashboard tab, a wallet-sim tail) and try again, or ask the host for a higher limit"
        : `${count(max, noun('listener'))} already ${max === 1 ? 'follows' : 'follow'} ${stream}, the most it serves (callbacks keep the rest of the connections); ` +
          'close one (a dashboard tab, a wallet-sim tail) and try again, or start wallet-sim with a higher --max-listeners',
  },
  STORE_FAILED: {
    status: 503,
    message: (detail: string) => `${detail}; balances held in memory may not be durable, so none are shown until a restart`,
  },
  // (lost state does not come back: its reason names POST /admin/reset, and nothing else mends it)
  STORE_UNREACHABLE: {
    status: 503,
    message: (detail: string) => (/POST \/admin\/reset starts afresh/.test(detail) ? detail : `${detail}; ask again once it is back`),
  },
  PROBE_TARGET_REFUSED: {
    status: 400,
    message: (detail: string) =>
      `probe target refused: ${detail}; this host probes public addresses only (it was not started with --allow-private-targets)`,
  },
  PROBE_RUNNING: {
    status: 409,
    message: (run: string, tenant = '<id>') =>
      `probe run ${run} is still going (one run at a time per tenant): follow it at GET /t/${tenant}/probe/${run}/events`,
  },
  PROBE_RUN_UNKNOWN: {
    status: 404,
    message: (run: string, tenant = '<id>') => `no probe run ${run} (the last 20 runs are kept): GET /t/${tenant}/probe lists them`,
  },
  PROBE_NOT_FINISHED: {
    status: 409,
    message: (run: string, tenant = '<id>') =>
      `probe run ${run} has no report yet: it is still going (GET /t/${tenant}/probe/${run}/events follows it)`,
  },
  INTERNAL: { status: 500, message: (detail: string) => `unexpected error (${detail}); the log has the stack` },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;
export type ApiErrorArgs<C extends ApiErrorCode> = Parameters<(typeof API_ERRORS)[C]['message']>;

/** The status and body of one error of the table. */
export function apiError<C extends ApiErrorCode>(code: C, ...args: ApiErrorArgs<C>): { status: number; body: ApiErrorBody } {
  const entry = API_ERRORS[code];
  return { status: entry.status, body: { error: code, message: (entry.message as (...a: ApiErrorArgs<C>) => string)(...args) } };
}

/** Replies with one error of the table (details: the fields at fault, by JSON pointer). */
export function sendApiError(reply: FastifyReply, error: ApiErrorReply, details?: ApiErrorBody['details']): FastifyReply {
  return reply.code(error.status).send(details ? { ...error.body, details } : error.body);
}

/**
 * Replies with one error of the table, serialized here: a refusal from a hook must not be reshaped
 * by the route's response schema.
 */
export function sendApiErrorText(reply: FastifyReply, error: ApiErrorReply): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.status).type('application/json; charset=utf-8').send(JSON.stringify(error.body));
}

/** The answer to a request no route takes: what was asked, and where the routes are listed (app.setNotFoundHandler). */
export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendApiError(reply, apiError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`));
}

/** Generic codes by status, for a Fastify error the table has no specific entry for. */
const BY_STATUS: Record<number, ApiErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'BODY_TOO_LARGE',
  415: 'MEDIA_TYPE_UNSUPPORTED',
  503: 'SHUTTING_DOWN',
};

/**
 * A Fastify error (body parsing, limits, routing) as our code and a message that says what to do;
 * undefined when the error is not Fastify's (our own codes pass through unchanged).
 */
export function fromFastify(error: FastifyError, request: FastifyRequest): { status: number; body: ApiErrorBody } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return apiError('MEDIA_TYPE_UNSUPPORTED', request.headers['content-type'] ?? '(none)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return apiError('BODY_EMPTY');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return apiError('BODY_NOT_JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return apiError('CONTENT_LENGTH_WRONG');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return apiError('BODY_TOO_LARGE', request.routeOptions.bodyLimit ?? 0);
  }
  if (!error.code?.startsWith('FST_') && !(error instanceof SyntaxError)) return undefined;
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
  const code = BY_STATUS[status];
  if (code === 'BODY_TOO_LARGE') return apiError(code, request.routeOptions.bodyLimit ?? 0);
  if (code === 'MEDIA_TYPE_UNSUPPORTED') return apiError(code, request.headers['content-type'] ?? '(none)');
  if (code === 'UNAUTHORIZED' || code === 'SHUTTING_DOWN') return apiError(code);
  if (code) return { status, body: { error: code, message: error.message } };
  return undefined;
}
