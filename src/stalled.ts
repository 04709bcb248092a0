import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/*
 * The connection cap, preferring connections that complete their requests (docs/limits.md). A
 * caller that trickles requests in and reconnects as soon as it is cut (from the same address as
 * the honest client, so no per-address cap tells them apart) would otherwise hold every slot
 * between two time-outs, and a connection past the cap would be refused.
 *
 * Here a connection past the cap closes a stalled one instead: a connection that has sent bytes
 * but not a complete request (partial headers, or a body still arriving), the one stalled the
 * longest first. An honest client sends its whole request at once, so its connection is stalled
 * only for the moment it takes to read it, and it is the youngest; a trickling connection is
 * stalled from its first bytes to its time-out. A connection that has sent nothing
 * for less than `FRESH_MS` (a newcomer whose request is still in the socket) is closed only when
 * none is stalled, the oldest first. Never closed for a newcomer: a connection whose request is
 * complete (its reply is being computed, delayed or streamed) or one idle between kept-alive
 * requests (a pooled client's); when every connection is one of these, the new one is closed.
 */

/** A connection that has sent nothing for this long may be closed for a newcomer, like a stalled one. */
export const FRESH_MS = 250;

interface Tracked {
  opened: number;
  /** The last request whose headers were parsed. */
  request?: IncomingMessage;
  /** When that request's headers were parsed. */
  requested?: number;
  /** When its reply was sent (0: not yet), and the bytes read by then: more bytes since are the next request's. */
  repliedAt: number;
  repliedBytes: number;
}

export function capConnections(server: Server, maxConnections: number): void {
  const open = new Map<Socket, Tracked>();
  server.on('connection', (socket: Socket) => {
    const now = Date.now();
    if (open.size >= maxConnections) {
      const victim = mostStalled(now);
      if (!victim) {
        socket.destroy();
        return;
      }
      close(victim);
    }
    open.set(socket, { opened: now, request: undefined, requested: undefined, repliedAt: 0, repliedBytes: 0 });
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const tracked = open.get(socket);
    if (!tracked) return;
    tracked.request = request;
    tracked.requested = Date.now();
    tracked.repliedAt = 0;
    // One shared listener, no closure per request; on 'prefinish' (the reply handed to the socket),
    // which nothing else listens to, not 'finish', where Fastify's listener is: two listeners of
    // one event are kept in an array, which every emit copies and Fastify's removal searches.
    response.on('prefinish', replied);
  });

  function replied(this: ServerResponse): void {
    const request = this.req;
    const socket = request.socket;
    const tracked = open.get(socket);
    if (tracked?.request !== request) return;
    tracked.repliedAt = Date.now();
    tracked.repliedBytes = socket.bytesRead;
  }

  function close(socket: Socket): void {
    open.delete(socket); // counted as gone at once: its close event comes later
    socket.destroy();
  }

  /**
   * The connection stalled the longest; when none is, the oldest one that has sent nothing yet
   * (a caller that opens connections and sends nothing must not keep a newcomer out either);
   * undefined when every connection has a complete request behind it.
   */
  function mostStalled(now: number): Socket | undefined {
    let found: Socket | undefined;
    let foundRank = Number.POSITIVE_INFINITY;
    for (const [socket, t] of open) {
      const rank = stalled(socket, t, now);
      if (rank < foundRank) {
        found = socket;
        foundRank = rank;
      }
    }
    return found;
  }

  /**
   * Lower closes first: since when a stalled connection is stalled; a connection that has sent
   * nothing for less than FRESH_MS after every stalled one; Infinity when it is not to be closed.
   */
  function stalled(socket: Socket, t: Tracked, now: number): number {
    if (socket.bytesRead === 0) return now - t.opened >= FRESH_MS ? t.opened : now + t.opened;
    if (!t.request) return t.opened; // bytes, but not yet complete headers
    if (t.request.complete) {
      // A kept-alive connection's next request trickling in (bytes, but not yet complete headers)
      // is stalled; one answered or being answered, or idle, is not.
      if (t.repliedAt && socket.bytesRead > t.repliedBytes) return t.repliedAt;
      return Number.POSITIVE_INFINITY;
    }
    return t.requested ?? t.opened;
  }
}
