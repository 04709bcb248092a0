import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { buildReply, headerSafe } from '../callback/handle.js';
import { fromFastify } from '../errors.js';
import { Answer } from './callback-answer.js';
import { callbackRouteSchema } from './callback-docs.js';
import { maskedHeaders } from '../secrets.js';
import type { Simulator } from '../simulator.js';

export interface CallbackRouteOptions {
  sim: Simulator;
  path: string;
  bodyLimit: number;
}

/**
 * POST <path>: the three callbacks. The route only translates HTTP in and out; the pipeline in
 * ../callback/handle.ts (handleCallback) decides. The body arrives as a string whatever its Content-Type, so a malformed,
 * empty or mislabelled body still gets the protocol's answer (R3, HTTP 200) instead of a 400/415.
 */
export const callbackRoutes: FastifyPluginAsync<CallbackRouteOptions> = async (app, { sim, path, bodyLimit }) => {
  app.removeAllContentTypeParsers();
  const asText = (_req: unknown, body: string | Buffer, done: (err: null, body: string | Buffer) => void) => done(null, body);
  // The same parser twice: Fastify caches the parser of a named type, while the catch-all is looked
  // up again (its Content-Type parsed anew) for every request.
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, asText);
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, asText);

  // A failure before the pipeline (a body over the limit) is journalled too. Its reply carries
  // Api-Id / Api-Key like every callback reply (echo of the request's, or reply_credentials).
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const refused =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500
        ? (fromFastify(error, request) ?? {
            status: error.statusCode,
            body: { error: error.code ?? 'BAD_REQUEST', message: error.message },
          })
        : undefined;
    const status = refused?.status ?? 200;
    const reason = refused ? `${refused.body.error}: ${refused.body.message}` : `R1: internal error: ${error.message}`;
    if (!refused) request.log.error({ err: error }, 'callback failed');
    else request.log.info({ reason }, 'callback refused');
    const body = refused?.body ?? buildReply('R1', '', '', undefined).body;
    const echo = (name: string) => {
      const v = request.headers[name];
      return (Array.isArray(v) ? v[0] : v) ?? '';
    };
    const fixed = sim.scenario.replyCredentials;
    const headers = {
      'content-type': 'application/json',
      'api-id': fixed?.api_id ?? echo('api-id'),
      'api-key': fixed?.api_key ?? echo('api-key'),
      'x-wallet-sim-reason': headerSafe(reason),
    };
    const at = new Date().toISOString();
    // Not awaited: a shared journal's write must not hold the reply (the in-memory one is immediate).
    void sim.journal.record({
      received_at: at,
      replied_at: at,
      duration_ms: 0,
      request: { method: request.method, url: request.url, headers: {}, body: null },
      reply: { status, headers: maskedHeaders(headers), body, dropped: false, client_gone: false },
      reason,
      replayed: false,
      findings: [],
    });
    return reply.code(status).headers(headers).send(JSON.stringify(body));
  });

  app.post(
    path,
    {
      schema: callbackRouteSchema(bodyLimit),
      // The pipeline validates with the same schema and turns each error into a finding and an R3;
      // the schema above is for the OpenAPI document.
      validatorCompiler: () => () => true,
    },
    (request, reply) => new Answer(sim, request, reply).start(),
  );
};
