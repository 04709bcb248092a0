import { validate } from '@readme/openapi-parser';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { bearer, buildHostedTestApp, callbackHeaders, createTenant, loginOf, SMALL } from '../helpers/hosted.js';

t.test('hosted mode: /openapi.json documents the host routes and every tenant route, and is valid OpenAPI 3.1', async (t) => {
  const { app } = await buildHostedTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ url: '/openapi.json' });
  t.equal(res.statusCode, 200);
  const doc = res.json() as { paths: Record<string, Record<string, { security?: unknown; operationId?: string }>>; components: any };
  const result = await validate(structuredClone(doc) as never);
  t.same(result.valid ? [] : (result as { errors: unknown[] }).errors, [], 'no validation errors');

  const paths = Object.keys(doc.paths);
  for (const path of [
    '/tenants',
    '/tenants/{id}',
    '/tenants/{id}/token',
    '/t/{id}/callback',
    '/t/{id}/admin/players',
    '/t/{id}/admin/report',
    '/t/{id}/admin/events',
    '/t/{id}/probe',
    '/t/{id}/probe/{run}',
    '/t/{id}/probe/{run}/events',
    '/t/{id}/probe/{run}/report',
    '/health',
    '/metrics',
  ])
    t.ok(paths.includes(path), `documents ${path}`);
  for (const path of ['/callback', '/admin/players', '/ui']) t.notOk(paths.includes(path), `${path} is not a route in hosted mode`);
  t.ok(doc.paths['/tenants']!.post!.security, 'POST /tenants wants the host token');
  t.ok(doc.paths['/t/{id}/admin/players']!.get!.security, "a tenant's admin route wants a token");
  t.notOk(doc.paths['/t/{id}/callback']!.post!.security, "a tenant's callback takes no token (Api-Id/Api-Key apply)");
  t.ok(doc.paths['/t/{id}/probe']!.post!.security, 'starting a probe run wants a token');
  t.ok(doc.paths['/t/{id}/probe/{run}/report']!.get!.security, "a run's report wants a token");
  for (const name of ['Tenant', 'TenantCreate', 'TenantCreated']) t.ok(doc.components.schemas[name], `component ${name}`);
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

t.test(
  "hosted mode: a tenant's 404, 429 and 503 answers are documented on its routes, and the answers sent are the ones shown",
  async (t) => {
    const now = 1_000_000; // (a clock that stands still: the second request is in the first one's window)
    const { app } = await buildHostedTestApp({ tenantLimits: { callbacksPerSecond: 1, adminPerMinute: 1 }, now: () => now });
    t.teardown(() => app.close());
    const doc = (await app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { responses: any }>> };
    const callbackDoc = doc.paths['/t/{id}/callback']!.post!.responses;
    const adminDoc = doc.paths['/t/{id}/admin/players/{user_id}']!.get!.responses;
    for (const status of ['404', '429', '503']) {
      t.ok(callbackDoc[status], `the callback documents ${status}`);
      t.ok(adminDoc[status], `an admin route documents ${status}`);
    }
    /** The error codes a documented answer shows. */
    const shown = (answer: any) =>
      Object.values(answer.content['application/json'].examples as Record<string, { value: { error: string } }>).map((e) => e.value.error);
    t.match(adminDoc['404'].description, /Or: No tenant with that id/, "the route's own 404 and the scope's, both described");
    t.ok(shown(adminDoc['404']).includes('TENANT_UNKNOWN'), "the scope's example beside the route's own");
    t.ok(shown(adminDoc['404']).length > 1);
    t.notOk(doc.paths['/tenants']!.get!.responses['429'], "the host's routes are not a tenant's");

    const a = await createTenant(app, { name: 'acme', scenario: SMALL });
    const send = () =>
      app.inject({ method: 'POST', url: `/t/${a.id}/callback`, headers: callbackHeaders(a), payload: JSON.stringify(loginOf('alice')) });
    t.equal((await send()).statusCode, 200);
    const limited = await send();
    t.equal(limited.statusCode, 429);
    t.ok(shown(callbackDoc['429']).includes(limited.json().error), `${limited.json().error} is one the document shows`);
    for (const header of Object.keys(callbackDoc['429'].headers))
      t.ok(limited.headers[header.toLowerCase()], `${header} sent, as documented`);
    const unknown = await app.inject({ method: 'POST', url: '/t/NoSuchTenant00000000000/callback', payload: '{}' });
    t.equal(unknown.statusCode, 404);
    t.ok(shown(callbackDoc['404']).includes(unknown.json().error));

    const admin = () => app.inject({ url: `/t/${a.id}/admin/players/alice`, headers: bearer(a.token) });
    t.equal((await admin()).statusCode, 200);
    const slow = await admin();
    t.equal(slow.statusCode, 429);
    t.ok(shown(adminDoc['429']).includes(slow.json().error));
    t.ok(slow.headers['retry-after'], 'Retry-After sent, as documented');
  },
);

t.test("hosted mode: the document speaks of the host's and tenants' tokens and of each tenant's generated credentials", async (t) => {
  const [{ app }, single] = await Promise.all([buildHostedTestApp(), buildTestApp()]);
  t.teardown(() => app.close());
  t.teardown(() => single.app.close());
  /** The words a reader of the document (or of Swagger UI's) meets about who may call and with what. */
  const words = async (a: FastifyInstance, url: string, callback: string) => {
    const doc = (await a.inject({ url })).json() as any;
    const op = doc.paths[callback].post;
    const header = (name: string) => op.parameters.find((p: { in: string; name: string }) => p.in === 'header' && p.name === name);
    return {
      info: doc.info.description as string,
      bearer: doc.components.securitySchemes.bearer.description as string,
      apiId: header('Api-Id').description as string,
      apiKey: header('Api-Key').description as string,
      callback: op.description as string,
    };
  };
  for (const url of ['/openapi.json', '/docs/json']) {
    const hosted = await words(app, url, '/t/{id}/callback');
    t.notMatch(hosted.bearer, /--admin-token/, `${url}: no single-tenant token`);
    t.match(
      hosted.bearer,
      /host's token .*\/tenants.*tenant's token .*\/t\/\{id\}\//,
      `${url}: the host token for /tenants, the tenant's for /t/{id}/…`,
    );
    for (const [name, field] of [
      ['apiId', 'api_id'],
      ['apiKey', 'api_key'],
    ] as const) {
      t.notMatch(hosted[name], /active scenario|--api-/, `${url}: ${name} is not a scenario's`);
      t.match(
        hosted[name],
        new RegExp(`^Must equal the tenant's credentials\\.${field}: generated .*POST /tenants`),
        `${url}: ${name} is the tenant's`,
      );
    }
    t.notMatch(hosted.info, /active scenario|--admin-token/, `${url}: the info speaks of no single simulator`);
    t.match(hosted.info, /generated Api-Id and Api-Key/);
    t.notMatch(hosted.callback, /not the scenario's|GET \/admin\/journal/, `${url}: the callback's R2 and journal are the tenant's`);
    t.match(hosted.callback, /GET \/t\/\{id\}\/admin\/journal/);
  }
  // A single-tenant wallet-sim's document keeps its own words.
  const one = await words(single.app, '/openapi.json', '/callback');
  t.equal(one.bearer, 'Only when the simulator runs with --admin-token: the admin API wants that token.');
  t.equal(one.apiId, "Must equal the active scenario's credentials.api_id (or --api-id); missing or different: R2.");
  t.equal(one.apiKey, "Must equal the active scenario's credentials.api_key (or --api-key); missing or different: R2.");
  t.match(one.info, /the active scenario's sandbox credentials/);
  t.match(one.callback, /\| R2 \| .* \| Api-Id \/ Api-Key missing or not the scenario's \|/);
  t.match(one.callback, /in `GET \/admin\/journal`\.$/);
});
