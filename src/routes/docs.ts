import type { FastifySchema } from 'fastify';
import { apiError, type ApiErrorArgs, type ApiErrorBody, type ApiErrorCode } from '../http/errors.js';
import { type JsonSchema, schemas } from '../protocol/schemas.js';

/*
 * Building blocks of the routes' OpenAPI documentation. Each route documents itself in its own
 * schema (summary, params, every status it can answer, examples); these are the parts they share.
 */

export type Json = Record<string, unknown>;
export type NamedExamples = Record<string, { summary: string; value: unknown }>;

/**
 * A route's schema as the document wants it. `bodyExamples` are named request body examples:
 * @fastify/swagger drops examples beside a body `$ref`, so src/openapi/openapi.ts puts them in.
 */
export type DocumentedSchema = FastifySchema & { operationId: string; summary: string; bodyExamples?: NamedExamples };

export function schemaById(id: string): JsonSchema {
  const s = schemas.find((x) => x.$id === id);
  if (!s) throw new Error(`wallet-sim: no schema with $id ${id} in schemas/`);
  return s;
}

export const examplesOf = (id: string): Json[] => (schemaById(id).examples as Json[] | undefined) ?? [];

/** A schema's `examples`, named example1, example2, … */
export const namedExamples = (id: string, summary: (v: Json, i: number) => string): NamedExamples =>
  Object.fromEntries(examplesOf(id).map((value, i) => [`example${i + 1}`, { summary: summary(value, i), value }]));

/** An error body of the table (src/http/errors.ts). */
export const errorBody = <C extends ApiErrorCode>(code: C, ...args: ApiErrorArgs<C>): ApiErrorBody => apiError(code, ...args).body;

/** A BAD_REQUEST (or SCENARIO_INVALID) body naming one field, as the error handler writes it. */
export function invalid(pointer: string, message: string, code: 'BAD_REQUEST' | 'SCENARIO_INVALID' = 'BAD_REQUEST'): ApiErrorBody {
  const text = code === 'SCENARIO_INVALID' ? `scenario: ${pointer} ${message}` : `${pointer} ${message}`;
  return { ...errorBody(code, text), details: [{ pointer, message }] };
}

/** The two bodies of a request whose JSON cannot be read. */
export const UNREADABLE = [errorBody('BODY_EMPTY'), errorBody('BODY_NOT_JSON')];

export const SHUTDOWN_503 = 'wallet-sim is shutting down (SIGINT/SIGTERM) and takes no new request.';

/** An ApiError response with named examples (one per error code shown). */
export function errorResponse(description: string, errors: ApiErrorBody[] = []): Json {
  const media: Json = { schema: { $ref: 'ApiError#' } };
  if (errors.length) {
    const name = (e: ApiErrorBody, i: number) => (errors.findIndex((x) => x.error === e.error) === i ? e.error : `${e.error}_${i}`);
    media.examples = Object.fromEntries(errors.map((e, i) => [name(e, i), { summary: e.error, value: e }]));
  }
  return { description, content: { 'application/json': media } };
}

/**
 * For a route whose response schemas are documentation only: the reply is what the handler
 * returns, written by JSON.stringify (key order and all), never reshaped by a response schema.
 */
export const sentAsReturned = { serializerCompiler: () => (data: unknown) => JSON.stringify(data) };
