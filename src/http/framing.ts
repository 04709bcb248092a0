import type { FastifyInstance, onSendHookHandler } from 'fastify';

/** The directive that keeps every page of wallet-sim out of other sites' frames. */
export const FRAME_ANCESTORS = "frame-ancestors 'none'";

/**
 * A page that can be framed can be clicked for the user ("Try it out" on POST /admin/reset):
 * every reply of the scope gets `X-Frame-Options: DENY` and `frame-ancestors 'none'`, added to a
 * Content-Security-Policy the route already sets or as the whole policy.
 */
export const denyFraming: onSendHookHandler = (_request, reply, payload, done) => {
  reply.header('x-frame-options', 'DENY');
  const csp = reply.getHeader('content-security-policy');
  const policy = Array.isArray(csp) ? csp.join('; ') : csp === undefined ? '' : String(csp);
  if (!/(^|;)\s*frame-ancestors\s/i.test(policy))
    reply.header('content-security-policy', policy ? `${policy}; ${FRAME_ANCESTORS}` : FRAME_ANCESTORS);
  done(null, payload);
};

/** Runs `register` in a scope of its own whose every reply refuses to be framed. */
export async function unframed(app: FastifyInstance, register: (scope: FastifyInstance) => PromiseLike<unknown>): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onSend', denyFraming);
    await register(scope);
  });
}
