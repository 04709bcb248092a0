// The verdict reaches the dashboard over the event stream: `event: grading` when it changes (and
// when a new session begins), only for a stream that asked for it, over a real socket.
import t from 'tap';
import { bet, buildTestApp, HEADERS, listen, login, post } from '../helpers/app.js';

/** Collects the stream's events as [type, data] pairs. */
function collect(body: ReadableStream<Uint8Array>) {
  const events: [string, any][] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of body) {
      text += decoder.decode(chunk, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const lines = text.slice(0, end).split('\n');
        text = text.slice(end + 2);
        const type = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
        const data = lines.find((l) => l.startsWith('data: '));
        if (data) events.push([type, JSON.parse(data.slice(6))]);
      }
    }
  })().catch(() => {});
  return events;
}

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end && !check()) await new Promise((r) => setTimeout(r, 20));
  return check();
}

t.test('grading events: at once, on a change of the verdict, on a new session', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const url = await listen(app);
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const withGrading = collect((await fetch(`${url}/admin/events?grading=true`, { signal: abort.signal })).body!);
  const without = collect((await fetch(`${url}/admin/events`, { signal: abort.signal })).body!);
  const grading = () => withGrading.filter(([type]) => type === 'grading').map(([, d]) => d);

  t.ok(await until(() => grading().length === 1), 'one at once');
  t.equal(grading()[0].session, sim.grading.info.id, 'naming the session');
  await post(`${url}/callback`, bet('usd', 'G1', [['1', 'P', 10]], { currency: 'USD' }), HEADERS); // no login first
  t.ok(await until(() => grading().length === 2), 'one when the verdict changed');
  t.ok(grading()[1].version > grading()[0].version);
  await app.inject({ method: 'POST', url: '/admin/reset' });
  t.ok(
    await until(() => grading().some((d) => d.session === sim.grading.info.id && d.session !== grading()[0].session)),
    'one for the new session',
  );
  await post(`${url}/callback`, login('usd'), HEADERS);
  t.ok(await until(() => without.length >= 2 && withGrading.filter(([type]) => type === 'message').length >= 2), 'callbacks on both');
  t.same(
    without.map(([type]) => type),
    ['message', 'message'],
    'a stream that did not ask gets callbacks only',
  );
});

t.test('scenario events: one whenever another scenario became active, none before', async (t) => {
  const { app, sim } = await buildTestApp();
  t.teardown(() => app.close());
  const url = await listen(app);
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const events = collect((await fetch(`${url}/admin/events?grading=true`, { signal: abort.signal })).body!);
  const scenarios = () => events.filter(([type]) => type === 'scenario').map(([, d]) => d);
  t.ok(await until(() => events.length >= 1), 'the stream is open');
  const next = { ...sim.scenario.source, name: 'next one' };
  const put = await app.inject({ method: 'PUT', url: '/admin/scenario', payload: next });
  t.equal(put.statusCode, 200);
  t.ok(await until(() => scenarios().length === 1), 'one for the PUT');
  t.same(scenarios(), [{ name: 'next one' }], 'naming the scenario now active');
});
