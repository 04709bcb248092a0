import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifyRequest, FastifySchema } from 'fastify';
import type { AppOptions } from './app.js';
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
      'Callback-URL': { type: 'string', description: "The receiver's callback address. Echoed on login and bet_result replies; missing is a finding in the journal, not an error." },
    },
    required: ['Api-Id', 'Api-Key', 'Callback-URL'],
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
      description: 'The body is larger than the limit (default 1 MiB, --body-limit): no callback is processed.',
      headers: { 'X-Wallet-Sim-Reason': replyHeaders['X-Wallet-Sim-Reason'] },
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

interface ResponseDoc { description: string; schema?: Json }
interface RouteDoc { operationId: string; description?: string; responses: Record<string, string | ResponseDoc>; bodyExamples?: Record<string, { summary: string; value: unknown }> }

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
    responses: { 200: 'The simulator answers: the active scenario, the store kind and the number of players.' },
  },
  'GET /admin/players': { operationId: 'listPlayers', responses: { 200: 'Every player with its balance and currency.' } },
  'GET /admin/players/:user_id': { operationId: 'getPlayer', responses: { 200: 'The player.', 404: 'No player with that user_id.' } },
  'PUT /admin/players/:user_id': {
    operationId: 'setPlayer',
    description: "Sets the balance (and optionally the currency) of a player, creating it when unknown. The balance must fit the currency's scale.",
    responses: { 200: 'The player after the change.', 400: "The body is invalid, or the balance has more fraction digits than the currency's scale." },
    bodyExamples: named('PlayerUpdate', (v) => (v.currency ? `balance ${String(v.balance)} ${String(v.currency)}` : `balance ${String(v.balance)}, currency unchanged`)),
  },
  'POST /admin/reset': { operationId: 'reset', responses: { 200: { description: 'Players back to the scenario, rounds, transactions, rule counters and journal cleared.', schema: ok() } } },
  'GET /admin/journal': {
    operationId: 'journal',
    description: 'The callbacks received, oldest first (a bounded ring: the oldest drop out first). Filters combine; limit keeps the newest n.',
    responses: { 200: { description: 'The matching entries.', schema: { type: 'object', required: ['count', 'entries'], properties: { count: { type: 'integer' }, entries: { type: 'array', items: journalEntry } } } } },
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
      400: 'The scenario is invalid: details name each field by JSON pointer. Nothing changed.',
    },
    bodyExamples: named('Scenario', (v) => `${String(v.name)}: ${String(v.description ?? '')}`),
  },
};

/** Merges ROUTE_DOCS into a route's schema for the document; the route itself is untouched. */
function documentRoute(schema: FastifySchema | undefined, method: string, url: string, adminLocked: boolean): FastifySchema | undefined {
  const doc = ROUTE_DOCS[`${method} ${url}`];
  if (!schema || !doc) return schema;
  const given = (schema.response ?? {}) as Record<string, Json>;
  const response: Record<string, Json> = {};
  for (const [status, entry] of Object.entries(doc.responses)) {
    const d: ResponseDoc = typeof entry === 'string' ? { description: entry } : entry;
    const body = given[status] ?? d.schema;
    response[status] = body ? { ...body, description: d.description } : { description: d.description, type: 'null' };
  }
  for (const [status, body] of Object.entries(given)) response[status] ??= body;
  if (adminLocked && url.startsWith('/admin')) {
    response[401] = { $ref: 'ApiError#', description: 'Authorization: Bearer <--admin-token> missing or wrong.' };
  }
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

/** discriminator.mapping for CallbackRequest: in the document only, since ajv refuses `mapping`. */
function addDiscriminatorMapping(doc: Json): void {
  const components = (doc.components as { schemas: Record<string, Json> }).schemas;
  const callbackRequest = components.CallbackRequest as { discriminator: { propertyName: string; mapping?: Record<string, string> } } | undefined;
  if (!callbackRequest) return;
  callbackRequest.discriminator.mapping = Object.fromEntries(EVENT_SCHEMAS.map(({ event, id }) => [event, `${SCHEMA_REF}${id}`]));
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
          'Try it out sends requests to this simulator (server `/`). In Swagger UI (`/docs`) the callback headers are pre-filled with the active scenario\'s sandbox credentials while the admin API is open; see docs/openapi.md.',
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
      schema: documentRoute(schema, typeof route.method === 'string' ? route.method : String(route.method[0]), url, adminLocked) as FastifySchema,
      url,
    }),
    transformObject: (documents) => {
      const doc = (documents as { openapiObject: Json }).openapiObject;
      addDiscriminatorMapping(doc);
      addBodyExamples(doc);
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
  const operation = ((spec.paths as Record<string, Record<string, Json>> | undefined)?.[path]?.post ?? {}) as { parameters?: Json[] };
  const values: Record<string, string | undefined> = {
    'Api-Id': creds?.api_id,
    'Api-Key': creds?.api_key,
    'Callback-URL': `${request.protocol}://${request.host}${path}`,
  };
  for (const param of operation.parameters ?? []) {
    const value = param.in === 'header' ? values[param.name as string] : undefined;
    if (value !== undefined) param.example = value;
  }
  return spec;
}

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
    // validatorUrl stays unset: @fastify/swagger-ui then passes null, so no badge calls validator.swagger.io.
    transformSpecification: (spec, request) => docsSpecification(spec as Json, request, options),
  };
}
