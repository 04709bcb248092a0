import { validate } from '@readme/openapi-parser';
import { Ajv } from 'ajv';
import t from 'tap';
import { EVENT_SCHEMAS } from '../src/routes/callback-docs.js';
import { CODES } from '../src/protocol/seed/codes.js';
import { ajvOptions, schemas, validator } from '../src/protocol/schemas.js';
import { buildTestApp, CREDENTIALS, example, HEADERS, send } from './helpers/app.js';

type Json = Record<string, any>;

async function documentOf(options: Parameters<typeof buildTestApp>[1] = {}) {
  const { app, sim } = await buildTestApp({}, options);
  await app.ready();
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  await app.close();
  return { doc: JSON.parse(res.body) as Json, status: res.statusCode, sim };
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const pointer = (path: readonly string[]) => `#/${path.map(escape).join('/')}`;
function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, key) => (node !== null && typeof node === 'object' ? node[key] : undefined), doc);
}

/** Every value under the document with its path, skipping example data (it is not document structure). */
function* walk(node: unknown, path: string[] = []): Generator<[unknown, string[]]> {
  yield [node, path];
  if (node === null || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'examples') continue;
    yield* walk(v, [...path, k]);
  }
}

const operations = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([url, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ url, method, op: op as Json })),
  );

t.test('the document is a valid OpenAPI 3.1 description', async (t) => {
  const { doc, status } = await documentOf();
  t.equal(status, 200);
  t.equal(doc.openapi, '3.1.0');
  const result = await validate(structuredClone(doc) as never);
  t.same(result.valid ? [] : (result as { errors: unknown[] }).errors, [], 'no validation errors');
  t.ok(result.valid, 'valid per @readme/openapi-parser');
  t.same(
    doc.servers,
    [{ url: 'http://localhost:80' }],
    'an absolute server: the simulator serving the document (inject host localhost:80)',
  );
});

t.test('components are named by $id (never def-N) and every $ref resolves', async (t) => {
  const { doc } = await documentOf();
  const names = Object.keys(doc.components.schemas);
  const ids = schemas.map((s) => s.$id);
  // Issue 9 item 7: only what a caller sends or gets is a component; Envelope is written in place,
  // Expectations (a file of `wallet-sim verify`, no HTTP body) is not in the document; JournalMatch
  // (the journal's filter language) is there as the query parameters of the journal routes.
  // The tenants' schemas are in the hosted document only (test/hosted/openapi.test.ts).
  const internal = ['Envelope', 'Expectations', 'JournalMatch', 'TenantCreate', 'TenantCreated', 'Tenant'];
  for (const id of ids.filter((i) => !internal.includes(i))) t.ok(names.includes(id), `component ${id}`);
  for (const id of internal) t.notOk(names.includes(id), `${id} is not listed`);
  for (const name of names) {
    t.notMatch(name, /^def-\d+$/, `${name} is not an anonymous def-N`);
    const [owner, definition] = name.split(/-(.*)/s);
    t.ok(ids.includes(owner!), `${name} belongs to schema ${owner}`);
    if (definition !== undefined) {
      const defs = (schemas.find((s) => s.$id === owner)!.definitions ?? {}) as Json;
      t.ok(definition in defs, `${name} is ${owner}'s definitions/${definition}`);
    }
  }
  let refs = 0;
  for (const [node, path] of walk(doc)) {
    if (path.at(-1) === '$ref') {
      refs++;
      t.not(resolvePointer(doc, node as string), undefined, `${pointer(path)} → ${String(node)} resolves`);
    }
    if (path.at(-2) === 'mapping' && path.at(-3) === 'discriminator') {
      t.not(resolvePointer(doc, node as string), undefined, `mapping ${pointer(path)} → ${String(node)} resolves`);
    }
  }
  t.ok(refs > 20, `${refs} refs checked`);
});

t.test('the callback operation: a body discriminated by event_type, headers, reply, named examples', async (t) => {
  const { doc } = await documentOf();
  const op = doc.paths['/callback'].post;
  t.equal(op.operationId, 'callback');
  const media = op.requestBody.content['application/json'];
  t.same(media.schema, { $ref: '#/components/schemas/CallbackRequest' });
  const body = doc.components.schemas.CallbackRequest;
  t.same(
    body.oneOf,
    EVENT_SCHEMAS.map(({ id }) => ({ $ref: `#/components/schemas/${id}` })),
  );
  t.same(body.discriminator, {
    propertyName: 'event_type',
    mapping: {
      login: '#/components/schemas/LoginRequest',
      bet: '#/components/schemas/BetRequest',
      bet_result: '#/components/schemas/BetResultRequest',
    },
  });

  t.same(Object.keys(media.examples), ['login', 'bet', 'bet_result'], 'one named example per event');
  for (const event of ['login', 'bet', 'bet_result']) {
    // Its timestamp is the time the document is written out (sent as is, it is not stale).
    const { timestamp, ...value } = media.examples[event].value;
    const { timestamp: _worked, ...worked } = example(`${event}.request.json`);
    t.same(value, worked, `${event} example is test/fixtures/${event}.request.json`);
    t.ok(Math.abs(timestamp - Date.now() / 1000) < 60, `${event} example: a timestamp of now`);
    t.match(media.examples[event].summary, new RegExp(`^${event}: `));
  }

  const headers = Object.fromEntries((op.parameters as Json[]).filter((p) => p.in === 'header').map((p) => [p.name, p.required]));
  t.same(headers, { 'Api-Id': true, 'Api-Key': true, 'Callback-URL': false }, 'request headers (Callback-URL optional: issue 9 item 3)');

  const ok = op.responses['200'];
  t.same(Object.keys(ok.headers).sort(), ['Api-Id', 'Api-Key', 'Callback-URL', 'X-Wallet-Sim-Reason']);
  t.match(ok.headers['Callback-URL'].description, /login and bet_result/);
  t.match(ok.headers['X-Wallet-Sim-Reason'].description, /non-R0/);
  const reply = ok.content['application/json'];
  t.same(reply.schema, { $ref: '#/components/schemas/CallbackReply' });
  t.same(Object.keys(reply.examples), Object.keys(CODES), 'one named example per reply code');
  for (const [code, ex] of Object.entries(reply.examples as Json)) {
    t.equal(ex.value.code, code);
    t.match(ex.summary, `${code} ${CODES[code as keyof typeof CODES]}`);
  }
  t.same(reply.examples.R0.value, example('reply.R0.json'));
  t.same(reply.examples.R4.value, example('reply.R4.json'));
  t.ok(op.responses['413'] && op.responses.default, 'the 413 and forced-status replies are described');
});

t.test('every example validates against its own schema', async (t) => {
  const { doc } = await documentOf({ adminToken: 'secret' });
  const copy = structuredClone(doc);
  delete copy.components.schemas.CallbackRequest.discriminator.mapping; // ajv refuses mapping; it adds nothing to validation
  copy.$id = 'openapi.json';
  const ajv = new Ajv(ajvOptions);
  ajv.addSchema(copy);
  const check = (schemaPath: string[], value: unknown, where: string) => {
    const fn = ajv.compile({ $ref: `openapi.json${pointer(schemaPath)}` });
    t.ok(fn(value), `${where} validates against ${pointer(schemaPath)}`, { errors: fn.errors });
    const ref = resolvePointer(doc, pointer(schemaPath)) as Json;
    const id = typeof ref?.$ref === 'string' ? ref.$ref.replace('#/components/schemas/', '') : undefined;
    if (id && schemas.some((s) => s.$id === id)) {
      const source = validator(id);
      t.ok(source(value), `${where} validates against schemas/ ${id}`, { errors: source.errors });
    }
  };

  let count = 0;
  const visit = (node: unknown, path: string[]) => {
    if (node === null || typeof node !== 'object') return;
    const n = node as Json;
    if ('schema' in n && n.examples && !Array.isArray(n.examples)) {
      for (const [name, ex] of Object.entries(n.examples as Json)) {
        check([...path, 'schema'], ex.value, `${pointer(path)} example ${name}`);
        count++;
      }
    }
    if ('schema' in n && 'example' in n) {
      check([...path, 'schema'], n.example, `${pointer(path)} example`);
      count++;
    }
    if (path[0] === 'components' && path[1] === 'schemas' && Array.isArray(n.examples)) {
      n.examples.forEach((ex: unknown, i: number) => {
        check(path, ex, `${pointer(path)} examples/${i}`);
        count++;
      });
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'examples' && k !== 'example') visit(v, [...path, k]);
  };
  visit(doc, []);
  t.ok(count >= 3 + 5 + 2 + 1, `${count} examples checked`);
});

t.test('the examples are real: the worked round through the simulator gives the documented replies', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  await app.ready();
  const doc = app.swagger() as Json;
  const op = doc.paths['/callback'].post;
  const requests = op.requestBody.content['application/json'].examples;
  const replies = op.responses['200'].content['application/json'].examples;
  const balances = { login: 1000000, bet: 985000, bet_result: 1005000 };
  for (const [event, balance] of Object.entries(balances)) {
    const r = await send(app, requests[event].value);
    t.match(r.body, { code: 'R0', event_type: event, user_id: 'player-1', latest_balance: balance }, `${event} example → R0 ${balance}`);
    t.equal(r.headers['api-id'], CREDENTIALS['api-id']);
    t.equal(r.headers['api-key'], CREDENTIALS['api-key']);
    t.equal(r.headers['callback-url'], event === 'bet' ? undefined : HEADERS['callback-url'], 'Callback-URL on login and bet_result only');
    t.equal(r.headers['x-wallet-sim-reason'], undefined, 'no reason on R0');
    if (event === 'bet_result') t.same({ ...r.body, timestamp: 0 }, { ...replies.R0.value, timestamp: 0 }, 'the R0 example is this reply');
  }
  const r2 = await send(app, requests.login.value, { ...HEADERS, 'api-key': 'wrong' });
  t.match(r2.body, { code: 'R2', event_type: 'login' });
  t.match(r2.headers['x-wallet-sim-reason'], /^R2/, 'a non-R0 reply carries X-Wallet-Sim-Reason');
});

t.test('admin and health routes are documented', async (t) => {
  const { doc } = await documentOf();
  const ops = operations(doc);
  t.same(
    ops.map((o) => `${o.method.toUpperCase()} ${o.url}`).sort(),
    [
      'DELETE /admin/journal',
      'GET /admin/events',
      'GET /admin/journal',
      'GET /admin/ledger',
      'GET /admin/players',
      'GET /admin/players/{user_id}',
      'GET /admin/report',
      'GET /admin/scenario',
      'GET /admin/scenario/rules',
      'GET /admin/scenarios',
      'GET /health',
      'POST /admin/reset',
      'POST /callback',
      'PUT /admin/players/{user_id}',
      'PUT /admin/scenario',
    ],
    'every route and nothing else (/openapi.json and /docs are hidden)',
  );
  const ids = new Set<string>();
  for (const { url, method, op } of ops) {
    const name = `${method.toUpperCase()} ${url}`;
    t.ok(op.summary, `${name} has a summary`);
    t.ok(op.operationId && !ids.has(op.operationId), `${name} has a unique operationId`);
    ids.add(op.operationId);
    t.ok(op.tags?.length, `${name} is tagged`);
    for (const [status, res] of Object.entries(op.responses as Json)) {
      t.not(res.description, 'Default Response', `${name} ${status} has a real description`);
    }
    const success = Object.keys(op.responses).find((s) => s.startsWith('2'));
    t.ok(success, `${name} documents its success`);
    if (success !== '204' && op.operationId !== 'callback')
      t.ok(
        op.responses[success!].content?.[url === '/admin/events' ? 'text/event-stream' : 'application/json']?.schema,
        `${name} ${success} has a body schema`,
      );
    if (url.includes('{user_id}')) t.match(op.parameters, [{ in: 'path', name: 'user_id', required: true }], `${name} documents user_id`);
  }
  const players = doc.paths['/admin/players/{user_id}'];
  t.same(players.put.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/PlayerUpdate' });
  t.ok(players.put.requestBody.content['application/json'].examples, 'PUT players has examples');
  t.same(doc.paths['/admin/scenario'].put.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/Scenario' });
  t.match(
    doc.paths['/admin/journal'].get.parameters.map((p: Json) => p.name),
    ['user_id', 'event_type', 'game_no', 'table_no', 'transaction_id', 'code', 'replayed', 'rule', 'after', 'limit'],
  );
  t.equal(doc.paths['/admin/players'].get.security, undefined, 'no security while the admin API is open');
  const ledger = doc.paths['/admin/ledger'].get;
  t.same(Object.keys(ledger.responses['200'].content).sort(), ['application/json', 'text/csv'], 'the ledger: JSON or CSV');
  t.same(ledger.responses['200'].content['application/json'].schema, { type: 'array', items: { $ref: '#/components/schemas/LedgerRow' } });
  t.same(Object.keys(ledger.responses['200'].headers).sort(), ['X-Ledger-Complete', 'X-Ledger-Complete-From']);
  t.match(
    ledger.parameters.map((p: Json) => p.name),
    ['user_id', 'format'],
  );
});

t.test('with --admin-token the admin routes require bearer auth and the document still validates', async (t) => {
  const { doc } = await documentOf({ adminToken: 'secret' });
  t.same(doc.components.securitySchemes.bearer, {
    type: 'http',
    scheme: 'bearer',
    description: doc.components.securitySchemes.bearer.description,
  });
  for (const { url, op } of operations(doc).filter((o) => o.url.startsWith('/admin'))) {
    t.same(op.security, [{ bearer: [] }], `${url} wants the bearer token`);
    t.ok(op.responses['401'], `${url} documents 401`);
  }
  t.ok((await validate(structuredClone(doc) as never)).valid);
});

t.test('a custom callback path is what the document names', async (t) => {
  const { doc } = await documentOf({ path: '/wallet/cb' });
  t.ok(doc.paths['/wallet/cb']?.post, 'POST /wallet/cb');
  t.notOk(doc.paths['/callback']);
});

t.test('Swagger UI gets the document with the active credentials pre-filled', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const examples = async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/json', headers: { host: '127.0.0.1:4321' } });
    const op = JSON.parse(res.body).paths['/callback'].post;
    return Object.fromEntries((op.parameters as Json[]).map((p) => [p.name, p.example]));
  };
  t.same(await examples(), { 'Api-Id': 'sandbox', 'Api-Key': 'sandbox-key', 'Callback-URL': 'http://127.0.0.1:4321/callback' });

  // Issue 9 item 5: /openapi.json carries the credentials too (an imported Postman collection must not send <string>).
  // …and the Callback-URL of the simulator that served it (it once said port 8080 whatever the port)
  const served = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json', headers: { host: '127.0.0.1:4321' } })).body);
  t.same(
    (served.paths['/callback'].post.parameters as Json[]).map((p) => p.example),
    ['sandbox', 'sandbox-key', 'http://127.0.0.1:4321/callback'],
    '/openapi.json: the active credentials and this simulator as examples',
  );

  const put = await app.inject({
    method: 'PUT',
    url: '/admin/scenario',
    payload: { ...sim.scenario.source, credentials: { api_id: 'id2', api_key: 'key2' } },
  });
  t.equal(put.statusCode, 200);
  t.match(await examples(), { 'Api-Id': 'id2', 'Api-Key': 'key2' }, 'read per request: a new scenario shows at once');

  const yaml = await app.inject({ method: 'GET', url: '/docs/yaml' });
  t.match(yaml.body, /example: key2/);
});

t.test('with --admin-token the docs do not hand out the credentials', async (t) => {
  const { app } = await buildTestApp({}, { adminToken: 'secret' });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/docs/json' });
  const op = JSON.parse(res.body).paths['/callback'].post;
  const byName = Object.fromEntries((op.parameters as Json[]).map((p) => [p.name, p.example]));
  t.equal(byName['Api-Id'], undefined);
  t.equal(byName['Api-Key'], undefined);
  t.match(byName['Callback-URL'], /\/callback$/, 'the callback address is still filled in');
});

t.test('Swagger UI and its assets are served locally', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const page = await app.inject({ method: 'GET', url: '/docs' });
  const html = page.statusCode === 200 ? page.body : (await app.inject({ method: 'GET', url: page.headers.location as string })).body;
  t.match(html, /swagger-ui-bundle\.js/);
  t.notMatch(html, /https?:\/\//, 'the page names no remote URL');
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-initializer.js', 'swagger-ui.css']) {
    const res = await app.inject({ method: 'GET', url: `/docs/static/${asset}` });
    t.equal(res.statusCode, 200, `/docs/static/${asset}`);
  }
  const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  t.match(init.body, /validatorUrl: null/, 'no online validator badge');
});
