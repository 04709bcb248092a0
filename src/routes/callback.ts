import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';
import { isMediaType } from '../http/headers.js';
import { Answer, type CallbackExchange } from '../core/pipeline.js';
import type { CallbackInput } from '../protocol/port.js';
import { type ApiErrorReply, fromFastify } from '../http/errors.js';
import type { Simulator } from '../core/simulator.js';
import { callbackRouteSchema } from './callback-docs.js';
import { maskedHeaders } from '../kernel/secrets.js';
import type { SimOf } from './sim-of.js';
import { cutForTime } from '../http/client-errors.js';

export interface CallbackRouteOptions {
  simOf: SimOf;
  path: string;
  bodyLimit: number;
  /** Proxy mode: replies relayed from the upstream wallet (one without a Content-Type is written without one). */
  relays?: boolean;
}

/**
 * POST <path>: the three callbacks. The route only translates HTTP in and out; the pipeline
 * (../core/pipeline.ts) reads, decides, journals, grades and answers. The body arrives as a
 * string whatever its Content-Type, so a malformed, empty or mislabelled body still gets the
 * protocol's answer (R3, HTTP 200) instead of a 400/415. A Content-Type that is no media type at all
 * (`json`, an empty one) Fastify would refuse 415 before any parser: the route hides it from Fastify
 * until the body is read, and the pipeline finds it wrong like any other (CONTENT_TYPE_WRONG, R3).
 */
export const callbackRoutes: FastifyPluginAsync<CallbackRouteOptions> = async (app, { simOf, path, bodyLimit, relays }) => {
  app.removeAllContentTypeParsers();
  const asText = (request: FastifyRequest, body: string | Buffer, done: (err: null, body: string | Buffer) => void) => {
    unhide(request);
    done(null, body);
  };
  // The same parser twice: Fastify caches the parser of a named type, while the catch-all is looked
  // up again (its Content-Type parsed anew) for every request.
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, asText);
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, asText);

  // A failure before the pipeline (a body over the limit) is journalled too. Its reply carries
  // Api-Id / Api-Key like every callback reply (echo of the request's, or reply_credentials).
  app.setErrorHandler<FastifyError>((error, request, reply) => {
    unhide(request);
    const refused =
      cutForTime(request.raw.socket) ??
      (error.statusCode && error.statusCode >= 400 && error.statusCode < 500
        ? (fromFastify(error, request) ?? {
            status: error.statusCode,
            body: { error: error.code ?? 'BAD_REQUEST', message: error.message },
          })
        : undefined);
    const { status, headers, body } = failedCallback(simOf(request), request, request.log, error, refused);
    return reply.code(status).headers(headers).send(body);
  });

  app.post(
    path,
    {
      onRequest: hideNoMediaType,
      // Proxy mode only: a relayed reply that had no Content-Type gets none (Fastify would add one to bytes).
      ...(relays && { onSend: keepUntyped }),
      schema: callbackRouteSchema(bodyLimit),
      // The pipeline validates with the same schema and turns each error into a finding and an R3;
      // the schema above is for the OpenAPI document.
      validatorCompiler: () => () => true,
    },
    (request, reply) => new Answer(simOf(request), new FastifyExchange(request, reply)).start(),
  );
};

/** The Content-Type of requests whose header is hidden from Fastify while it dispatches the body (it is no media type). */
const hidden = new WeakMap<FastifyRequest['raw'], string>();

/**
 * A Content-Type that is no media type is taken off the request until the body is read: Fastify
 * then reads the body with the catch-all parser (as for a request without one) instead of answering
 * 415, and the pipeline sees the header as sent.
 */
const hideNoMediaType: onRequestHookHandler = (request, _reply, done) => {
  const type = request.headers['content-type'];
  if (type !== undefined && type !== 'application/json' && !isMediaType(type)) {
    hidden.set(request.raw, type);
    delete request.raw.headers['content-type'];
  }
  done();
};

/** Puts back a Content-Type hideNoMediaType took off (the body is read, or refused). */
function unhide(request: FastifyRequest): void {
  const type = hidden.get(request.raw);
  if (type === undefined) return;
  hidden.delete(request.raw);
  request.raw.headers['content-type'] = type;
}

/** Relayed replies that came without a Content-Type: they are written without one. */
const untyped = new WeakSet<FastifyReply>();

const keepUntyped: onSendHookHandler = (_request, reply, payload, done) => {
  if (untyped.has(reply)) reply.removeHeader('content-type');
  done(null, payload);
};

/**
 * The pipeline's view of one request and its reply. A class, not an object literal: a literal with
 * getters and methods is built slowly for every callback (its accessors and closures made anew),
 * and was a measurable part of one (docs/bench.md).
 */
class FastifyExchange implements CallbackExchange {
  readonly input: CallbackInput;
  private readonly socket: FastifyRequest['raw']['socket'];

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    this.socket = request.raw.socket;
    unhide(request); // (a body read without a parser: an empty one)
    this.input = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: typeof request.body === 'string' ? request.body : '',
    };
  }

  get clientGone(): boolean {
    return this.socket.destroyed === true; // (an injected request's fake socket is never destroyed)
  }

  get log(): CallbackExchange['log'] {
    return this.request.log;
  }

  onClose(listener: () => void): () => void {
    const socket = this.socket;
    socket.once('close', listener);
    return () => socket.off('close', listener);
  }

  forgetBody(): void {
    this.request.body = undefined;
    this.input.body = '';
  }

  send(status: number, headers: Record<string, string>, body: string | Uint8Array): void {
    // Bytes (a relayed reply) go as they are: Fastify adds a charset to a JSON type only for text.
    if (typeof body !== 'string' && headers['content-type'] === undefined) untyped.add(this.reply);
    this.reply
      .code(status as 200)
      .headers(headers)
      .send(body);
  }

  drop(): void {
    this.reply.hijack();
    this.socket.destroy();
  }

  get sent(): boolean {
    return this.reply.sent;
  }

  fail(error: Error): void {
    try {
      this.reply.send(error);
    } catch (again) {
      this.request.log.error({ err: again }, 'callback reply failed');
      this.socket.destroy();
    }
  }
}

/**
 * The answer to a callback that failed before or outside the pipeline: a refusal (`refused`: a body
 * over the limit) with its HTTP status, or an internal error answered with the protocol's failed
 * code. Journalled, with the protocol's reply headers; the body was not read, so there is no event
 * to echo a Callback-URL for. The route's error handler and the callback lane (./callback-lane.ts) answer with it.
 */
export function failedCallback(
  sim: Simulator,
  request: Pick<CallbackInput, 'method' | 'url' | 'headers'>,
  log: CallbackExchange['log'],
  error: Error,
  refused?: ApiErrorReply,
): { status: number; headers: Record<string, string>; body: string } {
  const status = refused?.status ?? 200;
  const { protocol } = sim;
  const failed = protocol.codes.failed;
  const reason = refused ? `${refused.body.error}: ${refused.body.message}` : `${failed}: internal error: ${error.message}`;
  if (!refused) log.error({ err: error }, 'callback failed');
  else log.info({ reason }, 'callback refused');
  const body = refused?.body ?? protocol.reply(failed, '', '', undefined).body;
  const headers = protocol.replyHeaders(
    sim.scenario,
    { method: request.method, url: request.url, headers: request.headers, body: '' },
    undefined,
    reason,
  );
  const at = new Date().toISOString();
  // Not awaited: a shared journal's write must not hold the reply (the in-memory one is immediate).
  void sim.journal.record({
    received_at: at,
    replied_at: at,
    duration_ms: 0,
    request: { method: request.method, url: request.url, headers: maskedHeaders(request.headers), body: null },
    reply: { status, headers: maskedHeaders(headers), body, dropped: false, client_gone: false },
    reason,
    replayed: false,
    findings: [],
  });
  return { status, headers, body: JSON.stringify(body) };
}
