import t from 'tap';
import { buildTestApp, example, send } from './helpers/app.js';

t.test('the worked example round', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const r1 = await send(app, example('login.request.json'));
  t.match(r1.body, { code: 'R0', latest_balance: 1000000 });
});
