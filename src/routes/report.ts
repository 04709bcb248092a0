import type { FastifyPluginAsync } from 'fastify';
import { reportOf } from '../grading/grade.js';
import type { Simulator } from '../simulator.js';

/**
 * GET /report (under /admin): the certification report of the current session, read from its
 * grading state (folded from the callbacks as they happened) at this moment — no journal is read.
 */
export const reportRoutes: FastifyPluginAsync<{ sim: Simulator; locked?: boolean }> = async (app, { sim, locked }) => {
  app.get<{ Querystring: { user_id?: string } }>(
    '/report',
    {
      schema: {
        tags: ['admin'],
        security: locked ? [{ bearer: [] }] : undefined,
        operationId: 'report',
        summary: "Certification report: how the provider's client behaved across callbacks",
        description:
          "The current session's verdict on the 14 checks (lost replies resent, retries under the same transaction_id, back-off, rounds settled…) with the active scenario's `grading` thresholds. The session began at start-up or at the last reset; only callbacks with the right credentials are graded. Each check is pass, fail, pending (a window is still open) or not_exercised, with the journal ids and bounded excerpts of every violation, and the provider's timing profile.",
        querystring: { type: 'object', properties: { user_id: { type: 'string', description: "Grade only this player's callbacks." } } },
        response: {
          200: {
            $ref: 'Report#',
            description:
              'The report: a summary, every check with its status and violations, the open rounds and the findings counted by code.',
          },
          ...(locked ? { 401: { $ref: 'ApiError#', description: 'Authorization: Bearer <--admin-token> missing or wrong.' } } : {}),
        },
      },
    },
    async (request) => {
      const { grader, info } = await sim.currentGrading();
      return reportOf(grader, {
        now: new Date(),
        scenario: sim.scenario.source.name,
        session: { ...info, seed: sim.seed },
        userId: request.query.user_id,
      });
    },
  );
};
