import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
  type onRequestHookHandler,
} from 'fastify';
import { type CorsSetting, registerCors } from '../http/cors.js';
import { HEADER_NAME } from '../protocol/seed/wire.js';
import { unframed } from '../http/framing.js';
import { capConnections } from '../http/stalled.js';
import { DEFAULT_LIMITS, listenerCap, type ServerLimits, serverOptions } from '../http/limits.js';
import { apiError, fromFastify, notFoundHandler } from '../http/errors.js';
import { adminRoutes } from '../routes/admin.js';
import { hostGuard } from '../routes/admin-guard.js';
import { callbackRoutes } from '../routes/callback.js';
import { healthRoutes } from '../routes/health.js';
import { always } from '../routes/sim-of.js';
import { uiRoutes } from '../routes/ui.js';
import { type OpenapiOptions, openapiOptions, swaggerUiOptions, withHeaderExamples } from '../openapi/openapi.js';
import { ScenarioError } from '../core/scenario/scenario.js';
import { StoreUnavailable } from '../ledger/store-error.js';
import { ajvOptions, describeErrors, schemas } from '../protocol/schemas.js';
import { installShutdownGate } from '../http/shutdown.js';
import { schemaCompilers } from '../http/schema-compilers.js';
import { clientErrorHandler } from '../http/client-errors.js';
import { callbackLane, type Lane, type LaneOptions } from '../routes/callback-lane.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Simulator } from '../core/simulator.js';
import type { Signer } from '../evidence/signing-key.js';

export interface AppOptions {
  sim: Simulator;
  /** Callback path (default /callback). */
  path?: string;
  /** Largest accepted body in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** When set, the admin API wants `Authorization: Bearer <token>`. */
  adminToken?: string;
  /** Store kind, reported by /health. */
  storeKind?: string;
  logger?: FastifyServerOptions['logger'];
  /** Time-outs and the connection cap (DEFAULT_LIMITS for what is not given). */
  limits?: Partial<ServerLimits>;
  /** The --host it listens on: a host name there is answered by the admin API like localhost. */
  host?: string;
  /** --allowed-hosts: more names the admin API answers to (`*` = any). */
  allowedHosts?: string[];
  /** --cors: which browser pages may call the callback route and the admin API. */
  cors?: CorsSetting;
  /** --signing-key: signs GET /admin/report?signed=true (without it that answers 404). */
  signer?: Signer;
  /** Compile every route's schemas at start-up, as Fastify does (default: each at its first use; src/http/schema-compilers.ts). */
  eagerSchemas?: boolean;
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** Longest path parameter (a user_id in /admin/players/:user_id): Node's 16 KiB header limit bounds the URL anyway. */
export const MAX_PARAM_LENGTH = 16 * 1024;

/** The whole HTTP face of the simulator. Never listens: the CLI and the tests decide that. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const path = options.path ?? '/callback';
  const { app, allowedHosts, openLane } = await appFrame(options, limits);
  // The callback lane (../routes/callback-lane.ts), unless --cors: its headers are the route's hooks'.
  const lane = { sim: options.sim, log: app.log };
  if (!options.cors) openLane({ target: (at) => (at === path ? lane : undefined) });
  // Proxy mode's connections to the upstream close with the server (after the replies in flight).
  app.addHook('onClose', () => options.sim.wallet.close());
  // A browser client must be able to read the reply's credentials and Callback-URL echo.
  if (options.cors) await registerCors(app, options.cors, path, Object.values(HEADER_NAME));
  const simOf = always(options.sim);
  await app.register(callbackRoutes, {
    simOf,
    path,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    relays: options.sim.wallet.upstream !== undefined,
  });
  await app.register(adminRoutes, {
    prefix: '/admin',
    simOf,
    token: options.adminToken,
    guard: { allowedHosts, corsOrigins: options.cors?.origins },
    maxListeners: listenerCap(limits),
    signer: options.signer,
  });
  await app.register(healthRoutes, { sim: options.sim, storeKind: options.storeKind ?? 'memory' });
  await unframed(app, (scope) => scope.register(uiRoutes));
  return app;
}

/** What a single-tenant app and a hosted one (./hosted-app.ts) share. */
export type FrameOptions = Omit<AppOptions, 'sim'> & OpenapiOptions;

/**
 * The app without its simulator's routes: server limits, the shutdown gate, the schemas, the one
 * error handler, the OpenAPI document, Swagger UI and /openapi.json.
 */
export async function appFrame(
  options: FrameOptions,
  limits: ServerLimits,
): Promise<{ app: FastifyInstance; allowedHosts: string[]; openLane: (o: Pick<LaneOptions, 'target'>) => void }> {
  // Requests go to the callback lane first, once the app opens it; what it does not take goes to Fastify.
  let lane: Lane | undefined;
  const server = serverOptions(limits);
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per callback comes from the callback route itself (with code and reason).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    ajv: { customOptions: ajvOptions },
    schemaController: { compilersFactory: schemaCompilers(options.eagerSchemas) },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ...server,
    // What Node's parser refuses (too slow, headers too large, not HTTP) in the house format.
    clientErrorHandler: clientErrorHandler(limits),
    // Closing answers the requests in flight (closeGracefully bounds how long); the shutdown gate
    // below, not Fastify's generic 503, refuses what arrives meanwhile.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
  });
  // The lane in front of Fastify's handler, on the server Fastify made. Not a serverFactory: with
  // one, Fastify listens on one address of `localhost` only (it binds both ::1 and 127.0.0.1 otherwise).
  const routing = app.routing;
  // (a Fastify that listened with another function would answer every callback twice: refused at once)
  if (!app.server.listeners('request').includes(routing)) throw new Error("Fastify's server does not listen with app.routing");
  app.server.removeListener('request', routing);
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => lane?.(req, res) || routing(req, res));
  const closing = installShutdownGate(app, capConnections(app.server, limits.maxConnections));
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const openLane = ({ target }: Pick<LaneOptions, 'target'>) => void (lane = callbackLane({ target, bodyLimit, closing }));
  for (const schema of schemas) app.addSchema(schema);

  app.setNotFoundHandler(notFoundHandler);
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    // One error table (src/http/errors.ts): every reply is { error: <our code>, message: what to do }.
    if (error instanceof ScenarioError) {
      return reply.code(400).send({ ...apiError('SCENARIO_INVALID', error.message).body, details: error.problems });
    }
    if (error.validation) {
      // (A bad query's message lists the route's parameters: its details need not list them again.)
      const details = describeErrors(error.validation as never, { listAllowed: error.validationContext !== 'querystring' }).map((d) => ({
        ...d,
        pointer: `${error.validationContext === 'body' ? '' : `${error.validationContext}:`}${d.pointer}`,
      }));
      const problems = details.map((d) => `${d.pointer} ${d.message}`).join('; ');
      const query = error.validationContext === 'querystring' ? queryParameters(request) : [];
      const { body } = apiError('BAD_REQUEST', problems, `${request.method} ${request.routeOptions.url}`, query);
      return reply.code(400).send({ ...body, details });
    }
    // The store cannot serve now (Redis away, frozen, its state lost): what callbacks answer R1 with, whichever route read it.
    if (error instanceof StoreUnavailable) return reply.code(503).send(apiError('STORE_UNREACHABLE', error.message).body);
    const translated = fromFastify(error, request);
    if (translated) return reply.code(translated.status).send(translated.body);
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) {
      request.log.error({ err: error }, 'unexpected error');
      return reply.code(500).send(apiError('INTERNAL', error.message).body);
    }
    return reply.code(status).send({ error: error.code ?? 'BAD_REQUEST', message: error.message });
  });

  await app.register(swagger, openapiOptions(options));
  const allowedHosts = [...(options.host ? [options.host] : []), ...(options.allowedHosts ?? [])];
  const sameHost = hostGuard(allowedHosts);
  // The pages (Swagger UI, the dashboard) each in a scope that refuses to be framed.
  // swagger-ui's types describe a callback hook; the plugin hands it to fastify.route, which awaits an async one.
  const onRequest = sameHost as onRequestHookHandler;
  await unframed(app, (scope) => scope.register(swaggerUi, { ...swaggerUiOptions(options), uiHooks: { onRequest } }));
  // An absolute server taken from the request: importers such as Postman mishandle a relative "/".
  // Its examples as /docs/json has them, read now (the active credentials, this simulator's Callback-URL).
  app.get('/openapi.json', { schema: { hide: true }, onRequest: sameHost }, async (request) => ({
    ...withHeaderExamples(structuredClone(app.swagger()) as Record<string, unknown>, request, options),
    servers: [{ url: `${request.protocol}://${request.host}` }],
  }));
  return { app, allowedHosts, openLane };
}

/** The query parameters a route's schema names. */
function queryParameters(request: FastifyRequest): string[] {
  const querystring = request.routeOptions.schema?.querystring as { properties?: object } | undefined;
  return Object.keys(querystring?.properties ?? {});
}
