import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsync, FastifySchema } from 'fastify';
import type { StoredEntry } from '../journal/journal.js';
import { matches } from '../journal/match.js';
import { matchOfText } from '../journal/match-text.js';
import type { Simulator } from '../core/simulator.js';
import type { EndOf, SimOf } from './sim-of.js';
import { apiError } from '../http/errors.js';
import { openEventStream } from './event-stream.js';
import { ALL_CODES, SUCCESS } from '../protocol/seed/codes.js';
import { errorBody, errorResponse, SHUTDOWN_503 } from './docs.js';
import { adminSchema } from './admin-docs.js';
import { badQuery, matchQuerystring } from './journal.js';
import { watchGrading, watchScenario } from './grading-events.js';
import { ListenerSlots } from './listener-slots.js';

export interface EventRouteOptions {
  simOf: SimOf;
  /** The admin routes' OpenAPI security (set when --admin-token locks them). */
  security?: { bearer: never[] }[];
  /** A listener whose unsent output grows past this is disconnected (default 1 MiB). */
  maxBufferedBytes?: number;
  /** A comment line this often keeps proxies and idle time-outs from closing the stream. */
  heartbeatMs?: number;
  /** Listeners served at once; one more is answered 503 LISTENERS_FULL (default 100). */
  maxListeners?: number;
  /** Hosted mode: listeners of one simulator (a tenant) served at once, within `maxListeners`. */
  maxListenersEach?: number;
  /** Hosted mode: the budget these streams share with the tenants' probe run streams (of `maxListeners`). */
  listenerSlots?: ListenerSlots;
  /** Hosted mode: a request's stream ends when this signal fires (its token was rotated). */
  streamsEnd?: EndOf;
}

export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
export const DEFAULT_HEARTBEAT_MS = 15_000;
export const DEFAULT_MAX_LISTENERS = 100;

const DESCRIPTION = `Server-sent events: one \`data:\` line per callback, the journal entry as
\`GET /admin/journal\` lists it (JSON, with \`id:\` set to the entry id), written when the callback is
answered. A comment line (\`: heartbeat\`) comes every 15 s. Nothing is replayed: read
\`GET /admin/journal?after=<last id>\` to fill a gap. A listener that does not read fast enough
(over 1 MiB unsent) is disconnected, so it can never slow a callback down; it may reconnect.
At most \`--max-listeners\` streams (default 100, never more than half of \`--max-connections\`) are served
at once: one more is answered 503 LISTENERS_FULL and its connection closed, so listeners never hold the
connections callbacks need.
The dashboard (\`/ui\`) and \`wallet-sim tail\` read it with the Authorization header of --admin-token.
The filters of \`GET /admin/journal\` (\`user_id\`, \`event_type\`, \`code\`, \`replayed\`…: the journal's one
filter language) keep only the callbacks that match. With \`grading=true\`, the stream also carries
\`event: grading\` messages (\`data: {"session","version"}\`): one at once and one whenever the current
session's verdict changed (read \`GET /admin/report\` then) — the dashboard's checklist follows these; a new
\`session\` means the journal began again (a reset, a cleared journal). It also carries \`event: scenario\`
(\`data: {"name"}\`) whenever another scenario became active, whoever replaced it.`;
const QUERYSTRING = matchQuerystring({
  grading: {
    type: 'string',
    enum: ['true', 'false'],
    description: 'true: also send `event: grading` when the verdict changes, and `event: scenario` when another scenario became active.',
  },
});

/** GET /events (under /admin): the journal's subscription as a text/event-stream. */
export const eventRoutes: FastifyPluginAsync<EventRouteOptions> = async (app, options) => {
  const { simOf, security, streamsEnd } = options;
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const slots = options.listenerSlots ?? new ListenerSlots(options.maxListeners ?? DEFAULT_MAX_LISTENERS);
  const maxListeners = slots.max;
  const maxEach = options.maxListenersEach ?? maxListeners;
  /** Hosted mode: each tenant has a limit of its own (--tenant-listeners), the host's to raise. */
  const tenantLimited = options.maxListenersEach !== undefined;
  /** Listeners per simulator: one tenant's streams never take every slot. */
  const each = new WeakMap<Simulator, number>();
  // Ended as soon as shutdown begins: a stream never ends by itself, so close() (and SIGTERM)
  // would otherwise wait for it the whole grace period and then count it as a request cut.
  const streams = new Set<() => void>();
  const SHUTTING_DOWN = 'wallet-sim is shutting down';
  app.addHook('preClose', (done) => {
    if (streams.size) app.log.info({ streams: streams.size }, 'shutdown: event streams ended');
    for (const end of streams) end();
    done();
  });
  const schema = adminSchema(
    'GET',
    { locked: security !== undefined },
    {
      operationId: 'events',
      summary: 'Live callbacks as server-sent events (the journal, as it grows)',
      description: DESCRIPTION,
      produces: ['text/event-stream'],
      querystring: QUERYSTRING,
      response: {
        200: {
          description:
            'An endless text/event-stream: `id: <journal id>` and `data: <journal entry as JSON>` per callback; with `grading=true` also `event: grading` and `data: {"session","version"}` when the verdict changes, and `event: scenario` and `data: {"name"}` when another scenario became active.',
          content: {
            'text/event-stream': {
              schema: { type: 'string', examples: [`id: 7\ndata: {"id":7,"event_type":"bet","code":"${SUCCESS}",…}\n\n`] },
            },
          },
        },
        400: errorResponse('A filter is invalid (BAD_REQUEST): a name that is not a filter, or a value outside its list.', [
          badQuery(
            'GET /admin/events',
            QUERYSTRING,
            'querystring:/code',
            `must be one of ${ALL_CODES.map((code) => `"${code}"`).join(', ')}`,
          ),
        ]),
        503: errorResponse(
          `--max-listeners streams are already served (LISTENERS_FULL; the connection is closed), or ${SHUTDOWN_503.charAt(0).toLowerCase()}${SHUTDOWN_503.slice(1)}`,
          [errorBody('LISTENERS_FULL', maxListeners)],
        ),
      },
    },
  ) as FastifySchema;

  app.get<{ Querystring: Record<string, string | undefined> }>('/events', { schema }, (request, reply) => {
    const match = matchOfText(request.query);
    const sim = simOf(request);
    const mine = each.get(sim) ?? 0;
    if (slots.full || mine >= maxEach) {
      // Closed, not kept alive: a refused listener that stays connected would hold a slot all the same.
      const all = slots.full;
      const { status, body } = apiError(
        'LISTENERS_FULL',
        all ? maxListeners : maxEach,
        `GET ${sim.adminPath}/events`,
        !all && tenantLimited,
      );
      return reply.code(status).header('connection', 'close').send(body);
    }
    slots.take();
    each.set(sim, mine + 1);
    const res = openEventStream(reply, 'wallet-sim journal events');
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      slots.give();
      each.set(sim, (each.get(sim) ?? 1) - 1);
      streams.delete(end);
      ended?.removeEventListener('abort', aborted);
      unsubscribe();
      for (const stop of stops) stop();
      clearInterval(heartbeat);
    };
    // The stream's end, then its connection's (a listener that would keep it open gets no say).
    const end = (why: string = SHUTTING_DOWN) => {
      close();
      if (res.destroyed) return;
      res.end(`: ${why}\n\n`, () => res.destroy());
      if (res.writableNeedDrain) res.destroy(); // a listener that does not read would hold it until the grace ends
    };
    streams.add(end);
    const ended = streamsEnd?.(request);
    // (the tenant's token rotated, or the tenant deleted: the signal's reason says which)
    const aborted = () => end(typeof ended?.reason === 'string' ? ended.reason : undefined);
    ended?.addEventListener('abort', aborted);
    const write = eventWriter(res, maxBuffered, () => {
      request.log.warn({ buffered: res.writableLength }, 'event stream listener too slow: disconnected');
      close();
      res.destroy();
    });
    const unsubscribe = sim.journal.subscribe((entry) => {
      if (matches(entry, match)) write(entry);
    });
    const send = (text: string) => {
      if (!res.destroyed && res.writableLength <= maxBuffered) res.write(text);
    };
    const stops = request.query.grading === 'true' ? [watchGrading(sim, send), watchScenario(sim, send)] : [];
    const heartbeat = setInterval(() => {
      if (res.writableLength <= maxBuffered) res.write(': heartbeat\n\n');
    }, heartbeatMs).unref();
    res.on('close', close);
  });
};

/**
 * The journal listener of one stream. The journal calls it on the callback's path, so it never
 * throws and never waits: when the client does not read and the unsent bytes pass the bound, the
 * listener gives up on it (`tooSlow`) instead of buffering without end.
 */
export function eventWriter(res: ServerResponse, maxBuffered: number, tooSlow: () => void): (entry: StoredEntry) => void {
  // The events of one turn of the event loop go out in one socket write (a write per event cost
  // the server about a tenth more CPU per callback with one listener, measured in npm run bench -- --sse);
  // a batch is sent early past BATCH_CHARS, so what is held back never counts against maxBuffered.
  let batched = -1; // characters held since cork(); -1: not corked
  const flush = () => {
    if (batched < 0) return;
    batched = -1;
    if (!res.destroyed) res.uncork();
  };
  return (entry) => {
    try {
      if (res.destroyed) return;
      if (res.writableLength - Math.max(batched, 0) > maxBuffered) return tooSlow();
      if (batched < 0) {
        batched = 0;
        res.cork();
        setImmediate(flush);
      }
      const text = `id: ${entry.id}\ndata: ${entry.text}\n\n`;
      res.write(text);
      batched += text.length;
      if (batched > BATCH_CHARS) flush();
    } catch {
      tooSlow();
    }
  };
}

/** Sent at once past this many characters, without waiting for the end of the turn. */
const BATCH_CHARS = 64 * 1024;
