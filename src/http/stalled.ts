import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/*
 * The connection cap, preferring connections that complete their requests (docs/limits.md). A
 * caller that trickles requests in and reconnects as soon as it is cut (from the same address as
 * the honest client, so no per-address cap tells them apart) would otherwise hold every slot
 * between two time-outs, and a connection past the cap would be refused.
 *
 * Here a connection past the cap closes another instead, in this order: a stalled one (it has sent
 * bytes but not a complete request: partial headers, or a body still arriving), the one stalled the
 * longest first; then one idle between kept-alive requests, the one idle the longest first; then
 * one that has sent nothing for less than `FRESH_MS` (a newcomer whose request is still in the
 * socket), the oldest first; last, a connection that carried several requests and was answered
 * less than `RECENT_MS` ago (a pooled client between two calls). An honest client sends its whole request at once, so its connection is
 * stalled only for the moment it takes to read it, and it is the youngest; a trickling connection is
 * stalled from its first bytes to its time-out. A caller that completes one request and then holds
 * its connection idle (kept alive) loses it to a newcomer, as does a pooled client's connection at
 * the cap: its pool opens another when it next needs one. Never closed for a newcomer: a connection
 * whose request is complete and not yet answered (its reply being computed, delayed or streamed);
 * when every connection is one of these, the new one is closed.
 */

/** A connection that has sent nothing for this long may be closed for a newcomer, like a stalled one. */
export const FRESH_MS = 250;
/**
 * A kept-alive connection that has carried more than one request and was answered less than this
 * long ago is closed for a newcomer only after every other candidate: a pooled client calling every
 * few hundred ms would otherwise see its connection closed just as it sends its next request (a
 * reset), while a caller holding connections idle sends one request and is past it within a second.
 */
export const RECENT_MS = 1000;

interface Tracked {
  opened: number;
  /** The last request whose headers were parsed. */
  request?: IncomingMessage;
  /** When that request's headers were parsed. */
  requested?: number;
  /** When its reply was sent (0: not yet), and the bytes read by then: more bytes since are the next request's. */
  repliedAt: number;
  repliedBytes: number;
  /** Requests it has sent: a pooled client's connection carries many, an idle holder's one. */
  requests: number;
}

/** Returns the connections it tracks, open ones only (the shutdown gate closes those that never sent a byte). */
export function capConnections(server: Server, maxConnections: number): Iterable<Socket> {
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
    open.set(socket, { opened: now, request: undefined, requested: undefined, repliedAt: 0, repliedBytes: 0, requests: 0 });
    socket.once('close', () => open.delete(socket));
  });
  // Ahead of the handlers: a reply written at once, in the request event itself (a tenant's 429, the
  // shutdown gate's 503, a 404), is then seen as written, not taken for one still being answered.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const tracked = open.get(socket);
    if (!tracked) return;
    tracked.request = request;
    tracked.requested = Date.now();
    tracked.repliedAt = 0;
    tracked.requests++;
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

  return { [Symbol.iterator]: () => open.keys() }; // (a fresh walk each time)

  /**
   * The connection to close for a newcomer (the lowest tier, then the earliest time in it);
   * undefined when every connection has a request behind it that is not yet answered.
   */
  function mostStalled(now: number): Socket | undefined {
    let found: Socket | undefined;
    let foundTier = NEVER;
    let foundSince = 0;
    for (const [socket, t] of open) {
      const tier = tierOf(socket, t, now);
      if (tier < foundTier || (tier === foundTier && tier !== NEVER && since < foundSince)) {
        found = socket;
        foundTier = tier;
        foundSince = since;
      }
    }
    return found;
  }
}

/** Tiers of connections a newcomer may close, the first first; `since` orders one tier, earliest first. */
const STALLED = 0;
const IDLE = 1;
const FRESH = 2;
const RECENT = 3;
const NEVER = 4;
/** Set by tierOf: when the connection entered its tier (no allocation per connection per newcomer). */
let since = 0;

/**
 * STALLED since its stall began (a connection silent for FRESH_MS after opening counts from its
 * opening); IDLE between kept-alive requests since its last reply; FRESH (sent nothing yet, opened
 * less than FRESH_MS ago) since its opening; RECENT (idle after several requests, answered less
 * than RECENT_MS ago) since its last reply; NEVER when its request is complete and unanswered.
 */
function tierOf(socket: Socket, t: Tracked, now: number): number {
  if (socket.bytesRead === 0) {
    since = t.opened;
    return now - t.opened >= FRESH_MS ? STALLED : FRESH;
  }
  if (!t.request) {
    since = t.opened; // bytes, but not yet complete headers
    return STALLED;
  }
  if (!t.request.complete) {
    since = t.requested ?? t.opened;
    return STALLED;
  }
  if (!t.repliedAt) return NEVER; // being answered (computed, delayed by delay_ms, or an event stream)
  since = t.repliedAt;
  // Bytes after the last reply, but not yet complete headers: the next request trickling in.
  if (socket.bytesRead > t.repliedBytes) return STALLED;
  // A connection that has carried several requests and was answered a moment ago is a pooled
  // client's between two calls; one request then silence is what a holder does.
  return t.requests > 1 && now - t.repliedAt < RECENT_MS ? RECENT : IDLE;
}
