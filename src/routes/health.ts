import type { FastifyPluginAsync } from 'fastify';
import type { Simulator } from '../simulator.js';
import { SHUTDOWN_503 } from './docs.js';

const UP = 'The simulator answers: the active scenario, the store kind and the number of players.';
const DOWN =
  'A store write failed (status store_failed, with the error): callbacks get R1 until a restart; with --store redis, Redis ' +
  `is unreachable: callbacks get R1 until it is back (wallet-sim reconnects by itself). Or: ${SHUTDOWN_503}`;

export const healthRoutes: FastifyPluginAsync<{ sim: Simulator; storeKind: string }> = async (app, { sim, storeKind }) => {
  // What a 503 reports while the store cannot be asked (the last count read).
  let known = 0;
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
      const down = (error: string) =>
        reply.code(503).send({ status: 'store_failed', scenario: sim.scenario.source.name, store: storeKind, players: known, error });
      if (sim.storeFailure) return down(sim.storeFailure);
      try {
        known = await sim.playerCount();
      } catch (e) {
        return down(sim.storeFailure ?? (e as Error).message);
      }
      return { status: 'ok', scenario: sim.scenario.source.name, store: storeKind, players: known };
    },
  );
};
