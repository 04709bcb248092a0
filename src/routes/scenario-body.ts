import { errorCodes, type FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { apiError } from '../http/errors.js';
import { jsonSyntaxError, plainJsonHint } from '../text/json-position.js';

/*
 * The admin routes' JSON bodies, parsed as Fastify's own parser does (a __proto__ or
 * constructor.prototype key refused), but keeping the text: a scenario that is not JSON is
 * answered with where it goes wrong (line, column) and what it looks like instead (YAML, a
 * comment), not the players' curl example the other routes give.
 */
export function parseAdminJson(app: FastifyInstance): void {
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.length === 0) return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
    try {
      done(null, sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' }));
    } catch (e) {
      if (!request.routeOptions.url?.endsWith('/admin/scenario')) return done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
      const { status, body: reply } = apiError('BODY_NOT_JSON', `${jsonSyntaxError(text, e as Error)}${plainJsonHint(text, 'scenarios')}`);
      done(Object.assign(new Error(reply.message), { statusCode: status, code: reply.error }), undefined);
    }
  });
}
