// The dashboard's HTTP face without a browser: the page, its assets, the bundled-scenario list.
import { readdirSync } from 'node:fs';
import t from 'tap';
import { SCENARIOS_DIR } from '../src/kernel/paths.js';
import { buildTestApp } from './helpers/app.js';

t.test('GET / redirects to /ui; the page and its assets come from the simulator only', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const root = await app.inject({ url: '/' });
  t.equal(root.statusCode, 302);
  t.equal(root.headers.location, '/ui');
  const page = await app.inject({ url: '/ui' });
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-type'], /^text\/html/);
  t.match(page.headers['content-security-policy'], /default-src 'self'/, 'a CSP that allows only this server');
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  t.same(
    assets.filter((a) => !a.startsWith('/ui/') && !a.startsWith('data:')),
    [],
    'every asset is under /ui/',
  );
  for (const asset of assets.filter((a) => a.startsWith('/ui/'))) {
    const res = await app.inject({ url: asset });
    t.equal(res.statusCode, 200, `${asset} is served`);
    // Preact names the SVG / MathML / XHTML namespaces (w3.org URIs that are never fetched).
    const hosts = [...res.body.matchAll(/https?:\/\/([a-z0-9.-]+)/gi)].map((m) => m[1]!).filter((h) => h !== 'www.w3.org');
    t.same(hosts, [], `${asset} names no other host`);
  }
});

t.test('GET /admin/scenarios lists every bundled scenario, each accepted by PUT /admin/scenario', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ url: '/admin/scenarios' });
  t.equal(res.statusCode, 200);
  const list = res.json() as { name: string; file: string; description?: string; document: { name: string } }[];
  t.same(
    list.map((s) => s.file),
    readdirSync(SCENARIOS_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => `scenarios/${f}`),
  );
  for (const s of list) {
    t.equal(s.document.name, s.name);
    const put = await app.inject({
      method: 'PUT',
      url: '/admin/scenario',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(s.document),
    });
    t.equal(put.statusCode, 200, `${s.name} switches`);
    t.equal(sim.scenario.source.name, s.name);
  }
});

t.test('--admin-token guards the new admin routes, not the page', async (t) => {
  const { app } = await buildTestApp({}, { adminToken: 'tok' });
  t.teardown(() => app.close());
  t.equal((await app.inject({ url: '/ui' })).statusCode, 200, 'the page itself is public (it holds no data)');
  t.equal((await app.inject({ url: '/admin/scenarios' })).statusCode, 401);
  t.equal((await app.inject({ url: '/admin/scenarios', headers: { authorization: 'Bearer tok' } })).statusCode, 200);
});

t.test('the OpenAPI document describes the event stream', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const doc = (await app.inject({ url: '/openapi.json' })).json();
  const op = doc.paths['/admin/events'].get;
  t.equal(op.operationId, 'events');
  t.ok(op.responses['200'].content['text/event-stream'], 'text/event-stream');
  t.match(op.description, /data:/);
  t.notOk(doc.paths['/ui'] ?? doc.paths['/'], 'the page is not an API operation');
});
