// Issue 9 item 11: one error table (src/http/errors.ts). No Fastify code (FST_ERR_…) reaches a caller;
// every error names the fix; the 413 of a callback carries Api-Id / Api-Key like every callback reply.
import t from 'tap';
import { API_ERRORS } from '../src/http/errors.js';
import { buildTestApp, HEADERS, journal } from './helpers/app.js';

const LIMIT = 4096;
const json = { 'content-type': 'application/json' };

const cases: {
  name: string;
  method: 'PUT' | 'POST' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  payload?: string;
  status: number;
  error: keyof typeof API_ERRORS;
  message: RegExp;
}[] = [
  {
    name: 'a body over the limit',
    method: 'PUT',
    url: '/admin/players/p',
    headers: json,
    payload: JSON.stringify({ balance: 1, pad: 'x'.repeat(LIMIT) }),
    status: 413,
    error: 'BODY_TOO_LARGE',
    message: /^the body is over the 4096-byte limit; send less or start with --body-limit$/,
  },
  {
    name: 'an empty JSON body',
    method: 'POST',
    url: '/admin/reset',
    headers: json,
    payload: '',
    status: 400,
    error: 'BODY_EMPTY',
    message: /send a JSON document/,
  },
  {
    name: 'a body that is not JSON',
    method: 'PUT',
    url: '/admin/players/p',
    headers: json,
    payload: '{"balance":',
    status: 400,
    error: 'BODY_NOT_JSON',
    message: /not valid JSON.*check the quoting/,
  },
  {
    name: 'a __proto__ key',
    method: 'PUT',
    url: '/admin/players/p',
    headers: json,
    payload: '{"balance":1,"__proto__":{"x":1}}',
    status: 400,
    error: 'BODY_NOT_JSON',
    message: /__proto__/,
  },
  // The admin guard refuses a write that is not JSON before any parser reads it (docs/limits.md: 415 CONTENT_TYPE_NOT_JSON).
  {
    name: 'a Content-Type the API does not read',
    method: 'PUT',
    url: '/admin/scenario',
    headers: { 'content-type': 'application/xml' },
    payload: '<scenario/>',
    status: 415,
    error: 'CONTENT_TYPE_NOT_JSON',
    message: /^admin writes with a body want Content-Type: application\/json, got "application\/xml"; send JSON with -H/,
  },
  {
    name: 'an invalid scenario',
    method: 'PUT',
    url: '/admin/scenario',
    headers: json,
    payload: '{"name":""}',
    status: 400,
    error: 'BAD_REQUEST',
    message: /\/name must NOT have fewer than 1 characters/,
  },
];

t.test('admin errors: our codes from the table, messages that say what to do', async (t) => {
  const { app } = await buildTestApp({}, { bodyLimit: LIMIT });
  t.teardown(() => app.close());
  for (const c of cases) {
    const res = await app.inject({ method: c.method, url: c.url, headers: c.headers, payload: c.payload });
    t.equal(res.statusCode, c.status, `${c.name}: HTTP ${c.status}`);
    const body = res.json();
    t.equal(body.error, c.error, `${c.name}: ${c.error}`);
    t.notMatch(body.error, /^FST_/, `${c.name}: not a Fastify code`);
    t.match(body.message, c.message, `${c.name}: the message`);
    t.equal(API_ERRORS[c.error].status, c.status, `${c.error} has status ${c.status} in the table`);
  }
});

t.test('a callback over the limit: 413 with the limit, Api-Id and Api-Key echoed, journalled', async (t) => {
  const { app } = await buildTestApp({}, { bodyLimit: LIMIT });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: JSON.stringify({ pad: 'x'.repeat(LIMIT) }) });
  t.equal(res.statusCode, 413);
  t.same(res.json(), { error: 'BODY_TOO_LARGE', message: 'the body is over the 4096-byte limit; send less or start with --body-limit' });
  t.equal(res.headers['api-id'], HEADERS['api-id'], 'Api-Id echoed, as on every callback reply');
  t.equal(res.headers['api-key'], HEADERS['api-key'], 'Api-Key echoed');
  t.match(res.headers['x-wallet-sim-reason'], /^BODY_TOO_LARGE: the body is over the 4096-byte limit/);
  const [entry] = await journal(app);
  t.equal(entry.reply.status, 413);
  t.notMatch(JSON.stringify(entry), /sandbox-key/, 'the journal masks the echoed Api-Key');

  const bare = await app.inject({
    method: 'POST',
    url: '/callback',
    headers: { 'content-type': 'application/json' },
    payload: 'x'.repeat(LIMIT + 1),
  });
  t.equal(bare.headers['api-id'], '', 'absent: empty, as on every callback reply');
  t.equal(bare.headers['api-key'], '');
});

t.test("a callback over the limit with the scenario's reply_credentials", async (t) => {
  const { app } = await buildTestApp({ reply_credentials: { api_id: 'wallet', api_key: 'wallet-key' } }, { bodyLimit: LIMIT });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: 'x'.repeat(LIMIT + 1) });
  t.equal(res.statusCode, 413);
  t.same([res.headers['api-id'], res.headers['api-key']], ['wallet', 'wallet-key']);
});

t.test('a request no route takes: NOT_FOUND naming the method and path, and where the routes are listed', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  for (const [method, url, path] of [
    ['GET', '/x?y=1', '/x'],
    ['DELETE', '/health', '/health'],
    ['GET', '/admin/nope', '/admin/nope'],
  ] as const) {
    const res = await app.inject({ method, url });
    t.equal(res.statusCode, 404, `${method} ${url}: 404`);
    t.same(res.json(), { error: 'NOT_FOUND', message: `no route ${method} ${path}: the routes are listed at /docs` });
    t.equal(API_ERRORS.NOT_FOUND.status, 404);
  }
});

t.test('an unknown player: PLAYER_UNKNOWN from the table, saying how to create it', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'GET', url: '/admin/players/nobody' });
  t.equal(res.statusCode, API_ERRORS.PLAYER_UNKNOWN.status);
  t.same(res.json(), { error: 'PLAYER_UNKNOWN', message: 'no player nobody: create it with PUT /admin/players/nobody' });
});
