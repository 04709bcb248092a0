import type { FastifyPluginAsync } from 'fastify';
import { grade } from '../grading/grade.js';
import type { Simulator } from '../simulator.js';

/**
 * GET /report (under /admin): the certification report, graded now from the journal, answered and
 * in-flight callbacks alike, with the active scenario's thresholds.
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
          "Grades the journal now against the 14 session checks (lost replies resent, retries under the same transaction_id, back-off, rounds settled…) with the active scenario's `grading` thresholds. Each check is pass, fail, pending (a window is still open) or not_exercised, with the journal ids of every violation.",
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
      const { user_id: userId } = request.query;
      const filter = userId === undefined ? {} : { user_id: userId };
      const entries = [
        ...(await sim.journal.list(filter)),
        ...(await sim.journal.inFlight()).filter((e) => userId === undefined || e.user_id === userId),
      ];
      return grade(entries, sim.scenario.grading, new Date(), sim.scenario.source.name, userId);
    },
  );
};
