// A callback reply is HTTP 200 whatever the body's label (docs/routes.md): a Content-Type that is no
// media type at all gets R3 like a wrong one, by the route (inject) and the callback lane (a socket) alike.
import t from 'tap';
import { buildTestApp, HEADERS, journal, listen, login, post, send } from './helpers/app.js';

const LABELS = ['json', '', 'application/json charset=utf-8'];

t.test('a Content-Type that is no media type: R3 with HTTP 200, echoed, CONTENT_TYPE_WRONG naming it', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const url = `${await listen(app)}/callback`;
  for (const label of LABELS) {
    for (const [by, sent] of [
      ['route', (body: object) => send(app, body, { ...HEADERS, 'content-type': label })],
      ['lane', (body: object) => post(url, JSON.stringify(body), { ...HEADERS, 'content-type': label })],
    ] as const) {
      const req = login('player-1');
      const res = await sent(req);
      t.equal(res.status, 200, `${by} ${JSON.stringify(label)}: HTTP 200`);
      t.match(res.body, { code: 'R3', event_type: 'login', user_id: 'player-1' }, `${by} ${JSON.stringify(label)}: R3, echoed`);
      const [entry] = await journal(app, { transaction_id: req.transaction_id });
      t.match(entry.findings, [{ code: 'CONTENT_TYPE_WRONG', pointer: 'header:Content-Type' }]);
      t.match(entry.findings[0].message, label ? `Content-Type is ${JSON.stringify(label.toLowerCase())}` : 'Content-Type is empty');
      t.equal(entry.request.headers['content-type'], label, 'journalled as sent');
    }
  }
});

t.test('a refusal before the pipeline (413) journals the request headers, the Api-Key masked', async (t) => {
  const { app } = await buildTestApp({}, { bodyLimit: 100 });
  t.teardown(() => app.close());
  const res = await send(app, { ...login('player-1'), pad: 'x'.repeat(200) });
  t.equal(res.status, 413);
  const [entry] = await journal(app);
  t.equal(entry.request.headers['api-id'], HEADERS['api-id']);
  t.equal(entry.request.headers['callback-url'], HEADERS['callback-url']);
  t.not(entry.request.headers['api-key'], HEADERS['api-key'], 'masked');
  t.ok(entry.request.headers['api-key'], 'masked, not dropped');
});
