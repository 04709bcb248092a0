import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifyRequest, FastifySchema } from 'fastify';
import { type AppOptions, DEFAULT_BODY_LIMIT } from './app.js';
import { apiError, type ApiErrorArgs, type ApiErrorBody, type ApiErrorCode } from './errors.js';
import { CODES, type Code } from './protocol/codes.js';
import { ROOT } from './paths.js';
import { type JsonSchema, schemas } from './schemas.js';

/*
 * The OpenAPI 3.1 description. Operations come from the routes' schemas, components from
 * schemas/ (named by $id), examples from the schemas' `examples` annotations. What this file adds
 * is documentation only: it never changes what a route accepts or sends.
 */

type Json = Record<string, unknown>;

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SCHEMA_REF = '#/components/schemas/';

/** `wallet-sim start`'s address with its default --host and --port. */
export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

function schemaById(id: string): JsonSchema {
  const s = schemas.find((x) => x.$id === id);
  if (!s) throw new Error(`wallet-sim: no schema with $id ${id} in schemas/`);
  return s;
}

const examplesOf = (id: string): Json[] => (schemaById(id).examples as Json[] | undefined) ?? [];
const refId = (ref: string) => ref.replace(/#.*$/, '');

/** event_type → the $id of its request schema, read from CallbackRequest's oneOf (not written twice). */
export const EVENT_SCHEMAS: ReadonlyArray<{ event: string; id: string }> = (schemaById('CallbackRequest').oneOf as { $ref: string }[]).map(({ $ref }) => {
  const id = refId($ref);
  const event = ((schemaById(id).properties as Json).event_type as { const: string }).const;
  return { event, id };
});

/** One named example per event, from the request schemas' `examples` (the worked round of shared/examples). */
function requestExamples(): Record<string, { summary: string; value: Json }> {
  return Object.fromEntries(EVENT_SCHEMAS.map(({ event, id }) => {
    const value = examplesOf(id)[0];
    if (!value) throw new Error(`wallet-sim: schemas/${id} has no example`);
    return [event, { summary: `${event}: ${schemaById(id).description as string}`, value }];
  }));
}

/** One named example per reply code R0–R4, from CallbackReply's `examples`. */
function replyExamples(): Record<string, { summary: string; value: Json }> {
  return Object.fromEntries(examplesOf('CallbackReply').map((value) => {
    const code = value.code as Code;
    return [code, { summary: `${code} ${CODES[code]} (a ${String(value.event_type)} reply)`, value }];
  }));
}

const CALLBACK_DESCRIPTION = `The receiver end of the three callbacks (spec sections 4, 6, 7). The body is told apart by
\`event_type\`: \`login\` (envelope only), \`bet\` (debits; data from 2.2) and \`bet_result\`
(settles the round: credits total_bet_amount + total_winloss; data from 2.3).

Every reply is **HTTP 200** with a result code in the body, also for a malformed body (R3), unless a
scenario rule forces another status, a raw body, a delay or a dropped connection.

| code | meaning | when wallet-sim sends it |
|---|---|---|
| R0 | ${CODES.R0} | applied, or an identical retry of an applied transaction_id (replay, nothing changes) |
| R1 | ${CODES.R1} | the store failed, or forced by a rule |
| R2 | ${CODES.R2} | Api-Id / Api-Key missing or not the scenario's |
| R3 | ${CODES.R3} | schema, totals, currency, unknown round, settled round, reused transaction_id with another body |
| R4 | ${CODES.R4} | a bet larger than the balance (carries latest_balance, nothing debited) |

The examples are one baccarat round of player-1 (KRW, 1,000,000): login, a bet of 15,000, its
bet_result (+5,000). Their transaction_ids are fixed, so executing one twice shows the idempotent
replay. Why a reply was not R0 is in the \`X-Wallet-Sim-Reason\` header and in \`GET /admin/journal\`.`;

const credentialHeader = (name: string) => ({
  type: 'string',
  description: `Must equal the active scenario's credentials.${name === 'Api-Key' ? 'api_key' : 'api_id'} (or --${name.toLowerCase()}); missing or different: R2.`,
});

/** Reply headers of the callback (spec 4, plus wallet-sim's reason header). */
const replyHeaders = {
  'Api-Id': { type: 'string', description: "On every reply: the caller's Api-Id echoed (empty when absent), or the scenario's reply_credentials.api_id." },
  'Api-Key': { type: 'string', description: "On every reply: the caller's Api-Key echoed (empty when absent), or the scenario's reply_credentials.api_key. The configured key is never sent to a caller that did not know it." },
  'Callback-URL': { type: 'string', description: "On login and bet_result replies only: the request's Callback-URL echoed." },
  'X-Wallet-Sim-Reason': { type: 'string', description: 'On every non-R0 reply (and a 413): why, in one line. Not part of the protocol; the journal has the same text.' },
};

/** The callback route's schema: documentation only (the pipeline validates, see routes/callback.ts). */
export const callbackRouteSchema: FastifySchema = {
  operationId: 'callback',
  tags: ['callback'],
  summary: 'Receive a login, bet or bet_result callback',
  description: CALLBACK_DESCRIPTION,
  headers: {
    type: 'object',
    properties: {
      'Api-Id': credentialHeader('Api-Id'),
      'Api-Key': credentialHeader('Api-Key'),
      'Callback-URL': {
        type: 'string',
        description: "Optional. The receiver's callback address (spec 4 says every request carries it). Missing: the callback is processed as usual (R0 when all else is right), the journal records a warning finding CALLBACK_URL_MISSING, and login / bet_result replies echo an empty Callback-URL.",
      },
    },
    required: ['Api-Id', 'Api-Key'],
  },
  body: { $ref: 'CallbackRequest#' }, // its named examples are added by addBodyExamples

  response: {
    200: {
      description: 'The reply (spec 2.4): HTTP 200 whatever the code. latest_balance is required with R0, optional otherwise.',
      headers: replyHeaders,
      content: {
        'application/json': { schema: { $ref: 'CallbackReply#' }, examples: replyExamples() },
      },
    },
    413: {
      description: 'The body is over the size limit (default 1 MiB, `start --body-limit`): no callback is processed, the journal records the refusal. Like every callback reply it carries Api-Id and Api-Key.',
      headers: { 'Api-Id': replyHeaders['Api-Id'], 'Api-Key': replyHeaders['Api-Key'], 'X-Wallet-Sim-Reason': replyHeaders['X-Wallet-Sim-Reason'] },
      content: { 'application/json': { schema: { $ref: 'ApiError#' } } }, // its example names the actual limit: see addLimitExamples
    },
    503: {
      description: 'wallet-sim is shutting down (SIGINT/SIGTERM): callbacks in flight are answered, a new one is not taken.',
      content: { 'application/json': { schema: { $ref: 'ApiError#' } } },
    },
    default: {
      description: 'Only when a scenario rule says so: its http_status, its raw body, or no reply at all (drop_connection).',
      type: 'null', // no content is promised
    },
  },
};

/* Documentation of the admin and health routes, merged in by `transform` (doc-only: a response
 * schema on the route itself would also filter what the route sends). */

/** A documented response: a body schema, or (errors) an ApiError body with these examples. */
interface ResponseDoc { description: string; schema?: Json; errors?: ApiErrorBody[] }
interface RouteDoc { operationId: string; description?: string; responses: Record<string, string | ResponseDoc>; bodyExamples?: Record<string, { summary: string; value: unknown }> }

/** An error body of the table (src/errors.ts), with details like the error handler adds them. */
const errorBody = <C extends ApiErrorCode>(code: C, ...args: ApiErrorArgs<C>): ApiErrorBody => apiError(code, ...args).body;
const invalid = (pointer: string, message: string, code: 'BAD_REQUEST' | 'SCENARIO_INVALID' = 'BAD_REQUEST'): ApiErrorBody =>
  ({ ...errorBody(code, code === 'SCENARIO_INVALID' ? `scenario: ${pointer} ${message}` : `${pointer} ${message}`), details: [{ pointer, message }] });
const UNREADABLE = [errorBody('BODY_EMPTY'), errorBody('BODY_NOT_JSON')];

/** Statuses every admin route, or every admin write, can answer besides its own (see documentRoute). */
const ADMIN_403 = "The admin API refused the request: its Host is not the listening address or a name in --allowed-hosts, or it comes from another site (Origin, Sec-Fetch-Site). Call it from curl, a script or /docs on this host.";
const ADMIN_WRITE_400 = 'The body cannot be read: Content-Type says application/json but the body is empty (BODY_EMPTY) or not JSON (BODY_NOT_JSON).';
const ADMIN_WRITE_413 = 'The body is over the size limit (BODY_TOO_LARGE; default 1 MiB, `start --body-limit`). Nothing changed.';
const ADMIN_WRITE_415 = 'The body is not application/json (MEDIA_TYPE_UNSUPPORTED). Nothing changed.';
const SHUTDOWN_503 = 'wallet-sim is shutting down (SIGINT/SIGTERM) and takes no new request.';

const named = (id: string, summary: (v: Json, i: number) => string) =>
  Object.fromEntries(examplesOf(id).map((value, i) => [`example${i + 1}`, { summary: summary(value, i), value }]));

const ok = (extra: Json = {}) => ({ type: 'object', required: ['ok'], properties: { ok: { type: 'boolean', const: true }, ...extra } });
const journalEntry = {
  type: 'object',
  description: 'One serve event: the request as received (Api-Key masked), the reply as sent, the code, the reason, the scenario rule that fired, the balance before and after, and the findings (what the caller did wrong).',
  required: ['id', 'received_at', 'duration_ms', 'request', 'reply', 'replayed', 'findings'],
  properties: {
    id: { type: 'integer' },
    received_at: { type: 'string', format: 'date-time' },
    duration_ms: { type: 'integer' },
    transaction_id: { type: 'string' },
    event_type: { type: 'string' },
    user_id: { type: 'string' },
    request: { type: 'object' },
    reply: { type: 'object' },
    code: { type: 'string' },
    reason: { type: 'string' },
    rule: { type: 'object', properties: { index: { type: 'integer' }, name: { type: 'string' } } },
    balance_before: { type: 'number' },
    balance_after: { type: 'number' },
    replayed: { type: 'boolean', description: 'An identical retry of an applied transaction: answered, nothing changed.' },
    findings: {
      type: 'array',
      items: { type: 'object', required: ['code', 'severity', 'message'], properties: { code: { type: 'string' }, severity: { type: 'string', enum: ['error', 'warning', 'info'] }, message: { type: 'string' }, pointer: { type: 'string' } } },
    },
  },
};

const ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /health': {
    operationId: 'health',
    responses: {
      200: 'The simulator answers: the active scenario, the store kind and the number of players.',
      503: `A store write failed (status store_failed, with the error): callbacks get R1 until a restart. Or: ${SHUTDOWN_503}`,
    },
  },
  'GET /admin/players': { operationId: 'listPlayers', responses: { 200: 'Every player with its balance and currency.' } },
  'GET /admin/players/:user_id': { operationId: 'getPlayer', responses: { 200: 'The player.', 404: { description: 'No player with that user_id (PLAYER_UNKNOWN).', errors: [{ error: 'PLAYER_UNKNOWN', message: 'no player nobody' }] } } },
  'PUT /admin/players/:user_id': {
    operationId: 'setPlayer',
    description: "Sets the balance (and optionally the currency) of a player, creating it when unknown. The balance must fit the currency's scale.",
    responses: {
      200: 'The player after the change.',
      400: { description: `The body is invalid (BAD_REQUEST: details name each field by JSON pointer), or the balance has more fraction digits than the currency's scale. ${ADMIN_WRITE_400} Nothing changed.`, errors: [invalid('/balance', 'must be >= 0'), invalid('/balance', '10.5 has 1 fraction digits; KRW allows 0'), ...UNREADABLE] },
    },
    bodyExamples: named('PlayerUpdate', (v) => (v.currency ? `balance ${String(v.balance)} ${String(v.currency)}` : `balance ${String(v.balance)}, currency unchanged`)),
  },
  'POST /admin/reset': { operationId: 'reset', responses: { 200: { description: 'Players back to the scenario, rounds, transactions, rule counters and journal cleared.', schema: ok() } } },
  'GET /admin/journal': {
    operationId: 'journal',
    description: 'The callbacks received, oldest first (a bounded ring: the oldest drop out first). Filters combine; limit keeps the newest n.',
    responses: {
      200: { description: 'The matching entries.', schema: { type: 'object', required: ['count', 'entries'], properties: { count: { type: 'integer' }, entries: { type: 'array', items: journalEntry } } } },
      400: { description: 'A query parameter is invalid (BAD_REQUEST), e.g. limit is not a whole number.', errors: [invalid('querystring:/limit', 'must match pattern "^[0-9]+$"')] },
    },
  },
  'DELETE /admin/journal': { operationId: 'clearJournal', responses: { 204: 'The journal is empty.' } },
  'GET /admin/scenario': { operationId: 'getScenario', responses: { 200: { description: 'The active scenario document, as loaded.', schema: { $ref: 'Scenario#' } } } },
  'GET /admin/scenario/rules': {
    operationId: 'ruleHits',
    responses: {
      200: {
        description: 'For each rule of the active scenario: how often it matched and fired, and whether `times` is used up.',
        schema: { type: 'array', items: { type: 'object', required: ['index', 'name', 'matched', 'fired', 'exhausted'], properties: { index: { type: 'integer' }, name: { type: 'string' }, matched: { type: 'integer' }, fired: { type: 'integer' }, exhausted: { type: 'boolean' } } } },
      },
    },
  },
  'PUT /admin/scenario': {
    operationId: 'setScenario',
    description: 'Replaces rules, credentials, currencies and defaults, resets the rule counters and sets the listed players to their balances; other players and history stay. `?reset=true` starts over from the new scenario. An invalid scenario is refused with 400 naming each bad field by JSON pointer, and the old one stays active.',
    responses: {
      200: { description: 'The scenario is active.', schema: ok({ name: { type: 'string' }, reset: { type: 'boolean' } }) },
      400: {
        description: `The scenario is invalid: SCENARIO_INVALID or BAD_REQUEST, details name each field by JSON pointer. ${ADMIN_WRITE_400} Nothing changed, the old scenario stays active.`,
        errors: [invalid('/players/0/balance', 'has 1 fraction digits; KRW allows 0', 'SCENARIO_INVALID'), invalid('/rules/0/then/delay_ms', 'must be >= 0'), ...UNREADABLE],
      },
    },
    bodyExamples: named('Scenario', (v) => `${String(v.name)}: ${String(v.description ?? '')}`),
  },
};

/** An ApiError response with named examples (one per error code shown). */
function errorResponse(description: string, errors: ApiErrorBody[] = []): Json {
  const media: Json = { schema: { $ref: 'ApiError#' } };
  if (errors.length) media.examples = Object.fromEntries(errors.map((e, i) => [errors.findIndex((x) => x.error === e.error) === i ? e.error : `${e.error}_${i}`, { summary: e.error, value: e }]));
  return { description, content: { 'application/json': media } };
}

/**
 * Merges ROUTE_DOCS into a route's schema for the document, and every status the route can answer:
 * 401 (with --admin-token), 403 (the admin guard) and 503 (shutting down) on every admin route, 400,
 * 413 and 415 on admin writes. The route itself is untouched.
 */
function documentRoute(schema: FastifySchema | undefined, method: string, url: string, o: { adminLocked: boolean; bodyLimit: number }): FastifySchema | undefined {
  const doc = ROUTE_DOCS[`${method} ${url}`];
  if (!schema || !doc) return schema;
  const given = (schema.response ?? {}) as Record<string, Json>;
  const response: Record<string, Json> = {};
  for (const [status, entry] of Object.entries(doc.responses)) {
    const d: ResponseDoc = typeof entry === 'string' ? { description: entry } : entry;
    if (d.errors) { response[status] = errorResponse(d.description, d.errors); continue; }
    const body = given[status] ?? d.schema;
    response[status] = body ? { ...body, description: d.description } : { description: d.description, type: 'null' };
  }
  for (const [status, body] of Object.entries(given)) response[status] ??= body;
  if (url.startsWith('/admin')) {
    if (o.adminLocked) response[401] = errorResponse('Authorization: Bearer <--admin-token> missing or wrong (UNAUTHORIZED).', [errorBody('UNAUTHORIZED')]);
    response[403] ??= errorResponse(ADMIN_403);
    if (method !== 'GET') {
      response[400] ??= errorResponse(`${ADMIN_WRITE_400} Nothing changed.`, UNREADABLE);
      response[413] ??= errorResponse(ADMIN_WRITE_413, [errorBody('BODY_TOO_LARGE', o.bodyLimit)]);
      response[415] ??= errorResponse(ADMIN_WRITE_415, [errorBody('MEDIA_TYPE_UNSUPPORTED', 'text/plain')]);
    }
  }
  response[503] ??= errorResponse(SHUTDOWN_503);
  const out: FastifySchema = { ...schema, operationId: doc.operationId, response };
  if (doc.description) out.description = doc.description;
  return out;
}

/** Named request body examples by operationId (@fastify/swagger drops examples beside a body $ref). */
function addBodyExamples(doc: Json): void {
  const byOperation: Record<string, Record<string, { summary: string; value: unknown }> | undefined> = {
    callback: requestExamples(),
    ...Object.fromEntries(Object.values(ROUTE_DOCS).map((d) => [d.operationId, d.bodyExamples])),
  };
  for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      const examples = byOperation[operation.operationId as string];
      const media = (operation.requestBody as { content?: Record<string, Json> } | undefined)?.content?.['application/json'];
      if (examples && media) media.examples = examples;
    }
  }
}

/**
 * CallbackRequest as a pure oneOf with a discriminator and its mapping (in the document only: ajv
 * refuses `mapping`). The top-level `type` and `required` of schemas/ say what every branch says
 * again; without them Swagger UI shows the oneOf instead of "object | (…)".
 */
function documentCallbackRequest(components: Record<string, Json>): void {
  const callbackRequest = components.CallbackRequest as { discriminator: { propertyName: string; mapping?: Record<string, string> }; type?: unknown; required?: unknown } | undefined;
  if (!callbackRequest) return;
  delete callbackRequest.type;
  delete callbackRequest.required;
  callbackRequest.discriminator.mapping = Object.fromEntries(EVENT_SCHEMAS.map(({ event, id }) => [event, `${SCHEMA_REF}${id}`]));
  // result_detail is a string holding a JSON document: say which (JSON Schema's content keywords).
  const data = (components.BetResultRequest?.properties as Json | undefined)?.data as { properties?: Record<string, Json> } | undefined;
  const detail = data?.properties?.result_detail;
  if (detail) Object.assign(detail, { contentMediaType: 'application/json', contentSchema: { $ref: `${SCHEMA_REF}ResultDetail` } });
}

/**
 * The components a caller sees: the schemas it sends or gets, by name. Schemas no operation uses
 * (Expectations: a file of `wallet-sim verify`, not an HTTP body) are left out, and building blocks
 * (Envelope, a schema's definitions such as Scenario's rule) are written in place where they are used.
 */
function showOnlyCallerSchemas(doc: Json): void {
  const components = doc.components as { schemas: Record<string, Json> };
  const all = components.schemas;
  const kept = new Map<string, Json>();
  const unescape = (p: string) => p.replace(/~1/g, '/').replace(/~0/g, '~');
  const visit = (node: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('wallet-sim: a recursive schema cannot be written in place');
    if (Array.isArray(node)) return node.map((n) => visit(n, depth + 1));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Json;
    if (typeof $ref === 'string' && $ref.startsWith(SCHEMA_REF)) {
      const [name, ...path] = $ref.slice(SCHEMA_REF.length).split('/').map(unescape);
      if (path.length === 0 && !name!.includes('-')) {
        keep(name!);
        return node;
      }
      const target = path.reduce<unknown>((n, key) => (n as Json | undefined)?.[key], all[name!]);
      if (target === undefined) throw new Error(`wallet-sim: ${$ref} does not resolve`);
      return visit({ ...structuredClone(target as Json), ...rest }, depth + 1);
    }
    // Example data is not schema: copied as is.
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'example' || k === 'examples' ? v : visit(v, depth + 1)]));
  };
  const keep = (name: string) => {
    if (kept.has(name) || !all[name]) return;
    kept.set(name, {});
    kept.set(name, visit(all[name], 0) as Json);
  };
  doc.paths = visit(doc.paths, 0);
  components.schemas = Object.fromEntries(Object.keys(all).filter((k) => kept.has(k)).map((k) => [k, kept.get(k)!]));
}

const CALLBACK_HEADERS = ['Api-Id', 'Api-Key', 'Callback-URL'] as const;

/** The callback's header parameters, in a document. */
function callbackHeaderParams(doc: Json, path: string): Json[] {
  const operation = (doc.paths as Record<string, Record<string, Json>> | undefined)?.[path]?.post as { parameters?: Json[] } | undefined;
  return (operation?.parameters ?? []).filter((p) => p.in === 'header' && CALLBACK_HEADERS.includes(p.name as never));
}

/**
 * The callback's header examples in the published document, so an imported Postman collection
 * sends what the simulator accepts: the active scenario's credentials, read when the document is
 * written out (the document is built once, the scenario may change), never with --admin-token.
 */
function addHeaderExamples(doc: Json, options: AppOptions, path: string): void {
  for (const param of callbackHeaderParams(doc, path)) {
    const name = param.name as (typeof CALLBACK_HEADERS)[number];
    if (name === 'Callback-URL') {
      param.example = `${DEFAULT_SERVER}${path}`; // the request's own address replaces it in /docs/json
      continue;
    }
    Object.defineProperty(param, 'example', {
      enumerable: true,
      configurable: true,
      get: () => { const creds = prefilledCredentials(options); return name === 'Api-Id' ? creds?.api_id : creds?.api_key; },
    });
  }
}

/** Every example of the callback's 413 names the limit this simulator runs with. */
function addLimitExample(doc: Json, path: string, bodyLimit: number): void {
  const post = (doc.paths as Record<string, Record<string, Json>>)[path]?.post as { responses?: Record<string, { content?: Record<string, Json> }> } | undefined;
  const media = post?.responses?.['413']?.content?.['application/json'];
  if (media) media.examples = { BODY_TOO_LARGE: { summary: 'BODY_TOO_LARGE', value: errorBody('BODY_TOO_LARGE', bodyLimit) } };
}

/** The OpenAPI 3.1 document's frame; the operations and components come from the routes and schemas/. */
export function openapiOptions(options: AppOptions): FastifyDynamicSwaggerOptions {
  const adminLocked = options.adminToken !== undefined;
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'wallet-sim',
        version: VERSION,
        description: [
          'A sandbox seamless wallet: the receiver of `login`, `bet` and `bet_result` callbacks, with an admin API to set balances, switch scenarios and read the journal.',
          '',
          "Try it out sends requests to this simulator. The callback's Api-Id and Api-Key examples are the active scenario's sandbox credentials while the admin API is open (not with --admin-token), so Swagger UI and an imported Postman collection send what the simulator accepts; see docs/openapi.md.",
        ].join('\n'),
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative: the simulator that serves the document. `wallet-sim openapi --server` writes an absolute one.
      servers: [{ url: '/', description: 'This simulator' }],
      tags: [
        { name: 'callback', description: 'The three callback events (the protocol under test)' },
        { name: 'admin', description: 'Players, scenario, journal' },
        { name: 'health', description: 'Liveness' },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Only when the simulator runs with --admin-token: the admin API wants that token.' },
        },
      },
    },
    refResolver: {
      // Components keep the schemas' $id as their name instead of def-0, def-1, …
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => ({
      schema: documentRoute(schema, typeof route.method === 'string' ? route.method : String(route.method[0]), url, { adminLocked, bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT }) as FastifySchema,
      url,
    }),
    transformObject: (documents) => {
      const doc = (documents as { openapiObject: Json }).openapiObject;
      const path = options.path ?? '/callback';
      documentCallbackRequest((doc.components as { schemas: Record<string, Json> }).schemas);
      showOnlyCallerSchemas(doc);
      addBodyExamples(doc);
      addLimitExample(doc, path, options.bodyLimit ?? DEFAULT_BODY_LIMIT);
      addHeaderExamples(doc, options, path);
      return doc as ReturnType<NonNullable<FastifyDynamicSwaggerOptions['transformObject']>>;
    },
  };
}

/** Where Swagger UI's Try it out gets its pre-filled values: a loopback sandbox whose admin API is open. */
export function prefilledCredentials(options: AppOptions): { api_id: string; api_key: string } | undefined {
  // With --admin-token the credentials are behind the token (GET /admin/scenario); the docs must not hand them out.
  return options.adminToken === undefined ? options.sim.credentials : undefined;
}

/**
 * The document as Swagger UI gets it (/docs/json, /docs/yaml): the callback's header parameters
 * carry the active scenario's credentials as examples, which Swagger UI puts into Try it out.
 * Read per request, so PUT /admin/scenario shows at once.
 */
export function docsSpecification(spec: Json, request: FastifyRequest, options: AppOptions): Json {
  const creds = prefilledCredentials(options);
  const path = options.path ?? '/callback';
  const values: Record<string, string | undefined> = {
    'Api-Id': creds?.api_id,
    'Api-Key': creds?.api_key,
    'Callback-URL': `${request.protocol}://${request.host}${path}`,
  };
  for (const param of callbackHeaderParams(spec, path)) {
    const value = values[param.name as string];
    if (value === undefined) delete param.example;
    else param.example = value;
  }
  // Swagger UI names a branch's type only once the branch is opened ("any" before); say "object" at once.
  const callbackRequest = (spec.components as { schemas?: Record<string, { oneOf?: Json[] }> } | undefined)?.schemas?.CallbackRequest;
  for (const branch of callbackRequest?.oneOf ?? []) branch.type = 'object';
  return spec;
}

/** The top bar's title, in place of Fastify's logo (an SVG image: the bar holds an image). */
const TITLE_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="40" viewBox="0 0 300 40"><text x="0" y="28" font-family="sans-serif" font-size="24" font-weight="700" fill="#ffffff">wallet-sim<tspan font-weight="400" fill="#b8e986"> · API</tspan></text></svg>`;

/** The top bar keeps the title only: the "Explore" box would load any other document into the page. */
const THEME_CSS = '.swagger-ui .topbar .download-url-wrapper { display: none; }\n';

/** Swagger UI at /docs: its assets come from @fastify/swagger-ui itself, nothing from the internet. */
export function swaggerUiOptions(options: AppOptions): FastifySwaggerUiOptions {
  return {
    routePrefix: '/docs',
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      displayRequestDuration: true,
      showExtensions: false,
      defaultModelsExpandDepth: 1,
    },
    theme: { title: 'wallet-sim · API', css: [{ filename: 'wallet-sim.css', content: THEME_CSS }] },
    logo: { type: 'image/svg+xml', content: Buffer.from(TITLE_SVG), href: '/docs', target: '_self' },
    // validatorUrl stays unset: @fastify/swagger-ui then passes null, so no badge calls validator.swagger.io.
    transformSpecification: (spec, request) => docsSpecification(spec as Json, request, options),
  };
}
