// request.log is made when a request first logs at an enabled level (src/lazy-logger.ts): the lines
// are the same as Fastify's own per-request child would write, with the request id.
import { Writable } from 'node:stream';
import t from 'tap';
import { lazyChildLogger } from '../src/lazy-logger.js';
import { buildTestApp, HEADERS, login } from './helpers/app.js';

/** A logger stream that keeps each line, parsed. */
function lines(): { stream: Writable; seen: Record<string, unknown>[] } {
  const seen: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) seen.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { stream, seen };
}

t.test("at info, a callback's line carries its request id", async (t) => {
  const { stream, seen } = lines();
  const { app } = await buildTestApp({}, { logger: { level: 'info', stream } });
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: login('p1') });
  t.equal(res.json().code, 'R0');
  const line = seen.find((l) => l.code === 'R0');
  t.ok(line, 'the callback is logged');
  t.match(line, { level: 30, reqId: /^req-/, user_id: 'p1', event_type: 'login', msg: 'R0' });
});

t.test('at warn, a request that logs nothing makes no child; one that logs an error has its request id', async (t) => {
  const { stream, seen } = lines();
  const { app } = await buildTestApp({}, { logger: { level: 'warn', stream } });
  t.teardown(() => app.close());
  await app.ready();
  let children = 0;
  const parent = app.log;
  const counting = Object.create(parent) as typeof parent;
  counting.child = (bindings, options) => {
    children++;
    return parent.child(bindings, options);
  };
  const quiet = lazyChildLogger(counting, { reqId: 'req-a' }, {});
  quiet.info({ code: 'R0' }, 'R0');
  quiet.debug('nothing');
  t.equal(children, 0, 'no child for lines below the level');
  t.equal(seen.length, 0, 'and no line');
  t.equal(quiet.level, 'warn', 'its level is the parent’s');

  const loud = lazyChildLogger(counting, { reqId: 'req-b' }, {});
  loud.error({ detail: 1 }, 'it failed');
  loud.warn('and warned');
  t.equal(children, 1, 'one child, made at its first line');
  t.match(seen, [
    { level: 50, reqId: 'req-b', detail: 1, msg: 'it failed' },
    { level: 40, reqId: 'req-b', msg: 'and warned' },
  ]);

  const res = await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: login('p2') });
  t.equal(res.json().code, 'R0', 'a callback is answered as before');
  t.equal(seen.length, 2, 'and logs nothing at warn');
});

t.test("a child made with its own level (a route's logLevel) logs at that level", async (t) => {
  const { stream, seen } = lines();
  const { app } = await buildTestApp({}, { logger: { level: 'warn', stream } });
  t.teardown(() => app.close());
  await app.ready();
  const child = lazyChildLogger(app.log, { reqId: 'req-c' }, { level: 'debug' });
  t.equal(child.level, 'debug');
  child.debug('shown');
  t.match(seen, [{ level: 20, reqId: 'req-c', msg: 'shown' }]);
});
