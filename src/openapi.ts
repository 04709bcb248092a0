import type { SwaggerOptions } from '@fastify/swagger';
import type { AppOptions } from './app.js';

/** The OpenAPI 3.1 document's frame; the operations and components come from the routes and schemas/. */
export function openapiOptions(_options: AppOptions): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'wallet-sim',
        version: '0.1.0',
        description: 'A sandbox seamless wallet: the receiver of login, bet and bet_result callbacks, with an admin API to set balances, switch scenarios and read the journal.',
      },
      tags: [
        { name: 'callback', description: 'The three callback events (the protocol under test)' },
        { name: 'admin', description: 'Players, scenario, journal' },
        { name: 'health', description: 'Liveness' },
      ],
    },
    refResolver: {
      // Components keep the schemas' $id as their name instead of def-0, def-1, …
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  };
}

/** The callback route's schema: documentation only (the pipeline validates, see routes/callback.ts). */
export const callbackRouteSchema = {
  tags: ['callback'],
  summary: 'Receive a login, bet or bet_result callback',
  description: 'Every reply is HTTP 200 with a result code (R0-R4) unless a scenario rule forces otherwise.',
  headers: {
    type: 'object',
    properties: {
      'api-id': { type: 'string', description: 'Must equal the scenario credentials (else R2).' },
      'api-key': { type: 'string', description: 'Must equal the scenario credentials (else R2).' },
      'callback-url': { type: 'string', description: 'The receiver address; echoed on login and bet_result replies.' },
    },
    required: ['api-id', 'api-key', 'callback-url'],
  },
  body: { $ref: 'CallbackRequest#' },
  response: { 200: { description: 'The reply body (spec 2.4)', $ref: 'CallbackReply#' } },
} as const;
