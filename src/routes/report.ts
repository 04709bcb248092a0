import type { FastifyPluginAsync } from 'fastify';
import { apiError, sendApiError } from '../http/errors.js';
import { signReport } from '../evidence/sign-report.js';
import type { Signer } from '../evidence/signing-key.js';
import { reportOf } from '../grading/grade.js';
import type { SignedFor, SimOf } from './sim-of.js';
import { errorBody, errorResponse, sentAsReturned } from './docs.js';
import { adminSchema } from './admin-docs.js';

const SIGNED =
  'With `?signed=true` (a wallet-sim started with `--signing-key`): a `SignedReport`, the DSSE envelope of an in-toto statement ' +
  "(test-result predicate) signed with Ed25519, and the report it covers as the exact JSON text its sha256 names: `report` is a string, so the bytes survive any client's JSON parsing. " +
  'Save the body as it came and `wallet-sim verify-report <that file> --public-key <pub.pem>` checks it with the public key alone; ' +
  'or write `envelope` to a file and `report` to another, byte for byte (`wallet-sim report --signed FILE` does), for openssl.';

/**
 * GET /report (under /admin): the certification report of the current session, read from its
 * grading state (folded from the callbacks as they happened) at this moment — no journal is read.
 * `?signed=true` signs it (src/evidence/) when the server holds a signing key.
 */
export const reportRoutes: FastifyPluginAsync<{ simOf: SimOf; locked?: boolean; signer?: Signer; signedFor?: SignedFor }> = async (
  app,
  { simOf, locked, signer, signedFor },
) => {
  app.get<{ Querystring: { user_id?: string; signed?: 'true' | 'false' } }>(
    '/report',
    {
      // Sent as built: the 200 is a Report or a SignedReport (its report a string, byte for byte).
      ...sentAsReturned,
      schema: adminSchema(
        'GET',
        { locked: locked === true },
        {
          operationId: 'report',
          summary: "Certification report: how the provider's client behaved across callbacks",
          description:
            "The current session's verdict on the 14 checks (lost replies resent, retries under the same transaction_id, back-off, rounds settled…) with the active scenario's `grading` thresholds. The session began at start-up or at the last reset; only callbacks with the right credentials are graded. Each check is pass, fail, pending (a window is still open) or not_exercised, with the journal ids and bounded excerpts of every violation (what became of each reply: written, dropped, held, forced; when the check decided: what the timelines of the HTML page and the dashboard draw), and the provider's timing profile (its retry gaps also as histogram buckets).\n\n" +
            SIGNED,
          querystring: {
            type: 'object',
            // As the journal's and the ledger's: a misspelt parameter (?user=) is refused, not read as "every player".
            additionalProperties: false,
            properties: {
              user_id: { type: 'string', description: "Grade only this player's callbacks." },
              signed: {
                type: 'string',
                enum: ['true', 'false'],
                description: 'true: answer a SignedReport (needs `start --signing-key`; 404 SIGNING_NOT_ENABLED without it).',
              },
            },
          },
          response: {
            200: {
              description:
                'The report: a summary, every check with its status and violations, the open rounds and the findings counted by code. ' +
                'With ?signed=true, the SignedReport: the DSSE envelope and the report text it covers.',
              anyOf: [{ $ref: 'Report#' }, { $ref: 'SignedReport#' }],
            },
            400: errorResponse(
              'A query parameter is invalid or unknown (BAD_REQUEST): signed takes true or false; the message names the parameters the route takes (user_id, signed).',
            ),
            404: errorResponse('?signed=true, and this wallet-sim was started without --signing-key (SIGNING_NOT_ENABLED).', [
              errorBody('SIGNING_NOT_ENABLED'),
            ]),
          },
        },
      ),
    },
    async (request, reply) => {
      const signed = request.query.signed === 'true';
      if (signed && !signer) return sendApiError(reply, apiError('SIGNING_NOT_ENABLED'));
      const sim = simOf(request);
      const { grader, info, wallet } = await sim.currentGrading();
      await sim.backend.verify?.(); // (Redis lost the wallet's state, the session's document aside: 503, never a report of it)
      const report = reportOf(grader, {
        now: new Date(),
        scenario: sim.scenario.source.name,
        session: { ...info, seed: sim.seed },
        userId: request.query.user_id,
        wallet, // proxy mode: the operator wallet's side
        upstream: sim.wallet.upstream,
      });
      return signed ? signReport(signer!, report, sim.scenario.source, signedFor?.(request)) : report;
    },
  );
};
