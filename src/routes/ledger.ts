import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { apiError, sendApiError } from '../http/errors.js';
import { ledgerText } from '../ledger/format.js';
import { LedgerCut } from '../ledger/ledger-entry.js';
import type { SimOf } from './sim-of.js';
import { type AdminDocOptions, adminSchema } from './admin-docs.js';
import { examplesOf, sentAsReturned } from './docs.js';
import { badQuery } from './journal.js';

const LEDGER =
  'Every bet and settlement the wallet applied (R0) since its last reset, oldest first, one row each (logins move no money: ' +
  'no rows): the stake a bet debited, the credit of a settlement (stake + winloss, possibly 0), the balance after it, when it ' +
  'was applied and whether its round is open or settled now. Amounts are exact decimals. `format=csv` gives CSV with a header ' +
  'line. Streamed. Bounded like the wallet (`--retain-transactions`): `X-Ledger-Complete` says whether it holds every ' +
  'transaction of the session (when the read began); when not, `X-Ledger-Complete-From` says from when on it does. A read that a ' +
  'reset (POST /admin/reset) overtakes fails at the transport, never as a shorter well-formed ledger: the connection is closed ' +
  "before the chunked reply's last chunk, so every HTTP client sees an error; the text so far ends `#INCOMPLETE: …` in CSV, " +
  'and in JSON the array is never closed. In CSV a cell of transaction_id, user_id, game_no or currency that ' +
  "begins with = + - @ tab CR or ' is written with a leading ' and in quotes, so a spreadsheet never runs it as a formula " +
  '(OWASP CSV injection); amounts are never changed. `wallet-sim reconcile` compares it ' +
  "with the provider's own records (docs/reconcile.md).";

const QUERYSTRING = {
  type: 'object',
  additionalProperties: false,
  properties: {
    user_id: { type: 'string', minLength: 1, description: "Only this player's rows." },
    format: {
      type: 'string',
      enum: ['json', 'csv'],
      description:
        "json (default): one JSON array; csv: a header line, then one line per row (a cell beginning with = + - @ tab CR or ' gets a leading ' and quotes).",
    },
  },
} as const;

const HEADERS = {
  'X-Ledger-Complete': {
    type: 'string',
    enum: ['true', 'false'],
    description:
      'false: the wallet has forgotten older transactions (--retain-transactions); the rows are complete from X-Ledger-Complete-From on.',
  },
  'X-Ledger-Complete-From': {
    type: 'string',
    format: 'date-time',
    description: 'Only when X-Ledger-Complete is false: every transaction applied at or after this time is listed.',
  },
};

const CSV_EXAMPLE =
  'transaction_id,event_type,user_id,game_no,currency,amount,balance_after,applied_at,round_status\r\n' +
  't2,bet,player-1,G1,USD,10,990,2026-11-23T10:00:00.000Z,settled\r\n' +
  't3,bet_result,player-1,G1,USD,19.5,1009.5,2026-11-23T10:00:01.000Z,settled\r\n';

/** GET /ledger (under /admin): the wallet's books, to reconcile against the provider's. */
export const ledgerRoutes: FastifyPluginAsync<{ simOf: SimOf; docs: AdminDocOptions }> = async (app, { simOf, docs }) => {
  app.get<{ Querystring: { user_id?: string; format?: 'json' | 'csv' } }>(
    '/ledger',
    {
      ...sentAsReturned,
      schema: adminSchema('GET', docs, {
        operationId: 'ledger',
        summary: 'The bets and settlements applied, one row each (JSON or CSV; streamed)',
        description: LEDGER,
        querystring: QUERYSTRING,
        response: {
          200: {
            description: 'The rows, oldest first.',
            headers: HEADERS,
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: 'LedgerRow#' } }, example: examplesOf('LedgerRow') },
              'text/csv': { schema: { type: 'string' }, example: CSV_EXAMPLE },
            },
          },
          400: {
            description:
              'A query parameter is invalid (BAD_REQUEST): a name other than user_id and format, or a format other than json and csv.',
            content: {
              'application/json': {
                schema: { $ref: 'ApiError#' },
                example: badQuery('GET /admin/ledger', QUERYSTRING, 'querystring:/format', 'must be one of "json", "csv"'),
              },
            },
          },
        },
      }),
    },
    async (request, reply) => {
      const sim = simOf(request);
      if (sim.storeFailure) return sendApiError(reply, apiError(sim.backend.failureCode, sim.storeFailure));
      await sim.backend.verify?.(); // (Redis lost the wallet's state: 503, never an empty ledger)
      const format = request.query.format ?? 'json';
      const ledger = await sim.backend.ledger(request.query.user_id);
      reply.header('x-ledger-complete', String(ledger.complete));
      if (ledger.completeFrom) reply.header('x-ledger-complete-from', ledger.completeFrom);
      reply.type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
      let cut = false;
      return reply.send(
        Readable.from(
          cutAtTheTransport(
            ledgerText(ledger.batches, format, () => (cut = true)),
            () => cut,
          ),
        ),
      );
    },
  );
};

/**
 * The ledger's text, then, for a read a reset overtook, an error: the stream fails after the
 * marker, and Fastify destroys the response without its last chunk. An in-band marker alone is a
 * success to curl, fetch and a spreadsheet's import; a chunked reply that never ends is an error to
 * every HTTP client.
 */
async function* cutAtTheTransport(text: AsyncIterable<string>, cut: () => boolean): AsyncGenerator<string> {
  for await (const chunk of text) yield chunk;
  if (cut()) throw new LedgerCut();
}
