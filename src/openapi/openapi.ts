import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifyRequest, FastifySchema } from 'fastify';
import {
  addBodyExamples,
  addHeaderExamples,
  callbackHeaderParams,
  documentCallbackRequest,
  showOnlyCallerSchemas,
} from './openapi-document.js';
import { ROOT } from '../kernel/paths.js';
import { callbackDescription, credentialText } from '../routes/callback-docs.js';
import { EVENT, HEADER_NAME } from '../protocol/seed/wire.js';
import type { DocumentedSchema, NamedExamples } from '../routes/docs.js';

/*
 * The OpenAPI 3.1 document's frame and Swagger UI's options. Operations come from the routes'
 * own schemas (src/routes/*.ts), components from schemas/ (named by $id), examples from the
 * schemas' `examples` annotations.
 */

type Json = Record<string, unknown>;

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** `wallet-sim start`'s address with its default --host and --port. */
export const DEFAULT_SERVER = 'http://127.0.0.1:8080';

/** What the document needs to know of the app (AppOptions has these). */
export interface OpenapiOptions {
  /** The simulator whose credentials the docs show (none in hosted mode: each tenant has its own). */
  sim?: { credentials: { api_id: string; api_key: string } };
  /** Callback path (default /callback). */
  path?: string;
  /** With --admin-token the docs never show the active credentials. */
  adminToken?: string;
  /** Hosted mode: the document speaks of the host's and tenants' tokens and of each tenant's generated credentials. */
  hosted?: boolean;
}

const DESCRIPTION = [
  `A sandbox seamless wallet: the receiver of \`${EVENT.login}\`, \`${EVENT.bet}\` and \`${EVENT.betResult}\` callbacks, with an admin API to set balances, ` +
    'switch scenarios and read the journal.',
  '',
  "Try it out sends requests to this simulator. The callback's Api-Id and Api-Key examples are the active scenario's sandbox " +
    'credentials while the admin API is open (not with --admin-token), so Swagger UI and an imported Postman collection send what ' +
    'the simulator accepts; see docs/openapi.md.',
].join('\n');

const BEARER = 'Only when the simulator runs with --admin-token: the admin API wants that token.';

/** Hosted mode: a host of tenants, each with its own routes, token and generated credentials (docs/hosted.md). */
const HOSTED_DESCRIPTION = [
  `A hosted sandbox of seamless wallets, one tenant per integrator: each has its own callback URL (\`/t/{id}/callback\`, the ` +
    `receiver of \`${EVENT.login}\`, \`${EVENT.bet}\` and \`${EVENT.betResult}\` callbacks), generated Api-Id and Api-Key, ` +
    'scenario, players, journal and probe runs, with an admin API under `/t/{id}/admin`.',
  '',
  "Try it out sends requests to this host. The host's routes (`/tenants`, `/metrics`) want the host's token; a tenant's admin and " +
    "probe routes want the tenant's token (or the host's), given once when POST /tenants created the tenant. A tenant's callback " +
    "takes no token: its Api-Id and Api-Key are the tenant's generated credentials, answered by the same POST /tenants (a " +
    "scenario's own are ignored), and have no example here; see docs/hosted.md.",
].join('\n');

const HOSTED_BEARER =
  "Always: the host's token (start --host-token-file) for /tenants and /metrics; a tenant's token (POST /tenants answered " +
  "it, once) for its routes under /t/{id}/ (admin and probe; the host's token opens them too). A tenant's callback takes none.";

/** The OpenAPI 3.1 document's frame; the operations and components come from the routes and schemas/. */
export function openapiOptions(options: OpenapiOptions): FastifyDynamicSwaggerOptions {
  const bodyExamples = new Map<string, NamedExamples>();
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'wallet-sim',
        version: VERSION,
        description: options.hosted ? HOSTED_DESCRIPTION : DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative: the simulator that serves the document. `wallet-sim openapi --server` writes an absolute one.
      servers: [{ url: '/', description: options.hosted ? 'This host' : 'This simulator' }],
      tags: [
        { name: 'callback', description: 'The three callback events (the protocol under test)' },
        { name: 'admin', description: 'Players, scenario, journal' },
        { name: 'health', description: 'Liveness' },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: options.hosted ? HOSTED_BEARER : BEARER },
        },
      },
    },
    refResolver: {
      // Components keep the schemas' $id as their name instead of def-0, def-1, …
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    // A route's named body examples are kept aside here and put back by addBodyExamples.
    transform: ({ schema, url }) => {
      const { bodyExamples: examples, ...rest } = (schema ?? {}) as Partial<DocumentedSchema>;
      if (examples && rest.operationId) bodyExamples.set(rest.operationId, examples);
      withTenantId(rest, url);
      return { schema: (schema ? rest : schema) as FastifySchema, url };
    },
    transformObject: (documents) => {
      const doc = (documents as { openapiObject: Json }).openapiObject;
      const path = options.path ?? '/callback';
      documentCallbackRequest((doc.components as { schemas: Record<string, Json> }).schemas);
      showOnlyCallerSchemas(doc);
      addBodyExamples(doc, bodyExamples);
      addHeaderExamples(doc, path, `${DEFAULT_SERVER}${path}`, () => prefilledCredentials(options));
      if (options.hosted) withTenantWords(doc, path);
      return doc as ReturnType<NonNullable<FastifyDynamicSwaggerOptions['transformObject']>>;
    },
  };
}

/** Where Swagger UI's Try it out gets its pre-filled values: a loopback sandbox whose admin API is open. */
export function prefilledCredentials(options: OpenapiOptions): { api_id: string; api_key: string } | undefined {
  // With --admin-token the credentials are behind the token (GET /admin/scenario); the docs must not hand them out.
  return options.adminToken === undefined ? options.sim?.credentials : undefined;
}

/**
 * The document as Swagger UI gets it (/docs/json, /docs/yaml): the callback's header parameters
 * carry the active scenario's credentials as examples, which Swagger UI puts into Try it out.
 * Read per request, so PUT /admin/scenario shows at once.
 */
export function docsSpecification(spec: Json, request: FastifyRequest, options: OpenapiOptions): Json {
  withHeaderExamples(spec, request, options);
  // Swagger UI names a branch's type only once the branch is opened ("any" before); say "object" at once.
  const callbackRequest = (spec.components as { schemas?: Record<string, { oneOf?: Json[] }> } | undefined)?.schemas?.CallbackRequest;
  for (const branch of callbackRequest?.oneOf ?? []) branch.type = 'object';
  return spec;
}

/**
 * The callback's header examples as this request finds them (/docs/json and /openapi.json): the
 * active scenario's credentials (none behind --admin-token) and this simulator's Callback-URL.
 */
export function withHeaderExamples(spec: Json, request: FastifyRequest, options: OpenapiOptions): Json {
  const creds = prefilledCredentials(options);
  const path = options.path ?? '/callback';
  const values: Record<string, string | undefined> = {
    [HEADER_NAME.apiId]: creds?.api_id,
    [HEADER_NAME.apiKey]: creds?.api_key,
    [HEADER_NAME.callbackUrl]: `${request.protocol}://${request.host}${path}`,
  };
  for (const param of callbackHeaderParams(spec, path)) {
    const value = values[param.name as string];
    if (value === undefined) delete param.example;
    else param.example = value;
  }
  return spec;
}

/** The top bar's title, in place of Fastify's logo (an SVG image: the bar holds an image). */
const TITLE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="40" viewBox="0 0 300 40">' +
  '<text x="0" y="28" font-family="sans-serif" font-size="24" font-weight="700" fill="#ffffff">wallet-sim' +
  '<tspan font-weight="400" fill="#b8e986"> · API</tspan></text></svg>';

/** The top bar keeps the title only: the "Explore" box would load any other document into the page. */
const THEME_CSS = '.swagger-ui .topbar .download-url-wrapper { display: none; }\n';

/** Swagger UI at /docs: its assets come from @fastify/swagger-ui itself, nothing from the internet. */
export function swaggerUiOptions(options: OpenapiOptions): FastifySwaggerUiOptions {
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

/**
 * Hosted mode: a tenant's route whose own params schema names its other parameters (`:user_id`)
 * gets the tenant's `:id` beside them in the document (the route itself is matched by its URL).
 */
function withTenantId(schema: Partial<DocumentedSchema>, url: string): void {
  const params = schema.params as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  if (!params || !url.startsWith('/t/:id/') || params.properties?.id) return;
  schema.params = {
    ...params,
    properties: { id: { type: 'string', description: "The tenant's id (POST /tenants answered it)." }, ...params.properties },
    required: ['id', ...(params.required ?? [])],
  };
}

/**
 * Hosted mode: the callback route (documented once, for both modes) as a tenant's: the Api-Id and
 * Api-Key it must be sent are the tenant's generated pair, its journal the tenant's.
 */
function withTenantWords(doc: Json, path: string): void {
  const operation = (doc.paths as Record<string, Record<string, Json>> | undefined)?.[path]?.post;
  if (operation) operation.description = callbackDescription(true);
  for (const param of callbackHeaderParams(doc, path))
    if (param.name === HEADER_NAME.apiId || param.name === HEADER_NAME.apiKey) param.description = credentialText(param.name, true);
}
