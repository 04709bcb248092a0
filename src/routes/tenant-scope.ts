import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { apiError, type ApiErrorReply, sendApiErrorText } from '../http/errors.js';
import { adminRoutes } from './admin.js';
import { addAdminGuard, bearerOf } from './admin-guard.js';
import { probeRoutes } from './probe-runs.js';
import type { RunShelf } from './probe-run.js';
import { callbackRoutes } from './callback.js';
import type { Signer } from '../evidence/signing-key.js';
import type { UpstreamErrorKind } from '../probe/upstream-errors.js';
import type { HostedTenant, TenantDirectory } from './tenant-directory.js';
import type { Json } from './docs.js';
import { joinResponses, tenantAdminResponses, tenantCallbackResponses } from './tenant-docs.js';
import { ListenerSlots } from './listener-slots.js';

export interface TenantScopeOptions {
  tenants: TenantDirectory;
  bodyLimit: number;
  /** Host names the admin routes answer to (--host, --allowed-hosts). */
  allowedHosts: string[];
  /** Event streams served at once, over every tenant, and per tenant. */
  maxListeners: number;
  maxListenersEach: number;
  signer?: Signer;
  /** --allow-private-targets: the hosted probe may go to loopback, private and link-local addresses. */
  allowPrivateTargets?: boolean;
  /** --tenant-probe-runs: probe runs a tenant may start an hour. */
  probeRunsPerHour?: number;
  /** Several processes on one store: where they share the probe runs. */
  probeShelf?: RunShelf;
  /** A tenant's probe run ended, with its outcome (metrics). */
  probeEnded?: (tenant: string, outcome: string) => void;
  /** A tenant's probe run could not reach its target, or got no wallet's answer (metrics). */
  upstreamError?: (tenant: string, kind: UpstreamErrorKind) => void;
  /** A tenant's callback answered after `seconds` (metrics). */
  answered?: (seconds: number) => void;
}

export const TENANT_UNAUTHORIZED =
  "the tenant's routes want Authorization: Bearer <the tenant's token> (POST /tenants showed it once; " +
  'the host issues a new one with POST /tenants/<id>/token)';
export const TENANT_FORBIDDEN =
  "this token is not the token of the tenant the URL names: check the tenant id in the URL, and use that tenant's token (or the host's)";

/**
 * Everything of one tenant, under /t/:id (register with that prefix): its callback route and its
 * admin API, the same routes a single-tenant server has, each asking for the request's simulator.
 * The tenant is found here, once per request, before any route runs: the pipeline never knows
 * there are tenants.
 *
 * Who may call the admin routes (docs/hosted.md, "Security model"): the tenant's token or the
 * host's. No token, or a token nobody holds: 401. Another tenant's token: 403, whether or not a
 * tenant with this id exists, so the answers never tell existing ids from others. The host's
 * token on an id nobody has: 404. The callback route takes no token (the protocol's Api-Id/Api-Key
 * apply); its id is random and long enough not to be guessed. Log lines carry the tenant id: the
 * hosted app binds it to each request's logger (./hosted-app.ts, `tenantLogger`).
 */
/** Where a request under /t/:id keeps its tenant once found. */
const TENANT = 'walletSimTenant';
type Tenanted = FastifyRequest & { [TENANT]: HostedTenant | null };

export const tenantScope: FastifyPluginAsync<TenantScopeOptions> = async (app, o) => {
  const { tenants } = o;
  // The request's tenant, on the request itself (a decoration: one shape for every request, no WeakMap entry per request).
  app.decorateRequest(TENANT, null);
  const found = {
    get: (request: FastifyRequest) => (request as Tenanted)[TENANT] ?? undefined,
    set: (request: FastifyRequest, tenant: HostedTenant) => void ((request as Tenanted)[TENANT] = tenant),
  };
  const simOf = (request: FastifyRequest) => found.get(request)!.sim;
  // Each route under /t/:id documents what this scope can answer in front of it (its own answers kept).
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { response?: Record<string, Json> } | undefined;
    if (!schema?.response) return;
    const scope = route.url.endsWith('/callback') ? tenantCallbackResponses() : tenantAdminResponses();
    const response = { ...schema.response };
    for (const [status, answer] of Object.entries(scope)) response[status] = joinResponses(response[status], answer);
    route.schema = { ...schema, response }; // a copy: a route's schema may be a constant the single-tenant routes share
  });
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  await app.register(async (callbacks: FastifyInstance) => {
    const { answered } = o;
    callbacks.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      const arrived = performance.now();
      const enter = (tenant: HostedTenant | undefined) => {
        if (!tenant) {
          if (answered) timed(reply.raw, arrived, answered);
          return void sendApiErrorText(reply, apiError('TENANT_UNKNOWN', idOf(request)));
        }
        const refused = admitCallback(tenant, reply.raw, arrived, answered);
        if (refused) return void sendApiErrorText(reply, refused);
        found.set(request, tenant);
        done();
      };
      const tenant = tenants.get(idOf(request));
      if (tenant) return enter(tenant);
      // Not served here yet: created by another process on the same store, or no tenant at all.
      tenants.find(idOf(request)).then(enter, (e: Error) => {
        if (answered) timed(reply.raw, arrived, answered);
        sendApiErrorText(reply, apiError('STORE_UNREACHABLE', e.message));
      });
    });
    await callbacks.register(callbackRoutes, { simOf, path: '/callback', bodyLimit: o.bodyLimit });
  });

  const authorize = async (request: FastifyRequest): Promise<ApiErrorReply | undefined> => {
    try {
      return await admitted(request);
    } catch (e) {
      return apiError('STORE_UNREACHABLE', (e as Error).message); // (a store shared with other processes, unreachable)
    }
  };
  const admitted = async (request: FastifyRequest): Promise<ApiErrorReply | undefined> => {
    const token = bearerOf(request);
    const holder = token === undefined ? undefined : (tenants.whose(token) ?? (await tenants.holder(token)));
    if (holder === undefined) return apiError('UNAUTHORIZED', TENANT_UNAUTHORIZED);
    const id = idOf(request);
    if (holder !== 'host' && holder.id !== id) return apiError('FORBIDDEN', TENANT_FORBIDDEN);
    const tenant = holder === 'host' ? (tenants.get(id) ?? (await tenants.find(id))) : holder;
    if (!tenant) return apiError('TENANT_UNKNOWN', id);
    if (holder !== 'host') {
      const refused = tenant.adminLimit.take();
      if (refused) {
        const { status, body } = apiError('RATE_LIMITED', 'admin requests', tenant.adminLimit.limit, 'minute', refused.retryAfterS);
        return { status, body, headers: refused.headers };
      }
    }
    found.set(request, tenant);
    tenant.touched(false);
    return undefined;
  };
  // One budget for the admin event streams and the probe run streams of every tenant (--max-listeners).
  const listenerSlots = new ListenerSlots(o.maxListeners);
  await app.register(adminRoutes, {
    prefix: '/admin',
    simOf,
    authorize,
    guard: { allowedHosts: o.allowedHosts },
    maxListeners: o.maxListeners,
    maxListenersEach: o.maxListenersEach,
    listenerSlots,
    signer: o.signer,
    credentialsFixed: true,
    streamsEnd: (request) => found.get(request)?.streamsEnd,
    signedFor: (request) => {
      const tenant = found.get(request);
      return tenant && { id: tenant.id, name: tenant.name };
    },
  });
  // Probe as a service: the same authorization as the admin routes.
  await app.register(
    async (scope: FastifyInstance) => {
      addAdminGuard(scope, { allowedHosts: o.allowedHosts, authorize });
      await scope.register(probeRoutes, {
        tenantOf: (request) => {
          const { id, name, streamsEnd } = found.get(request)!;
          return { id, name, streamsEnd };
        },
        exists: (id) => tenants.get(id) !== undefined,
        maxListenersEach: o.maxListenersEach,
        listenerSlots,
        signer: o.signer,
        allowPrivateTargets: o.allowPrivateTargets,
        runsPerHour: o.probeRunsPerHour,
        shelf: o.probeShelf,
        ended: o.probeEnded,
        upstreamError: o.upstreamError,
      });
    },
    { prefix: '/probe' },
  );
};

/**
 * A tenant's callback counted in (its callbacks per second, its callbacks in flight), or refused
 * with the answer to give (answered before its body is read, and not journalled: a flood costs its
 * tenant little and the others nothing). An admitted callback's in-flight count is given back when
 * its response closes: its reply written or its connection closed (a delayed reply holds it until
 * then). The tenant's callback route and the callback lane (./callback-lane.ts) admit with it.
 */
export function admitCallback(
  tenant: HostedTenant,
  res: ServerResponse,
  arrived: number,
  answered?: (seconds: number) => void,
): ApiErrorReply | undefined {
  const refused = tenant.callbackLimit.take();
  let refusal: ApiErrorReply | undefined;
  if (refused) {
    const { status, body } = apiError('RATE_LIMITED', 'callbacks', tenant.callbackLimit.limit, 'second', refused.retryAfterS);
    refusal = { status, body, headers: refused.headers };
  } else if (!tenant.inFlight.take()) {
    const { status, body } = apiError('IN_FLIGHT_LIMITED', tenant.inFlight.limit);
    refusal = { status, body, headers: { 'retry-after': '1' } };
  }
  if (refusal) {
    if (answered) timed(res, arrived, answered);
    return refusal;
  }
  tenant.touched(true, tenant.callbackLimit.at); // (the time the limit just read)
  res.on('close', () => {
    tenant.inFlight.release();
    if (answered) answeredAt(res, arrived, answered);
  });
  return undefined;
}

/**
 * Every callback, refused or answered, is timed from its arrival to its reply written (metrics):
 * when the response closes, as it is done with (a tick after its last byte went), unless no reply
 * was written (the connection dropped or cut first). A listener instead of an onResponse hook,
 * whose runner Fastify makes anew for every request.
 */
function timed(res: ServerResponse, arrived: number, answered: (seconds: number) => void): void {
  res.on('close', () => answeredAt(res, arrived, answered));
}

function answeredAt(res: ServerResponse, arrived: number, answered: (seconds: number) => void): void {
  if (res.writableEnded || res.errored) answered((performance.now() - arrived) / 1000);
}
