import type { FastifyError, FastifyRequest } from 'fastify';

/*
 * Every error the HTTP API answers outside the callback protocol, in one table (Fastify core's
 * and Mockoon's precedent): code → HTTP status → a message that names the thing and the fix.
 * Replies are `{ error: <code>, message, details? }` (schemas/error.schema.json, `ApiError`).
 * Fastify's own codes (FST_ERR_…) never reach a caller: `fromFastify` translates them.
 */

export interface ApiErrorBody { error: string; message: string; details?: { pointer: string; message: string }[] }

export const API_ERRORS = {
  BAD_REQUEST: { status: 400, message: (detail: string) => detail },
  BODY_EMPTY: { status: 400, message: () => 'the body is empty but Content-Type says application/json: send a JSON document (e.g. {}), or no Content-Type when there is nothing to send' },
  BODY_NOT_JSON: { status: 400, message: () => "the body is not valid JSON (or has a __proto__ / constructor.prototype key): check the quoting, e.g. curl -d '{\"balance\": 100}'" },
  CONTENT_LENGTH_WRONG: { status: 400, message: () => 'Content-Length does not match the body that was sent: let your client compute it' },
  SCENARIO_INVALID: { status: 400, message: (detail: string) => detail },
  UNAUTHORIZED: { status: 401, message: () => 'the admin API wants Authorization: Bearer <--admin-token>' },
  FORBIDDEN: { status: 403, message: (detail: string) => detail },
  PLAYER_UNKNOWN: { status: 404, message: (userId: string) => `no player ${userId}: create it with PUT /admin/players/${userId}` },
  NOT_FOUND: { status: 404, message: (detail: string) => `${detail}: the routes are listed at /docs` },
  METHOD_NOT_ALLOWED: { status: 405, message: (detail: string) => detail },
  BODY_TOO_LARGE: { status: 413, message: (limit: number) => `the body is over the ${limit}-byte limit; send less or start with --body-limit` },
  MEDIA_TYPE_UNSUPPORTED: { status: 415, message: (type: string) => `Content-Type ${type} is not accepted here: send the body as application/json` },
  SHUTTING_DOWN: { status: 503, message: () => 'wallet-sim is shutting down and takes no new request: retry once it is started again' },
  INTERNAL: { status: 500, message: (detail: string) => `unexpected error (${detail}); the log has the stack` },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;
export type ApiErrorArgs<C extends ApiErrorCode> = Parameters<(typeof API_ERRORS)[C]['message']>;

/** The status and body of one error of the table. */
export function apiError<C extends ApiErrorCode>(code: C, ...args: ApiErrorArgs<C>): { status: number; body: ApiErrorBody } {
  const entry = API_ERRORS[code];
  return { status: entry.status, body: { error: code, message: (entry.message as (...a: ApiErrorArgs<C>) => string)(...args) } };
}

/** Generic codes by status, for a Fastify error the table has no specific entry for. */
const BY_STATUS: Record<number, ApiErrorCode> = { 400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED', 413: 'BODY_TOO_LARGE', 415: 'MEDIA_TYPE_UNSUPPORTED', 503: 'SHUTTING_DOWN' };

/**
 * A Fastify error (body parsing, limits, routing) as our code and a message that says what to do;
 * undefined when the error is not Fastify's (our own codes pass through unchanged).
 */
export function fromFastify(error: FastifyError, request: FastifyRequest): { status: number; body: ApiErrorBody } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return apiError('MEDIA_TYPE_UNSUPPORTED', request.headers['content-type'] ?? '(none)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return apiError('BODY_EMPTY');
    case 'FST_ERR_CTP_INVALID_JSON_BODY': return apiError('BODY_NOT_JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH': return apiError('CONTENT_LENGTH_WRONG');
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return apiError('BODY_TOO_LARGE', request.routeOptions.bodyLimit ?? 0);
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
