import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { apiError, sendApiError, sendApiErrorText } from '../http/errors.js';
import type { TenantCreate, TenantCreated } from '../protocol/types.generated.js';
import { addAdminGuard, bearerOf } from './admin-guard.js';
import { type DocumentedSchema, errorBody, errorResponse, namedExamples, sentAsReturned } from './docs.js';
import { type Issued, type TenantDirectory, TenantLimit, UnknownScenario } from './tenant-directory.js';

export interface TenantRoutesOptions {
  tenants: TenantDirectory;
  allowedHosts: string[];
  /** --public-url: the base of the URLs handed to tenants (default: the request's own scheme and Host). */
  publicUrl?: string;
}

export const HOST_UNAUTHORIZED = 'the host routes want Authorization: Bearer <the host token> (start --host-token-file)';

const HOST = [{ bearer: [] as never[] }];
const UNAUTHORIZED_401 = errorResponse(`No host token, or a wrong one (UNAUTHORIZED). ${HOST_UNAUTHORIZED}.`, [
  errorBody('UNAUTHORIZED', HOST_UNAUTHORIZED),
]);
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } } as const;
const STORE_503 = errorResponse(
  "--store redis: Redis unreachable, not answering, or it lost the tenants' state (flushed, restarted without persistence): STORE_UNREACHABLE with the reason.",
  [
    errorBody(
      'STORE_UNREACHABLE',
      'Redis at redis://redis:6379 does not answer (Command timed out); callbacks get R1 until it answers again',
    ),
  ],
);
const unknown404 = errorResponse('No tenant with that id (TENANT_UNKNOWN).', [errorBody('TENANT_UNKNOWN', 'AbCdEfGhIjKlMnOpQrStUv')]);

/**
 * The host's routes (hosted mode): create, list and delete tenants, rotate a tenant's token. Only
 * the host token opens them; every other caller gets 401 (whatever it holds).
 */
export const tenantRoutes: FastifyPluginAsync<TenantRoutesOptions> = async (app, { tenants, allowedHosts, publicUrl }) => {
  addAdminGuard(app, {
    allowedHosts,
    authorize: (request) => (tenants.whose(bearerOf(request) ?? '') === 'host' ? undefined : apiError('UNAUTHORIZED', HOST_UNAUTHORIZED)),
  });
  const base = (request: FastifyRequest) => publicUrl?.replace(/\/+$/, '') ?? `${request.protocol}://${request.host}`;
  const shown = (request: FastifyRequest, { tenant, token }: Issued): TenantCreated => ({
    id: tenant.id,
    name: tenant.name,
    token,
    callback_url: `${base(request)}/t/${tenant.id}/callback`,
    credentials: { ...tenant.credentials },
    dashboard_url: `${base(request)}/t/${tenant.id}/ui`,
  });

  app.post<{ Body: TenantCreate }>(
    '/tenants',
    {
      ...sentAsReturned,
      schema: {
        tags: ['tenants'],
        security: HOST,
        operationId: 'createTenant',
        summary: 'Create a tenant: its URLs, credentials and token (shown once)',
        description:
          "A workspace for one integrator: its own scenario, players, journal, grading session and rule counters, under /t/<id>/. Its Api-Id and Api-Key are generated (a scenario's own are ignored). The token is shown in this answer only: the host keeps its hash. Past --max-tenants: 409 TENANT_LIMIT.",
        body: { $ref: 'TenantCreate#' },
        bodyExamples: namedExamples('TenantCreate', (v) => String(v.name)),
        response: {
          201: { description: 'The tenant, with its token (this once).', $ref: 'TenantCreated#' },
          400: errorResponse(
            'The body is invalid (BAD_REQUEST, SCENARIO_INVALID): details name each field by JSON pointer. Nothing was created.',
          ),
          401: UNAUTHORIZED_401,
          409: errorResponse('The host holds --max-tenants tenants (TENANT_LIMIT).', [errorBody('TENANT_LIMIT', 1000)]),
          503: STORE_503,
        },
      } as DocumentedSchema,
    },
    async (request, reply) => {
      try {
        const issued = await tenants.create(request.body);
        request.log.info({ tenant: issued.tenant.id }, 'tenant created');
        return reply.code(201).send(shown(request, issued));
      } catch (e) {
        if (e instanceof TenantLimit) return sendApiError(reply, apiError('TENANT_LIMIT', e.max));
        if (e instanceof UnknownScenario)
          return sendApiError(reply, apiError('BAD_REQUEST', e.message), [{ pointer: '/scenario', message: e.message }]);
        throw e; // a ScenarioError: 400 SCENARIO_INVALID naming each field
      }
    },
  );

  app.get(
    '/tenants',
    {
      ...sentAsReturned,
      schema: {
        tags: ['tenants'],
        security: HOST,
        operationId: 'listTenants',
        summary: 'Every tenant: name, activity, callbacks, verdict (never a token)',
        response: {
          200: { description: 'The tenants, oldest first.', type: 'array', items: { $ref: 'Tenant#' } },
          401: UNAUTHORIZED_401,
          503: STORE_503,
        },
      },
    },
    async () => tenants.list(),
  );

  app.delete<{ Params: { id: string } }>(
    '/tenants/:id',
    {
      ...sentAsReturned,
      schema: {
        tags: ['tenants'],
        security: HOST,
        operationId: 'deleteTenant',
        summary: 'Delete a tenant and all its data',
        params: idParams,
        response: {
          204: { description: 'Gone: its routes answer 404, its slot is free.', type: 'null' },
          401: UNAUTHORIZED_401,
          404: unknown404,
          503: STORE_503,
        },
      },
    },
    async (request, reply) => {
      if (!(await tenants.remove(request.params.id))) return sendApiErrorText(reply, apiError('TENANT_UNKNOWN', request.params.id));
      request.log.info({ tenant: request.params.id }, 'tenant deleted');
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    '/tenants/:id/token',
    {
      ...sentAsReturned,
      schema: {
        tags: ['tenants'],
        security: HOST,
        operationId: 'rotateTenantToken',
        summary: "Rotate a tenant's token (the old one stops working; its event streams end)",
        params: idParams,
        response: {
          200: { description: 'The tenant with its new token (this once); its credentials are unchanged.', $ref: 'TenantCreated#' },
          401: UNAUTHORIZED_401,
          404: unknown404,
          503: STORE_503,
        },
      },
    },
    async (request, reply) => {
      const issued = await tenants.rotate(request.params.id);
      if (!issued) return sendApiErrorText(reply, apiError('TENANT_UNKNOWN', request.params.id));
      request.log.info({ tenant: issued.tenant.id }, 'tenant token rotated');
      return shown(request, issued);
    },
  );
};
