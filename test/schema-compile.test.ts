// Route schemas are compiled at their first use (src/http/schema-compilers.ts), so a schema that
// does not compile would show only when its route is called. Built eagerly here, as Fastify builds
// them by default, every route's schemas of both apps compile.
import t from 'tap';
import { buildTestApp } from './helpers/app.js';
import { buildHostedTestApp } from './helpers/hosted.js';
import { validator } from '../src/protocol/schemas.js';

t.test('every route schema compiles (single-tenant and hosted apps, compiled at start-up)', async (t) => {
  const { app } = await buildTestApp({}, { eagerSchemas: true });
  t.teardown(() => app.close());
  await t.resolves(async () => void (await app.ready()), 'the single-tenant app');
  const hosted = await buildHostedTestApp({ eagerSchemas: true });
  t.teardown(() => hosted.app.close());
  await t.resolves(async () => void (await hosted.app.ready()), 'the hosted app');
});

t.test('a route compiled at its first use still says why a request is refused', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  for (const round of ['first', 'second']) {
    const res = await app.inject({ method: 'PUT', url: '/admin/players/p1', payload: { balance: -1 } });
    t.equal(res.statusCode, 400, `${round} call`);
    t.match(res.json(), { error: 'BAD_REQUEST', details: [{ pointer: '/balance', message: 'must be >= 0' }] });
  }
  const ok = await app.inject({ method: 'PUT', url: '/admin/players/p1', payload: { balance: 5 } });
  t.equal(ok.statusCode, 200, 'and a valid one passes');
});

t.test("a protocol schema's validator: compiled at its first call, an unknown $id refused at once", async (t) => {
  t.throws(() => validator('NoSuchSchema'), /no schema with \$id NoSuchSchema/);
  const validate = validator('ResultDetail');
  t.equal(validate({}), validate({}), 'the same answer twice');
  t.equal(validate(42), false, 'a number is no result detail');
  t.ok(validate.errors?.length, 'with its reasons');
});
