import type { FastifyPluginAsync } from 'fastify';
import type { Simulator } from '../simulator.js';

const status = (value: string, description: string) => ({
  description,
  type: 'object',
  properties: { status: { type: 'string', const: value }, scenario: { type: 'string' }, store: { type: 'string' }, players: { type: 'integer' }, error: { type: 'string' } },
});

export const healthRoutes: FastifyPluginAsync<{ sim: Simulator; storeKind: string }> = async (app, { sim, storeKind }) => {
  app.get('/health', {
    schema: {
      tags: ['health'],
      summary: 'Liveness: the simulator answers (503 once a store write has failed)',
      response: { 200: status('ok', 'The simulator is up'), 503: status('store_failed', 'A store write failed: callbacks get R1 until a restart') },
    },
  }, async (_request, reply) => {
    const body = { scenario: sim.scenario.source.name, store: storeKind, players: sim.wallet.state.players.size };
    if (sim.storeFailure) return reply.code(503).send({ status: 'store_failed', ...body, error: sim.storeFailure });
    return { status: 'ok', ...body };
  });
};
