import { CODES, type Code } from '../protocol/seed/codes.js';
import { HEADER_NAME } from '../protocol/seed/wire.js';
import { type DocumentedSchema, errorBody, errorResponse, examplesOf, type Json, type NamedExamples, schemaById } from './docs.js';

/*
 * The callback route's OpenAPI documentation (the route itself is routes/callback.ts). Its body is
 * validated by the pipeline, not by Fastify: this schema is for the document.
 */

const refId = (ref: string) => ref.replace(/#.*$/, '');

/** event_type → the $id of its request schema, read from CallbackRequest's oneOf (not written twice). */
const branches = schemaById('CallbackRequest').oneOf as { $ref: string }[];
export const EVENT_SCHEMAS: ReadonlyArray<{ event: string; id: string }> = branches.map(({ $ref }) => {
  const id = refId($ref);
  const event = ((schemaById(id).properties as Json).event_type as { const: string }).const;
  return { event, id };
});

/** One named example per event, from the request schemas' `examples` (the worked round of shared/examples). */
function requestExamples(): NamedExamples {
  return Object.fromEntries(
    EVENT_SCHEMAS.map(({ event, id }) => {
      const value = examplesOf(id)[0];
      if (!value) throw new Error(`wallet-sim: schemas/${id} has no example`);
      return [event, { summary: `${event}: ${schemaById(id).description as string}`, value: withFreshTimestamp(value) }];
    }),
  );
}

/**
 * The example with its timestamp read each time the document is written out, so the example sent
 * as it is ("Try it out", an imported collection) is not stale and earns no TIMESTAMP_SKEWED.
 */
function withFreshTimestamp(example: Json): Json {
  const copy = { ...example };
  Object.defineProperty(copy, 'timestamp', { enumerable: true, configurable: true, get: () => Math.floor(Date.now() / 1000) });
  return copy;
}

/** One named example per reply code R0–R4, from CallbackReply's `examples`. */
function replyExamples(): NamedExamples {
  return Object.fromEntries(
    examplesOf('CallbackReply').map((value) => {
      const code = value.code as Code;
      return [code, { summary: `${code} ${CODES[code]} (a ${String(value.event_type)} reply)`, value }];
    }),
  );
}

/** The callback operation's description; hosted: the credentials and the journal are the tenant's. */
export const callbackDescription = (
  hosted = false,
) => `The receiver end of the three callbacks (spec sections 4, 6, 7). The body is told apart by
\`event_type\`: \`login\` (envelope only), \`bet\` (debits; data from 2.2) and \`bet_result\`
(settles the round: credits total_bet_amount + total_winloss; data from 2.3).

Every reply is **HTTP 200** with a result code in the body, also for a malformed body (R3), unless a
scenario rule forces another status, a raw body, a delay or a dropped connection.

| code | meaning | when wallet-sim sends it |
|---|---|---|
| R0 | ${CODES.R0} | applied, or an identical retry of an applied transaction_id (replay, nothing changes) |
| R1 | ${CODES.R1} | the store failed, or forced by a rule |
| R2 | ${CODES.R2} | Api-Id / Api-Key missing or not ${hosted ? "the tenant's (generated when it was created)" : "the scenario's"} |
| R3 | ${CODES.R3} | schema, totals, currency, unknown round, settled round, reused transaction_id with another body |
| R4 | ${CODES.R4} | a bet larger than the balance (carries latest_balance, nothing debited) |

The examples are one baccarat round of player-1 (KRW, 1,000,000): login, a bet of 15,000, its
bet_result (+5,000). Their transaction_ids are fixed, so executing one twice shows the idempotent
replay. Why a reply was not R0 is in the \`X-Wallet-Sim-Reason\` header and in \`GET ${hosted ? '/t/{id}' : ''}/admin/journal\`.`;

/**
 * What the callback's Api-Id or Api-Key must be: the active scenario's (a single-tenant simulator),
 * or the pair generated for the tenant (hosted: a scenario's own are ignored).
 */
export function credentialText(name: typeof HEADER_NAME.apiId | typeof HEADER_NAME.apiKey, hosted = false): string {
  const field = `credentials.${name === HEADER_NAME.apiKey ? 'api_key' : 'api_id'}`;
  return hosted
    ? `Must equal the tenant's ${field}: generated when the tenant was created, and fixed. POST /tenants answered it (shown once, ` +
        "with the tenant's token; the host's POST /tenants/{id}/token answers it again); a scenario's own credentials are ignored. " +
        'Missing or different: R2.'
    : `Must equal the active scenario's ${field} (or --${name.toLowerCase()}); missing or different: R2.`;
}

const credentialHeader = (name: typeof HEADER_NAME.apiId | typeof HEADER_NAME.apiKey) => ({
  type: 'string',
  description: credentialText(name),
});

const CALLBACK_URL =
  "Optional. The receiver's callback address (spec 4 says every request carries it). Missing: the callback is " +
  'processed as usual (R0 when all else is right), the journal records a warning finding CALLBACK_URL_MISSING, and login / ' +
  'bet_result replies echo an empty Callback-URL.';

/** Reply headers of the callback (spec 4, plus wallet-sim's reason header). */
const replyHeaders = {
  [HEADER_NAME.apiId]: {
    type: 'string',
    description: "On every reply: the caller's Api-Id echoed (empty when absent), or the scenario's reply_credentials.api_id.",
  },
  [HEADER_NAME.apiKey]: {
    type: 'string',
    description:
      "On every reply: the caller's Api-Key echoed (empty when absent), or the scenario's reply_credentials.api_key. " +
      'The configured key is never sent to a caller that did not know it.',
  },
  [HEADER_NAME.callbackUrl]: { type: 'string', description: "On login and bet_result replies only: the request's Callback-URL echoed." },
  [HEADER_NAME.reason]: {
    type: 'string',
    description: 'On every non-R0 reply (and a 413): why, in one line. Not part of the protocol; the journal has the same text.',
  },
};

const TOO_LARGE =
  'The body is over the size limit (default 1 MiB, `start --body-limit`): no callback is processed, the journal ' +
  'records the refusal. Like every callback reply it carries Api-Id and Api-Key.';

/** A refusal of the callback route (413): the credentials echoed as on every reply, and why. */
const refusalHeaders = {
  [HEADER_NAME.apiId]: replyHeaders[HEADER_NAME.apiId],
  [HEADER_NAME.apiKey]: replyHeaders[HEADER_NAME.apiKey],
  [HEADER_NAME.reason]: replyHeaders[HEADER_NAME.reason],
};

/** The callback route's schema, with the body limit it runs with (its 413 example names it). */
export function callbackRouteSchema(bodyLimit: number): DocumentedSchema {
  return {
    operationId: 'callback',
    tags: ['callback'],
    summary: 'Receive a login, bet or bet_result callback',
    description: callbackDescription(),
    headers: {
      type: 'object',
      properties: {
        [HEADER_NAME.apiId]: credentialHeader(HEADER_NAME.apiId),
        [HEADER_NAME.apiKey]: credentialHeader(HEADER_NAME.apiKey),
        [HEADER_NAME.callbackUrl]: { type: 'string', description: CALLBACK_URL },
      },
      required: [HEADER_NAME.apiId, HEADER_NAME.apiKey],
    },
    body: { $ref: 'CallbackRequest#' },
    bodyExamples: requestExamples(),
    response: {
      200: {
        description: 'The reply (spec 2.4): HTTP 200 whatever the code. latest_balance is required with R0, optional otherwise.',
        headers: replyHeaders,
        content: { 'application/json': { schema: { $ref: 'CallbackReply#' }, examples: replyExamples() } },
      },
      413: { ...errorResponse(TOO_LARGE, [errorBody('BODY_TOO_LARGE', bodyLimit)]), headers: refusalHeaders },
      503: errorResponse('wallet-sim is shutting down (SIGINT/SIGTERM): callbacks in flight are answered, a new one is not taken.'),
      default: {
        description: 'Only when a scenario rule says so: its http_status, its raw body, or no reply at all (drop_connection).',
        type: 'null', // no content is promised
      },
    },
  };
}
