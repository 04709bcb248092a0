// GET /admin/events: the journal's subscription as server-sent events, over real sockets.
import { connect } from 'node:net';
import t from 'tap';
import { bet, buildTestApp, HEADERS, listen, login, post } from './helpers/app.js';
import type { Simulator } from '../src/core/simulator.js';

/** Counts the journal's live subscriptions (what the stream costs when nobody listens). */
function countSubscriptions(sim: Simulator): () => number {
  let active = 0;
  const subscribe = sim.journal.subscribe.bind(sim.journal);
  sim.journal.subscribe = (listener) => {
    active++;
    const unsubscribe = subscribe(listener);
    return () => {
      active--;
      return unsubscribe();
    };
  };
  return () => active;
}

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

/** Reads `data:` lines off an open stream. */
function reader(body: ReadableStream<Uint8Array>) {
  const events: any[] = [];
  const ids: string[] = [];
  let text = '';
  const done = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of body) {
      text += decoder.decode(chunk, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        for (const line of text.slice(0, end).split('\n')) {
          if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)));
          if (line.startsWith('id: ')) ids.push(line.slice(4));
        }
        text = text.slice(end + 2);
      }
    }
  })().catch(() => {});
  return { events, ids, done };
}

t.test('one data line per callback, then unsubscribed when the client goes', async (t) => {
  const { app, sim } = await buildTestApp();
  const active = countSubscriptions(sim);
  t.teardown(() => app.close());
  const url = await listen(app);
  t.equal(active(), 0, 'nobody listens: no subscription');

  const abort = new AbortController();
  const res = await fetch(`${url}/admin/events`, { signal: abort.signal });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  t.equal(res.headers.get('cache-control'), 'no-cache, no-transform');
  const stream = reader(res.body!);
  t.ok(await until(() => active() === 1), 'one subscription while the client reads');

  const sent = login('player-1');
  t.equal((await post(`${url}/callback`, sent)).body.code, 'R0');
  t.ok(await until(() => stream.events.length === 1), 'the callback arrives on the stream');
  t.match(
    stream.events[0],
    { transaction_id: sent.transaction_id, event_type: 'login', code: 'R0', request: { headers: { 'api-key': 'sa*********' } } },
    'the journal entry, key masked',
  );
  t.same(stream.ids, [String(stream.events[0].id)], 'id: carries the journal id');

  abort.abort();
  t.ok(await until(() => active() === 0), 'unsubscribed when the client closes');
  t.equal((await post(`${url}/callback`, login('player-1'))).body.code, 'R0', 'callbacks go on');
});

t.test('the filters of the journal keep only the matching callbacks; a bad one is a 400', async (t) => {
  const { app } = await buildTestApp();
  t.teardown(() => app.close());
  const url = await listen(app);
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const res = await fetch(`${url}/admin/events?user_id=usd&event_type=login&replayed=false`, { signal: abort.signal });
  t.equal(res.status, 200);
  const stream = reader(res.body!);
  // Subscribed before the reply's headers were written: each of these passes the filter or not.
  const again = login('usd');
  for (const body of [login('player-1'), bet('usd', 'G1', [['1', 'P', 1]], { currency: 'USD' }), again, again, login('usd')])
    t.equal((await post(`${url}/callback`, body)).body.code, 'R0');
  t.ok(await until(() => stream.events.length === 2, 10_000), 'the logins of usd that were no replay arrive');
  t.same(
    stream.events.map((e) => [e.user_id, e.event_type, e.replayed]),
    [
      ['usd', 'login', false],
      ['usd', 'login', false],
    ],
    'and nothing else: not player-1, not the bet, not the replay',
  );

  const bad = await fetch(`${url}/admin/events?code=R9`);
  t.equal(bad.status, 400);
  t.match(await bad.json(), {
    error: 'BAD_REQUEST',
    message: /^querystring:\/code must be one of "R0", "R1", "R2", "R3", "R4"; GET \/admin\/events takes the query parameters user_id, /,
  });
});

t.test('the admin token guards the stream', async (t) => {
  const { app } = await buildTestApp({}, { adminToken: 's3cret' });
  t.teardown(() => app.close());
  const url = await listen(app);
  t.equal((await fetch(`${url}/admin/events`)).status, 401);
  t.equal((await fetch(`${url}/admin/events?token=s3cret`)).status, 401, 'no token in the query string');
  const abort = new AbortController();
  const ok = await fetch(`${url}/admin/events`, { headers: { authorization: 'Bearer s3cret' }, signal: abort.signal });
  t.equal(ok.status, 200);
  abort.abort();
});

t.test('a consumer that never reads is disconnected and never slows a callback down', async (t) => {
  const { app, sim } = await buildTestApp();
  const active = countSubscriptions(sim);
  t.teardown(() => app.close());
  const url = new URL(await listen(app));

  // A raw client that asks for the stream and then reads nothing at all.
  const socket = connect(Number(url.port), url.hostname);
  socket.write(`GET /admin/events HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
  socket.pause();
  let closed = false;
  socket
    .on('close', () => {
      closed = true;
    })
    .on('error', () => {});
  t.teardown(() => socket.destroy());
  t.ok(await until(() => active() === 1), 'subscribed');

  // Entries of ~256 KiB each: 200 of them are far more than socket buffers and the 1 MiB bound.
  const padding = 'x'.repeat(256 * 1024);
  const slowest: number[] = [];
  const statuses = new Set<number>();
  for (let i = 0; i < 200 && active() > 0; i++) {
    const started = performance.now();
    statuses.add((await post(`${url.origin}/callback`, { ...login('player-1'), feedback_data: padding }, HEADERS)).status);
    slowest.push(performance.now() - started);
  }
  t.same([...statuses], [200], `all ${slowest.length} callbacks answered`);
  t.equal(active(), 0, 'the listener was dropped once its buffer was full');
  t.ok(Math.max(...slowest) < 2000, `no callback waited for the stream (slowest ${Math.round(Math.max(...slowest))} ms)`);
  socket.resume();
  t.ok(await until(() => closed), 'and its connection closed');
  t.equal((await post(`${url.origin}/callback`, login('player-1'))).body.code, 'R0', 'callbacks go on');
});
