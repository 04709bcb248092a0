import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'safe-stable-stringify';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Awaitable } from '../awaitable.js';
import { buildReply, type CallbackOutput, handleCallback, headerSafe, unjournalled } from '../callback/handle.js';
import { fromFastify } from '../errors.js';
import { eventNamed } from '../events/index.js';
import { isoTime } from '../iso-time.js';
import { callbackRouteSchema } from './callback-docs.js';
import { maskedHeaders } from '../secrets.js';
import type { Simulator } from '../simulator.js';
import type { GradingFeed } from '../grading/feed.js';
import { loopLag } from '../grading/loop-lag.js';
import type { Finding } from '../protocol/findings.js';
import type { StoredEntry } from '../journal/journal.js';

/** An authenticated callback enters grading when it has a transaction_id, a player and one of the events. */
function gradedArrival(grader: GradingFeed, ticket: number, id: number, at: number, out: CallbackOutput, body: unknown): unknown {
  const { transaction_id: tx, user_id: user, event_type: event, request, reply, code } = out.entry;
  if (tx === undefined || user === undefined || event === undefined || !eventNamed(event)) {
    grader.settle(ticket);
    return undefined;
  }
  const data = (request.body as { data?: { game_no?: unknown; total_bet_amount?: unknown } } | null)?.data;
  return grader.arrive(
    {
      id,
      at,
      user,
      event,
      tx,
      game: typeof data?.game_no === 'string' ? data.game_no : undefined,
      total: typeof data?.total_bet_amount === 'number' ? data.total_bet_amount : undefined,
      body,
      applied: code === 'R0',
      source: { request: { headers: request.headers, body }, reply },
      lag: loopLag.at(at),
    },
    ticket,
  );
}

/** Bodies longer than this are graded by a digest: grading never holds a large body. */
const GRADED_BODY_CHARS = 8192;

/**
 * The body as grading keeps it (to compare resends, and as evidence): the parsed body when small; a
 * digest of it without its timestamp otherwise (a resend with the same digest is unchanged).
 */
function gradedBody(body: unknown, chars: number): unknown {
  if (chars <= GRADED_BODY_CHARS || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { timestamp: _ignored, ...rest } = body as Record<string, unknown>;
  return {
    body_sha256: createHash('sha256')
      .update(stringify(rest) ?? '')
      .digest('hex'),
    characters: chars,
  };
}

const NO_CODES: readonly string[] = [];

/** Each finding code once per callback. */
function findingCodes(findings: readonly Finding[]): Iterable<string> {
  if (findings.length === 0) return NO_CODES;
  if (findings.length === 1) return [findings[0]!.code];
  return new Set(findings.map((f) => f.code));
}

export interface CallbackRouteOptions {
  sim: Simulator;
  path: string;
  bodyLimit: number;
}

/**
 * POST <path>: the three callbacks. The route only translates HTTP in and out; the pipeline in
 * ../callback.ts decides. The body arrives as a string whatever its Content-Type, so a malformed,
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

type Pending = Awaited<ReturnType<Simulator['journal']['begin']>>;

/**
 * One callback being answered: decided, journalled, graded, replied. Each step goes on at once
 * when the one before answered at once (the memory store and journal), after it otherwise (Redis,
 * a delay_ms): a callback served from memory makes no promise and waits for no turn.
 */
class Answer {
  private readonly started = performance.now();
  private readonly arrivedAt = Date.now();
  /** The session it arrived in grades it, whatever reset comes before its reply. */
  private readonly grader: GradingFeed;
  private readonly ticket: number;
  private readonly chars: number;
  private out!: CallbackOutput;
  /** The body as grading keeps it. */
  private graded: unknown;
  private attempt: unknown;

  constructor(
    private readonly sim: Simulator,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
  ) {
    this.grader = sim.gradingFeed;
    this.ticket = this.grader.expect(this.arrivedAt);
    this.chars = typeof request.body === 'string' ? request.body.length : 0;
  }

  start(): Awaitable<undefined> {
    const { request } = this;
    let out: Awaitable<CallbackOutput>;
    try {
      out = handleCallback(this.sim, {
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: typeof request.body === 'string' ? request.body : '',
      });
    } catch (e) {
      return this.failed(e);
    }
    return out instanceof Promise
      ? out.then(
          (o) => this.decided(o),
          (e: unknown) => this.failed(e),
        )
      : this.decided(out);
  }

  private failed(e: unknown): never {
    this.grader.settle(this.ticket);
    throw e;
  }

  private decided(out: CallbackOutput): Awaitable<undefined> {
    this.out = out;
    let pending: Awaitable<Pending>;
    try {
      // Taken before the journal may cut the body to an excerpt (past --journal-bytes).
      this.graded = out.authenticated ? gradedBody(out.entry.request.body, this.chars) : undefined;
      // Journalled now, finished when answered: a report asked during a delay sees it unanswered.
      // The entry is handed over, not copied.
      pending = this.sim.journal.begin(Object.assign(out.entry, { received_at: isoTime(this.arrivedAt) }), this.chars);
    } catch (e) {
      return this.failed(e);
    }
    return pending instanceof Promise
      ? pending.then(
          (p) => this.journalled(p),
          (e: unknown) => this.failed(e),
        )
      : this.journalled(pending);
  }

  private journalled(pending: Pending): Awaitable<undefined> {
    const { out, grader } = this;
    if (out.authenticated) this.attempt = gradedArrival(grader, this.ticket, pending.id, this.arrivedAt, out, this.graded);
    else grader.settle(this.ticket);
    return out.delayMs ? this.delayed(pending) : this.answer(pending);
  }

  private async delayed(pending: Pending): Promise<undefined> {
    // The journal holds (or, past --journal-bytes, excerpts) the body now; the text goes.
    this.request.body = undefined;
    const socket = this.request.raw.socket;
    const { attempt, grader } = this;
    // The caller giving up during the delay is when it knew the reply was lost (its time-out).
    const closedEarly = attempt ? () => grader.closed(attempt, Date.now()) : undefined;
    if (closedEarly) socket.once('close', closedEarly);
    await sleep(this.out.delayMs);
    if (closedEarly) socket.off('close', closedEarly);
    return this.answer(pending);
  }

  private answer(pending: Pending): Awaitable<undefined> {
    const repliedAt = Date.now();
    // The caller gave up (its own time-out) before the reply: it never read it.
    const clientGone = this.request.raw.socket.destroyed === true; // (an injected request's fake socket is never destroyed)
    const entry = pending.finish({
      replied_at: isoTime(repliedAt),
      duration_ms: Math.round(performance.now() - this.started),
      client_gone: clientGone,
    });
    return entry instanceof Promise ? entry.then((e) => this.send(e, repliedAt, clientGone)) : this.send(entry, repliedAt, clientGone);
  }

  private send(entry: StoredEntry, repliedAt: number, clientGone: boolean): undefined {
    const { grader, attempt, request, reply } = this;
    let out = this.out;
    const kept = !(entry.id === 0 && out.code === 'R0');
    if (!kept) out = unjournalled(this.sim, out); // Redis did not keep the entry
    if (attempt) {
      const body = kept ? out.entry.reply.body : { code: out.code };
      grader.complete(attempt, { end: repliedAt, status: out.status, body, dropped: out.drop, clientGone });
    }
    grader.count(out.entry.user_id, findingCodes(out.entry.findings));
    request.log.info(
      {
        journal_id: entry.id,
        code: out.code,
        reason: out.reason,
        transaction_id: entry.transaction_id,
        user_id: entry.user_id,
        event_type: entry.event_type,
      },
      out.reason ?? 'R0',
    );
    if (out.drop) {
      // The lost-reply case: the change is applied, the caller never hears of it.
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    reply
      .code(out.status as 200)
      .headers(out.headers)
      .send(out.body); // a rule may force any status
  }
}
