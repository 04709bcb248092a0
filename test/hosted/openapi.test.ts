import { validate } from '@readme/openapi-parser';
import t from 'tap';
import { buildHostedTestApp } from '../helpers/hosted.js';

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
