import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { ApiErrorBody } from '../http/errors.js';
import type { StoredEntry } from '../journal/journal.js';
import { MATCH_FIELDS, matchOfText } from '../journal/match-text.js';
import { WHOLE_NUMBER } from '../protocol/schemas.js';
import type { SimOf } from './sim-of.js';
import { type AdminDocOptions, adminSchema } from './admin-docs.js';
import { errorBody, errorResponse, type Json, sentAsReturned } from './docs.js';

const JOURNAL =
  'The callbacks received, oldest first (a bounded ring: the oldest drop out first). Filters combine: every one given must equal. ' +
  "They are the journal's one filter language (`JournalMatch`), the `where` of a `wallet-sim verify` expectations file; " +
  'a name that is none of them is refused (400). `limit` keeps the newest n; `after` + `limit` page forward.';
const AFTER =
  'Only entries with an id greater than this, ending before the oldest callback still being answered; with `limit`, pages forward.';
const LIMIT = 'Without `after`: keep only the newest n entries. With `after`: the first n after it.';
const BAD_QUERY =
  'A query parameter is invalid (BAD_REQUEST; the message lists the parameters this route takes): ' +
  'a name that is not a filter, a value outside its list (code, replayed), or after / limit not a whole number.';

/**
 * The filter language (schemas/journal-match.schema.json) as query parameters, described as the
 * schema describes each field: a query value is text, so a boolean is written `true` or `false`.
 * Unknown names are refused, so a misspelt filter never silently lists everything.
 */
export function matchQuerystring(paging: Record<string, Json> = {}): Json {
  const properties: Record<string, Json> = {};
  for (const [name, field] of Object.entries(MATCH_FIELDS))
    properties[name] =
      field.type === 'boolean'
        ? { type: 'string', enum: ['true', 'false'], description: field.description }
        : name === 'event_type'
          ? // The journal keeps what callers sent, an unknown event_type included: a tester looks for exactly those.
            {
              type: 'string',
              description: `${field.description ?? ''} Any text here: the journal also holds refused callbacks' own event_type.`.trim(),
            }
          : { ...field };
  return { type: 'object', additionalProperties: false, properties: { ...properties, ...paging } };
}

type JournalQuery = Record<string, string | undefined>;

const QUERYSTRING = matchQuerystring({
  after: { type: 'string', pattern: WHOLE_NUMBER, description: AFTER },
  limit: { type: 'string', pattern: WHOLE_NUMBER, description: LIMIT },
});

/** A 400 body for a bad query of `route`, as the error handler writes it (src/app/app.ts). */
export function badQuery(route: string, querystring: Json, pointer: string, message: string): ApiErrorBody {
  const parameters = Object.keys(querystring.properties as Json);
  return { ...errorBody('BAD_REQUEST', `${pointer} ${message}`, route, parameters), details: [{ pointer, message }] };
}

/** GET and DELETE /journal (under /admin): the journal, filtered and paged, streamed from the entries' text. */
export const journalRoutes: FastifyPluginAsync<{ simOf: SimOf; docs: AdminDocOptions }> = async (app, { simOf, docs }) => {
  app.get<{ Querystring: JournalQuery }>(
    '/journal',
    {
      ...sentAsReturned,
      schema: adminSchema('GET', docs, {
        operationId: 'journal',
        summary: 'Callbacks received, oldest first, with findings (filtered; streamed; page with after + limit)',
        description: JOURNAL,
        querystring: QUERYSTRING,
        response: {
          200: { description: 'The matching entries.', $ref: 'JournalPage#' },
          400: errorResponse(BAD_QUERY, [
            badQuery('GET /admin/journal', QUERYSTRING, 'querystring:/limit', 'must be a whole number (digits only)'),
            badQuery('GET /admin/journal', QUERYSTRING, 'querystring:/replayed', 'must be one of "true", "false"'),
            badQuery('GET /admin/journal', QUERYSTRING, 'querystring:/status', 'is not an allowed property'),
          ]),
        },
      }),
    },
    async (request, reply) => {
      const sim = simOf(request);
      // (Redis lost the wallet's state: 503, never an empty journal; a local store's failed write leaves the journal readable)
      await sim.backend.verify?.();
      const { limit, after } = request.query;
      const number = (s: string | undefined) => (s === undefined ? undefined : Number(s));
      const entries = await sim.journal.select({ ...matchOfText(request.query), after: number(after), limit: number(limit) });
      // Streamed from the entries' own text: never one string the size of the whole journal.
      return reply.type('application/json').send(Readable.from(journalDocument(entries)));
    },
  );

  app.delete(
    '/journal',
    {
      ...sentAsReturned,
      schema: adminSchema('DELETE', docs, {
        operationId: 'clearJournal',
        summary: 'Clear the journal (and begin a new grading session)',
        response: { 204: { description: 'The journal is empty; a new grading session began (the wallet is unchanged).', type: 'null' } },
      }),
    },
    async (request, reply) => {
      await simOf(request).clearJournal();
      return reply.code(204).send();
    },
  );
};

/** `{"count":n,"entries":[…]}` in pieces of about 64 KiB. */
function* journalDocument(entries: StoredEntry[]): Generator<string> {
  let chunk = `{"count":${entries.length},"entries":[`;
  for (const [i, e] of entries.entries()) {
    chunk += i ? `,${e.text}` : e.text;
    if (chunk.length >= 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}]}`;
}
