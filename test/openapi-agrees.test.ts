// Issue 9 items 3, 4, 5 and 7: the published document agrees with what the simulator does, and
// shows a caller what it needs. (test/prism.test.ts runs the same document through Prism's proxy.)
import t from 'tap';
import { API_ERRORS } from '../src/http/errors.js';
import { MATCH_FIELDS } from '../src/journal/match-text.js';
import { buildTestApp, HEADERS, journal, login, send } from './helpers/app.js';

type Json = Record<string, any>;

async function served(options: Parameters<typeof buildTestApp>[1] = {}, url = '/openapi.json') {
  const { app, sim } = await buildTestApp({}, options);
  t.teardown(() => app.close());
  await app.ready();
  const doc = async () => JSON.parse((await app.inject({ method: 'GET', url })).body) as Json;
  return { app, sim, doc };
}

const statuses = (doc: Json, path: string, method: string) => Object.keys(doc.paths[path][method].responses);

t.test('item 3: Callback-URL is optional, and missing it is R0 plus a warning', async (t) => {
  const { app, doc } = await served();
  const param = (await doc()).paths['/callback'].post.parameters.find((p: Json) => p.name === 'Callback-URL');
  t.equal(param.required, false, 'documented as optional');
  t.match(param.description, /Optional\..*R0.*warning finding CALLBACK_URL_MISSING/);
  const { 'callback-url': _omitted, ...headers } = HEADERS;
  const reply = await send(app, login('player-1'), headers);
  t.equal(reply.body.code, 'R0', 'the behaviour the document describes');
  t.equal(reply.headers['callback-url'], '', 'the login reply echoes an empty Callback-URL');
  t.match((await journal(app))[0].findings, [{ code: 'CALLBACK_URL_MISSING', severity: 'warning' }]);
});

t.test('item 4: every status a route can answer is documented', async (t) => {
  const { doc } = await served({ adminToken: 'tok' });
  const d = await doc();
  const expected: Record<string, string[]> = {
    'post /callback': ['200', '413', '503', 'default'],
    'get /health': ['200', '503'],
    'get /admin/players': ['200', '401', '403', '503'],
    'get /admin/players/{user_id}': ['200', '401', '403', '404', '503'],
    'put /admin/players/{user_id}': ['200', '400', '401', '403', '409', '413', '415', '503'],
    'post /admin/reset': ['200', '400', '401', '403', '413', '415', '503'],
    'get /admin/journal': ['200', '400', '401', '403', '503'],
    'get /admin/ledger': ['200', '400', '401', '403', '503'],
    'delete /admin/journal': ['204', '400', '401', '403', '413', '415', '503'],
    'get /admin/scenario': ['200', '401', '403', '503'],
    'get /admin/scenario/rules': ['200', '401', '403', '503'],
    'put /admin/scenario': ['200', '400', '401', '403', '413', '415', '503'],
    // the admin guard stands in front of these too (they once listed only their own statuses)
    'get /admin/report': ['200', '400', '401', '403', '404', '503'],
    'get /admin/scenarios': ['200', '401', '403', '503'],
    'get /admin/events': ['200', '400', '401', '403', '503'],
  };
  for (const [op, want] of Object.entries(expected)) {
    const [method, path] = op.split(' ');
    t.same(statuses(d, path!, method!).sort(), want, op);
    for (const status of want.filter((s) => /^[45]/.test(s))) {
      const media = d.paths[path!][method!].responses[status].content?.['application/json'];
      if (op !== 'get /health') t.same(media?.schema, { $ref: '#/components/schemas/ApiError' }, `${op} ${status} is an ApiError`);
    }
  }
  // Without --admin-token there is no 401.
  const open = await (await served()).doc();
  t.notOk(open.paths['/admin/players'].get.responses['401'], 'no 401 while the admin API is open');
});

t.test('item 4: what the routes answer is what the document lists (error codes from the table)', async (t) => {
  const { app, doc } = await served({ bodyLimit: 2048 });
  const d = await doc();
  const cases: {
    method: 'GET' | 'PUT' | 'POST' | 'DELETE';
    url: string;
    path: string;
    headers?: Record<string, string>;
    payload?: string;
    status: number;
  }[] = [
    { method: 'GET', url: '/admin/journal?limit=abc', path: '/admin/journal', status: 400 },
    { method: 'GET', url: '/admin/journal?replayed=yes', path: '/admin/journal', status: 400 },
    { method: 'GET', url: '/admin/journal?status=R3', path: '/admin/journal', status: 400 },
    { method: 'GET', url: '/admin/ledger?format=xml', path: '/admin/ledger', status: 400 },
    { method: 'GET', url: '/admin/ledger?user=p', path: '/admin/ledger', status: 400 },
    { method: 'GET', url: '/admin/events?code=R9', path: '/admin/events', status: 400 },
    { method: 'GET', url: '/admin/players/nobody', path: '/admin/players/{user_id}', status: 404 },
    { method: 'GET', url: '/admin/report?signed=true', path: '/admin/report', status: 404 },
    { method: 'GET', url: '/admin/report?signed=maybe', path: '/admin/report', status: 400 },
    {
      method: 'PUT',
      url: '/admin/players/p',
      path: '/admin/players/{user_id}',
      headers: { 'content-type': 'application/json' },
      payload: '{"balance":-1}',
      status: 400,
    },
    {
      method: 'PUT',
      url: '/admin/players/p',
      path: '/admin/players/{user_id}',
      headers: { 'content-type': 'text/csv' },
      payload: 'balance,1',
      status: 415,
    },
    {
      method: 'POST',
      url: '/admin/reset',
      path: '/admin/reset',
      headers: { 'content-type': 'application/json' },
      payload: '',
      status: 400,
    },
    {
      method: 'PUT',
      url: '/admin/scenario',
      path: '/admin/scenario',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x', pad: 'x'.repeat(4096) }),
      status: 413,
    },
    { method: 'POST', url: '/callback', path: '/callback', headers: HEADERS, payload: 'x'.repeat(4096), status: 413 },
  ];
  for (const c of cases) {
    const res = await app.inject({ method: c.method, url: c.url, headers: c.headers, payload: c.payload });
    t.equal(res.statusCode, c.status, `${c.method} ${c.url}: ${c.status}`);
    const documented = d.paths[c.path][c.method.toLowerCase()].responses[String(c.status)];
    t.ok(documented, `${c.method} ${c.path} documents ${c.status}`);
    t.ok(Object.keys(API_ERRORS).includes(res.json().error), `${res.json().error} is a code of the table`);
  }
});

t.test("the journal routes' query parameters are the filter language, and every documented value is accepted", async (t) => {
  const { app, doc } = await served();
  const d = await doc();
  const language = Object.keys(MATCH_FIELDS);
  const routes: [string, string[]][] = [
    ['/admin/journal', [...language, 'after', 'limit']],
    ['/admin/events', [...language, 'grading']],
  ];
  for (const [path, names] of routes) {
    const parameters = d.paths[path].get.parameters as Json[];
    t.same(
      parameters.map((p) => p.name),
      names,
      `${path}: the parameters`,
    );
    t.ok(
      parameters.every((p) => p.in === 'query' && p.required === false && p.description),
      `${path}: optional, in the query, described`,
    );
  }
  for (const p of d.paths['/admin/journal'].get.parameters as Json[]) {
    const values: string[] = p.schema.enum ?? [p.schema.pattern ? '3' : 'anything'];
    for (const value of values) {
      const res = await app.inject({ method: 'GET', url: '/admin/journal', query: { [p.name]: value } });
      t.equal(res.statusCode, 200, `?${p.name}=${value}: 200 as documented`);
    }
  }
});

t.test('item 5: /openapi.json gives the callback headers example values from the active scenario', async (t) => {
  const { app, sim, doc } = await served();
  const examples = async () => Object.fromEntries((await doc()).paths['/callback'].post.parameters.map((p: Json) => [p.name, p.example]));
  // Callback-URL: the simulator that served the document (the Host asked; inject's is localhost:80), never a fixed port
  t.same(await examples(), { 'Api-Id': 'sandbox', 'Api-Key': 'sandbox-key', 'Callback-URL': 'http://localhost:80/callback' });
  const put = await app.inject({
    method: 'PUT',
    url: '/admin/scenario',
    payload: { ...sim.scenario.source, credentials: { api_id: 'ci-id', api_key: 'ci-key' } },
  });
  t.equal(put.statusCode, 200);
  t.match(await examples(), { 'Api-Id': 'ci-id', 'Api-Key': 'ci-key' }, 'the active scenario, not the one at start');

  const locked = await served({ adminToken: 'tok' });
  const lockedExamples = Object.fromEntries((await locked.doc()).paths['/callback'].post.parameters.map((p: Json) => [p.name, p.example]));
  t.equal(lockedExamples['Api-Id'], undefined, 'with --admin-token: no credentials in the document');
  t.equal(lockedExamples['Api-Key'], undefined);
});

t.test('item 7: components are what a caller sends or gets; CallbackRequest is a oneOf with a discriminator', async (t) => {
  const { doc } = await served();
  const d = await doc();
  t.same(Object.keys(d.components.schemas).sort(), [
    'ApiError',
    'BetRequest',
    'BetResultRequest',
    'CallbackReply',
    'CallbackRequest',
    'DsseEnvelope',
    'Health',
    'JournalEntry',
    'JournalPage',
    'LedgerRow',
    'LoginRequest',
    'Player',
    'PlayerUpdate',
    'Report',
    'ReportStatement',
    'ResultDetail',
    'RuleHits',
    'Scenario',
    'SignedReport',
  ]);
  const text = JSON.stringify(d);
  for (const internal of ['Expectations', 'JournalMatch', 'Envelope', 'Scenario-rule', 'ResultDetail-card'])
    t.notMatch(text, `#/components/schemas/${internal}`, `no reference to ${internal}`);
  const cr = d.components.schemas.CallbackRequest;
  t.same(Object.keys(cr).sort(), ['description', 'discriminator', 'oneOf', 'title'], 'a pure oneOf: no object | (…)');
  t.same(
    d.components.schemas.BetResultRequest.properties.data.properties.result_detail.contentSchema,
    { $ref: '#/components/schemas/ResultDetail' },
    'result_detail names the document it holds',
  );
  t.equal(d.components.schemas.Scenario.properties.rules.items.title, 'Rule', "Scenario's rule is written in place");

  const ui = await (await served({}, '/docs/json')).doc();
  t.same(
    ui.components.schemas.CallbackRequest.oneOf.map((b: Json) => b.type),
    ['object', 'object', 'object'],
    'Swagger UI shows each branch as an object at once',
  );
});

t.test('item 7: the 413 examples are real bodies naming the limit', async (t) => {
  const { doc } = await served({ bodyLimit: 4096 });
  const d = await doc();
  const callback413 = d.paths['/callback'].post.responses['413'];
  t.same(callback413.content['application/json'].examples.BODY_TOO_LARGE.value, {
    error: 'BODY_TOO_LARGE',
    message: 'the body is over the 4096-byte limit; send less or start with --body-limit',
  });
  t.same(Object.keys(callback413.headers).sort(), ['Api-Id', 'Api-Key', 'X-Wallet-Sim-Reason']);
  t.match(
    d.paths['/admin/scenario'].put.responses['413'].content['application/json'].examples.BODY_TOO_LARGE.value.message,
    /4096-byte limit/,
  );
});

t.test('item 7: the Swagger UI page has a wallet-sim title and no Explore box', async (t) => {
  const { app } = await served();
  const page = await app.inject({ method: 'GET', url: '/docs/' });
  t.match(page.body, /<title>wallet-sim · API<\/title>/);
  t.match(page.body, /theme\/wallet-sim\.css/);
  const css = await app.inject({ method: 'GET', url: '/docs/static/theme/wallet-sim.css' });
  t.match(css.body, /\.topbar \.download-url-wrapper \{ display: none; \}/);
  const init = (await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })).body;
  const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init);
  t.ok(logo, 'the top bar shows our title image');
  t.match(Buffer.from(logo![1]!, 'base64').toString(), />wallet-sim</);
});

t.test('item 6: docs/openapi.md describes the served documents as they are', async (t) => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('../src/kernel/paths.js');
  const text = readFileSync(join(ROOT, 'docs/openapi.md'), 'utf8');
  const row = text.split('\n').find((l) => l.startsWith('| The document (JSON) | `GET /openapi.json`'))!;
  t.notMatch(row, /Server `\/`/, '/openapi.json is not said to have the relative server');
  t.match(row, /absolute/);
  const { doc } = await served();
  t.match((await doc()).servers, [{ url: /^http:\/\/localhost:80$/ }], 'and it is absolute');
  const postman = text.slice(text.indexOf('## Import into Postman'), text.indexOf('## Tests'));
  t.match(postman, /Do \*\*not\*\* import `\/docs\/json`/);
  t.notMatch(postman, /Or import `http:\/\/127\.0\.0\.1:8080\/docs\/json` instead/, 'the old advice is gone');
  const ui = await (await served({}, '/docs/json')).doc();
  t.same(ui.servers, [{ url: '/', description: 'This simulator' }], '/docs/json is relative, as the page says');
});

t.test('proxy mode: GET /health with its upstream agrees with the document, tried or not', async (t) => {
  const { Ajv } = await import('ajv');
  const { ajvOptions } = await import('../src/protocol/schemas.js');
  const { createServer } = await import('node:net');
  const dead = createServer();
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  const { port } = dead.address() as { port: number };
  await new Promise<void>((resolve) => dead.close(() => resolve()));
  const { app, doc } = await served({ upstream: { url: `http://127.0.0.1:${port}/callback`, timeoutMs: 5_000 } });
  const copy = structuredClone(await doc());
  delete copy.components.schemas.CallbackRequest.discriminator.mapping; // (as in openapi.test.ts: ajv refuses it)
  copy.$id = 'openapi.json';
  const ajv = new Ajv(ajvOptions);
  ajv.addSchema(copy);
  const health = ajv.compile({ $ref: 'openapi.json#/components/schemas/Health' });
  const before = (await app.inject({ url: '/health' })).json();
  t.ok(health(before), 'not tried yet', { errors: health.errors });
  t.same(before.upstream.reachable, null);
  const { listen, post } = await import('./helpers/app.js');
  await t.rejects(post(`${await listen(app)}/callback`, login('p1')), 'refused upstream: the connection closed without a reply');
  const after = (await app.inject({ url: '/health' })).json();
  t.ok(health(after), 'after a refused forward', { errors: health.errors });
  t.match(after.upstream, { reachable: false, last_error: /connection refused/ });
});
