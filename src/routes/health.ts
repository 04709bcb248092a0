import type { FastifyPluginAsync } from 'fastify';
import type { Simulator } from '../simulator.js';

export const healthRoutes: FastifyPluginAsync<{ sim: Simulator; storeKind: string }> = async (app, { sim, storeKind }) => {
  app.get('/health', {
    schema: {
      tags: ['health'],
      summary: 'Liveness: the simulator answers',
      response: {
        200: {
          type: 'object',
          properties: { status: { type: 'string', const: 'ok' }, scenario: { type: 'string' }, store: { type: 'string' }, players: { type: 'integer' } },
        },
      },
    },
  }, async () => ({ status: 'ok', scenario: sim.scenario.source.name, store: storeKind, players: sim.wallet.state.players.size }));
};
