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
