import { validate } from '@readme/openapi-parser';
import t from 'tap';
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
