import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { apiError, sendApiErrorText } from './errors.js';

/**
 * Graceful shutdown (docs/limits.md, "shutdown": stop accepting, answer what is in flight, then exit).
 * Installed at the root before any route: once `app.close()` has begun, a request that still
 * arrives (on a kept-alive connection, or finishing its body) is refused with 503 before any
 * handler runs, so it changes nothing; replies of requests already in flight are sent with
 * `Connection: close`, so their sockets end with them. Returns whether closing has begun (the
 * callback lane, src/routes/callback-lane.ts, leaves such requests to this gate). `connections`: the
 * server's open ones (src/http/stalled.ts tracks them).
 */
export function installShutdownGate(app: FastifyInstance, connections: Iterable<Socket>): () => boolean {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    // Node's closeIdleConnections() leaves a connection that never sent a byte (a client's spare,
    // opened ahead of need: undici opens one when a fetch is aborted): it would hold close() until
    // the grace ends, and be counted as a request cut. Closed once the server stopped accepting
    // (close() follows this hook at once) and the event loop has polled its sockets again (two
    // check phases: a poll lies between them): a connection just accepted whose request had arrived
    // unread has read it by then, and is answered 503 by the hook below, not cut (its caller could
    // not tell whether it was applied).
    setImmediate(() =>
      setImmediate(() => {
        for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
      }),
    );
  });
  // Callback-style hooks: on every request, and an async hook costs a promise and a turn each.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    // Serialized here: a route's response schema (the callback's) must not reshape the refusal.
    sendApiErrorText(reply.header('connection', 'close'), apiError('SHUTTING_DOWN'));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  return () => closing;
}

/**
 * Closes the app: no new connection is accepted, idle keep-alive ones close at once, requests in
 * flight are answered. Those still unanswered after `graceMs` have their connections cut.
 * Resolves with how many connections were cut.
 */
export async function closeGracefully(app: FastifyInstance, graceMs: number): Promise<number> {
  const server = app.server;
  let cut = 0;
  const timer = setTimeout(() => {
    server.getConnections((_err, count) => {
      cut = count;
      server.closeAllConnections();
    });
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
  return cut;
}
