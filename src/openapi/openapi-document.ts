import type { NamedExamples } from '../routes/docs.js';
import { EVENT_SCHEMAS } from '../routes/callback-docs.js';
import { HEADER_NAME } from '../protocol/seed/wire.js';

/*
 * Passes over the whole OpenAPI document, after @fastify/swagger has built it from the routes'
 * schemas: what no single route can say. Documentation only: nothing here changes what a route
 * accepts or sends.
 */

type Json = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

/** The credentials the document shows as the callback's header examples (undefined: none). */
export type Credentials = () => { api_id: string; api_key: string } | undefined;

/** Named request body examples by operationId (@fastify/swagger drops examples beside a body $ref). */
export function addBodyExamples(doc: Json, byOperation: ReadonlyMap<string, NamedExamples>): void {
  for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      const examples = byOperation.get(operation.operationId as string);
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
export function documentCallbackRequest(components: Record<string, Json>): void {
  type Discriminated = { discriminator: { propertyName: string; mapping?: Record<string, string> }; type?: unknown; required?: unknown };
  const callbackRequest = components.CallbackRequest as Discriminated | undefined;
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
export function showOnlyCallerSchemas(doc: Json): void {
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
  components.schemas = Object.fromEntries(
    Object.keys(all)
      .filter((k) => kept.has(k))
      .map((k) => [k, kept.get(k)!]),
  );
}

const CALLBACK_HEADERS = [HEADER_NAME.apiId, HEADER_NAME.apiKey, HEADER_NAME.callbackUrl] as const;

/** The callback's header parameters, in a document. */
export function callbackHeaderParams(doc: Json, path: string): Json[] {
  const operation = (doc.paths as Record<string, Record<string, Json>> | undefined)?.[path]?.post as { parameters?: Json[] } | undefined;
  return (operation?.parameters ?? []).filter((p) => p.in === 'header' && CALLBACK_HEADERS.includes(p.name as never));
}

/**
 * The callback's header examples in the published document, so an imported Postman collection
 * sends what the simulator accepts: the active scenario's credentials, read when the document is
 * written out (the document is built once, the scenario may change), never with --admin-token.
 */
export function addHeaderExamples(doc: Json, path: string, callbackUrl: string, credentials: Credentials): void {
  for (const param of callbackHeaderParams(doc, path)) {
    const name = param.name as (typeof CALLBACK_HEADERS)[number];
    if (name === HEADER_NAME.callbackUrl) {
      param.example = callbackUrl; // the request's own address replaces it in /docs/json
      continue;
    }
    Object.defineProperty(param, 'example', {
      enumerable: true,
      configurable: true,
      get: () => {
        const creds = credentials();
        return name === HEADER_NAME.apiId ? creds?.api_id : creds?.api_key;
      },
    });
  }
}
