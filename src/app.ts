import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { apiError, fromFastify } from './errors.js';
import { adminRoutes } from './routes/admin.js';
import { callbackRoutes } from './routes/callback.js';
import { healthRoutes } from './routes/health.js';
import { openapiOptions, swaggerUiOptions } from './openapi.js';
import { ScenarioError } from './scenario/scenario.js';
import { ajvOptions, describeErrors, schemas } from './schemas.js';
import type { Simulator } from './simulator.js';

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
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The whole HTTP face of the simulator. Never listens: the CLI and the tests decide that. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    // One line per callback comes from the callback route itself (with code and reason).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    ajv: { customOptions: ajvOptions },
    // Every request is a fresh callback: keep-alive sockets must not block a graceful close.
    forceCloseConnections: true,
  });
  for (const schema of schemas) app.addSchema(schema);

  app.setErrorHandler<FastifyError>((error, request, reply) => {
    // One error table (src/errors.ts): every reply is { error: <our code>, message: what to do }.
    if (error instanceof ScenarioError) {
      return reply.code(400).send({ ...apiError('SCENARIO_INVALID', error.message).body, details: error.problems });
    }
    if (error.validation) {
      const details = describeErrors(error.validation as never).map((d) => ({ ...d, pointer: `${error.validationContext === 'body' ? '' : `${error.validationContext}:`}${d.pointer}` }));
      return reply.code(400).send({ ...apiError('BAD_REQUEST', details.map((d) => `${d.pointer} ${d.message}`).join('; ')).body, details });
    }
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
  await app.register(swaggerUi, swaggerUiOptions(options));
  await app.register(callbackRoutes, { sim: options.sim, path: options.path ?? '/callback', bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT });
  await app.register(adminRoutes, { prefix: '/admin', sim: options.sim, token: options.adminToken });
  await app.register(healthRoutes, { sim: options.sim, storeKind: options.storeKind ?? 'memory' });
  // An absolute server taken from the request: importers such as Postman mishandle a relative "/".
  app.get('/openapi.json', { schema: { hide: true } }, async (request) => ({ ...app.swagger(), servers: [{ url: `${request.protocol}://${request.host}` }] }));
  return app;
}
