import type { FastifyPluginAsync } from 'fastify';
import type { Simulator } from '../simulator.js';
import { SHUTDOWN_503 } from './docs.js';

const UP = 'The simulator answers: the active scenario, the store kind and the number of players.';
const DOWN = `A store write failed (status store_failed, with the error): callbacks get R1 until a restart. Or: ${SHUTDOWN_503}`;

export const healthRoutes: FastifyPluginAsync<{ sim: Simulator; storeKind: string }> = async (app, { sim, storeKind }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        operationId: 'health',
        summary: 'Liveness: the simulator answers (503 once a store write has failed)',
        response: { 200: { description: UP, $ref: 'Health#' }, 503: { description: DOWN, $ref: 'Health#' } },
      },
    },
    async (_request, reply) => {
      const body = { scenario: sim.scenario.source.name, store: storeKind, players: sim.state.players.size };
      if (sim.storeFailure) return reply.code(503).send({ status: 'store_failed', ...body, error: sim.storeFailure });
      return { status: 'ok', ...body };
    },
  );
};
