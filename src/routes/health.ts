import type { FastifyPluginAsync } from 'fastify';
import type { Simulator } from '../core/simulator.js';
import { SHUTDOWN_503 } from './docs.js';

const UP =
  'The simulator answers: the active scenario, the store kind and the number of players; in proxy mode (start --upstream) ' +
  'the upstream wallet, whether it was reached when last tried (the check at start, then every forward) and why not.';
const DOWN =
  'The store cannot serve (status store_failed, error: why and what to do); callbacks get R1 meanwhile. A local store: a write ' +
  'failed, until a restart. --store redis: Redis is unreachable, or does not answer within --redis-timeout-ms (answered ' +
  'within that time, never a hang), until it answers again; or it lost the state of the wallet (flushed, evicted or restarted ' +
  `without persistence), until POST /admin/reset starts afresh. Or: ${SHUTDOWN_503}`;
const DEGRADED =
  ' On a Redis Cluster with a master lost (--redis-cluster), or players whose master lost their records: still 200, as the other ' +
  'players are served, with `degraded` naming the master or the players (until the master is back, or POST /admin/reset).';

export const healthRoutes: FastifyPluginAsync<{ sim: Simulator; storeKind: string }> = async (app, { sim, storeKind }) => {
  // What a 503 reports while the store cannot be asked (the last count read).
  let known = 0;
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        operationId: 'health',
        summary: 'Liveness: the simulator answers (503 while the store cannot serve, with the reason)',
        response: { 200: { description: UP + DEGRADED, $ref: 'Health#' }, 503: { description: DOWN, $ref: 'Health#' } },
      },
    },
    async (_request, reply) => {
      const upstream = sim.wallet.upstreamHealth;
      const down = (error: string) =>
        reply.code(503).send({
          status: 'store_failed',
          scenario: sim.scenario.source.name,
          store: storeKind,
          players: known,
          error,
          ...(upstream && { upstream }),
        });
      if (sim.storeFailure) return down(sim.storeFailure);
      try {
        known = await sim.playerCount();
      } catch (e) {
        return down(sim.storeFailure ?? sim.backend.unavailable?.(e) ?? (e as Error).message);
      }
      const degraded = sim.backend.degraded;
      return {
        status: 'ok',
        scenario: sim.scenario.source.name,
        store: storeKind,
        players: known,
        ...(degraded && { degraded }),
        ...(upstream && { upstream }),
      };
    },
  );
};
