import type { FastifyBaseLogger, FastifyInstance, onRequestHookHandler } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { LaneOptions, LaneTarget } from '../routes/callback-lane.js';
import { admitCallback, tenantScope } from '../routes/tenant-scope.js';
import type { HostedTenant } from '../routes/tenant-directory.js';
import { appFrame, type FrameOptions } from './app.js';
import { DEFAULT_LIMITS, listenerCap } from '../http/limits.js';
import { apiError, sendApiErrorText } from '../http/errors.js';
import { tenantRoutes } from '../routes/tenants.js';
import { tenantUiRoutes } from '../routes/ui.js';
import { unframed } from '../http/framing.js';
import { TENANT_DEFAULTS, type TenantRegistry } from './tenants.js';
import { DEFAULT_BODY_LIMIT } from './app.js';
import { SHUTDOWN_503 } from '../routes/docs.js';
import type { HostMetrics } from './metrics.js';
import { addAdminGuard, bearerOf } from '../routes/admin-guard.js';
import type { FastifyPluginAsync } from 'fastify';
import { HOST_UNAUTHORIZED } from '../routes/tenants.js';
import type { RunShelf } from '../routes/probe-run.js';

export interface HostedAppOptions extends Omit<FrameOptions, 'sim' | 'path' | 'adminToken'> {
  tenants: TenantRegistry;
  /** --public-url: the base of the URLs handed to tenants (default: each request's scheme and Host). */
  publicUrl?: string;
  /** Event streams one tenant may hold open at once. */
  maxListenersEach?: number;
  /** --allow-private-targets: the hosted probe may go to the host's own networks. */
  allowPrivateTargets?: boolean;
  /** --tenant-probe-runs: probe runs a tenant may start an hour (default 20). */
  probeRunsPerHour?: number;
  /** GET /metrics (the host's token). */
  metrics?: HostMetrics;
  /** Several processes on one Redis: where they share the tenants' probe runs. */
  probeShelf?: RunShelf;
  /** Why the tenants' shared store cannot serve now (Redis away), or undefined: GET /health answers 503 with it. */
  storeFailure?: () => string | undefined;
}

/** A tenant's callback path as the OpenAPI document names it. */
const TENANT_CALLBACK = '/t/{id}/callback';

/**
 * The hosted sandbox's HTTP face (start --hosted): the host's routes (/tenants), each tenant's
 * routes under /t/:id/ (the single-tenant routes, over the tenant's simulator), /health, /docs
 * and /openapi.json. The single-tenant routes answer 404 naming the tenant form.
 */
export async function buildHostedApp(options: HostedAppOptions): Promise<FastifyInstance> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const { tenants } = options;
  const { app, allowedHosts, openLane } = await appFrame({ ...options, path: TENANT_CALLBACK, hosted: true }, limits);
  app.addHook('onRequest', tenantLogBinding);
  openLane({ target: tenantLane(tenants, app.log, options.metrics?.answered) });
  const maxListeners = listenerCap(limits);
  await app.register(tenantRoutes, { tenants, allowedHosts, publicUrl: options.publicUrl });
  await app.register(tenantScope, {
    prefix: '/t/:id',
    tenants,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    allowedHosts,
    maxListeners,
    maxListenersEach: Math.min(maxListeners, options.maxListenersEach ?? TENANT_DEFAULTS.listeners),
    signer: options.signer,
    answered: options.metrics?.answered,
    allowPrivateTargets: options.allowPrivateTargets,
    probeRunsPerHour: options.probeRunsPerHour,
    probeShelf: options.probeShelf,
    probeEnded: options.metrics?.probeEnded,
    upstreamError: options.metrics?.upstreamError,
  });
  if (options.metrics) await app.register(metricsRoute, { metrics: options.metrics, tenants, allowedHosts });

  const hosted = { schema: { hide: true } };
  await unframed(app, (scope) => scope.register(tenantUiRoutes));
  for (const route of ['/callback', '/admin', '/admin/*', '/ui', '/'])
    app.all(route, hosted, async (request, reply) => sendApiErrorText(reply, apiError('HOSTED', `${request.method} ${route}`)));

  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        operationId: 'health',
        summary: 'Liveness of the host: the store kind and the number of tenants',
        response: {
          200: {
            description:
              'The host answers. `scenario` is "hosted" and `players` 0: each tenant has its own (GET /t/<id>/admin/players); `tenants` counts them.',
            $ref: 'Health#',
          },
          503: {
            description: `The tenants' store cannot serve (status store_failed, error: why; --store redis: Redis unreachable, not answering, or it lost the tenant registry), every tenant's callbacks get R1 meanwhile; or: ${SHUTDOWN_503}`,
            $ref: 'Health#',
          },
        },
      },
    },
    async (_request, reply) => {
      const health = { scenario: 'hosted', store: options.storeKind ?? 'memory', players: 0, tenants: tenants.size };
      const error = options.storeFailure?.();
      // (as a single wallet's: a balancer or monitor sees the outage, every tenant's callbacks get R1 meanwhile)
      if (error) return reply.code(503).send({ status: 'store_failed', ...health, error });
      return { status: 'ok', ...health };
    },
  );
  return app;
}

/**
 * The callback lane's targets (src/routes/callback-lane.ts): /t/<id>/callback of a tenant this
 * process serves, admitted as the tenant's route admits (its limits, timing, counts), its lines
 * bound to its id. A tenant not served here yet, or an id as the URL encodes it, goes on to the route.
 */
function tenantLane(tenants: TenantRegistry, log: FastifyBaseLogger, answered?: (seconds: number) => void): LaneOptions['target'] {
  // One target per tenant, made at its first callback (its lines bound to its id).
  const targets = new WeakMap<HostedTenant, LaneTarget>();
  return (path) => {
    // /t/<id>/callback: the id between (one with a `/`, `#` or nothing at all names no tenant)
    if (!path.startsWith('/t/') || !path.endsWith(CALLBACK)) return undefined;
    const tenant = tenants.get(path.slice(3, path.length - CALLBACK.length));
    if (!tenant) return undefined;
    let target = targets.get(tenant);
    if (!target) {
      const admit = (res: ServerResponse) => admitCallback(tenant, res, answered ? performance.now() : 0, answered);
      targets.set(tenant, (target = { sim: tenant.sim, log: log.child({ tenant: tenant.id }), admit }));
    }
    return target;
  };
}
const CALLBACK = '/callback';

/** The tenant id of a tenant's path, /t/<id>/… (the id as the URL has it: up to a `/`, `?` or `#`), if it is one. */
export function tenantIdOf(url: string): string | undefined {
  if (!url.startsWith('/t/')) return undefined;
  let end = 3;
  for (; end < url.length; end++) {
    const c = url.charCodeAt(end);
    if (c === SLASH || c === QUESTION || c === HASH) break;
  }
  return end > 3 ? url.slice(3, end) : undefined;
}
const [SLASH, QUESTION, HASH] = ['/', '?', '#'].map((c) => c.charCodeAt(0));

/**
 * Each request's log lines carry the tenant id its URL names: added to the request's logger (the
 * one child logger Fastify makes for a request anyway, with Fastify's own factory) as soon as the
 * request arrives. A factory of our own that bound it cost more: Fastify checks the logger such a
 * factory makes, on every request.
 */
const tenantLogBinding: onRequestHookHandler = (request, _reply, done) => {
  const tenant = tenantIdOf(request.url);
  // pino's (no logger at all: Fastify's stand-in has nothing to bind to)
  const log = request.log as { setBindings?: (bindings: object) => void };
  if (tenant !== undefined && log.setBindings) log.setBindings({ tenant });
  done();
};

/** GET /metrics: Prometheus' text format, for the host's token only. */
const metricsRoute: FastifyPluginAsync<{ metrics: HostMetrics; tenants: TenantRegistry; allowedHosts: string[] }> = async (
  app,
  { metrics, tenants, allowedHosts },
) => {
  addAdminGuard(app, {
    allowedHosts,
    authorize: (request) => (tenants.whose(bearerOf(request) ?? '') === 'host' ? undefined : apiError('UNAUTHORIZED', HOST_UNAUTHORIZED)),
  });
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['tenants'],
        security: [{ bearer: [] }],
        operationId: 'metrics',
        summary: 'Prometheus metrics: callbacks by tenant, event and code; callback latency; probe runs; upstream errors; 429s; tenants',
        produces: ['text/plain'],
        response: {
          200: {
            description: 'The Prometheus text exposition format (version 0.0.4).',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          401: { description: `No host token, or a wrong one (UNAUTHORIZED). ${HOST_UNAUTHORIZED}.`, $ref: 'ApiError#' },
        },
      },
    },
    async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
};
