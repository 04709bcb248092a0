import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Answer, type CallbackExchange } from '../core/pipeline.js';
import type { Simulator } from '../core/simulator.js';
import type { CallbackInput } from '../protocol/port.js';
import type { ApiErrorReply } from '../http/errors.js';
import { failedCallback } from './callback.js';
import { cutForTime } from '../http/client-errors.js';

/**
 * The callback lane: a callback answered from the HTTP server's `request` event, ahead of Fastify's
 * router, by the same pipeline the callback route runs (docs/design.md, "The callback lane").
 * Fastify's per-request code (its request and reply objects, hooks, the body parser, the child
 * logger) is shared with every other route, and once other routes have served traffic V8 runs it
 * compiled for several shapes of request: a hosted wallet-sim that created 1,000 tenants answered
 * its callbacks 7–10 % slower for it (docs/hosted-cost.md). The lane takes only a callback it can
 * answer exactly as the route would; anything else goes on to Fastify: another method or path, a
 * body without a Content-Length or over the limit (the route answers 413), a server closing (the shutdown gate answers 503), proxy mode
 * (relayed bytes), `--cors`. `fastify.inject` never comes this way, so tests that inject run the
 * route; test/callback-lane.test.ts and test/callback-lane-hostile.test.ts (raw bytes over a socket)
 * hold the two to the same replies and journal entries.
 */
export type Lane = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Where a callback on `path` goes: its simulator, the logger of its lines, and its admission (hosted mode: the tenant's limits). */
export interface LaneTarget {
  sim: Simulator;
  log: CallbackExchange['log'];
  /** Counts the callback in, or refuses it (answered as given, before its body is read). */
  admit?: (res: ServerResponse) => ApiErrorReply | undefined;
}

export interface LaneOptions {
  /** The target of a POST to `path` (its query string aside), or undefined: Fastify's routes answer. */
  target(path: string): LaneTarget | undefined;
  bodyLimit: number;
  /** The server is closing: the shutdown gate answers (src/http/shutdown.ts). */
  closing(): boolean;
}

export function callbackLane(o: LaneOptions): Lane {
  return (req, res) => {
    if (req.method !== 'POST' || o.closing()) return false;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const target = o.target(query < 0 ? url : url.slice(0, query));
    if (!target || target.sim.wallet.upstream !== undefined) return false;
    // The headers only of a callback: other routes' requests (their headers of other shapes) never pass these reads.
    const { headers } = req;
    if (headers['transfer-encoding'] !== undefined) return false;
    const length = Number(headers['content-length']);
    if (!(length <= o.bodyLimit)) return false; // (absent: NaN)
    const refused = target.admit?.(res);
    if (refused) {
      writeText(res, refused.status, { ...refused.headers, 'content-type': JSON_TEXT }, JSON.stringify(refused.body), o.closing());
      return true;
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    // The caller went before its body was complete: journalled as the route's body parser refuses it (400).
    req.on('error', (e: Error & { code?: string }) => {
      const refused =
        cutForTime(req.socket) ?? ({ status: 400, body: { error: e.code ?? 'BAD_REQUEST', message: e.message } } as ApiErrorReply);
      const exchange = new RawExchange(req, res, '', target, o.closing);
      try {
        const { status, headers, body: text } = failedCallback(target.sim, exchange.input, exchange.log, e, refused);
        if (!res.destroyed) exchange.send(status, headers, text);
      } catch (again) {
        // A throw the route's error handler would have made (Fastify catches it): logged, never the process's end.
        exchange.log.error({ err: again }, 'callback reply failed');
        res.destroy();
      }
    });
    req.on('end', () => {
      const exchange = new RawExchange(req, res, body, target, o.closing);
      try {
        new Answer(target.sim, exchange).start();
      } catch (e) {
        // A throw the route's handler would have made: its error handler answers (R1), never the process.
        const error = e instanceof Error ? e : new Error(String(e));
        if (exchange.sent) exchange.log.error({ err: error }, 'callback failed after its reply');
        else exchange.fail(error);
      }
    });
    return true;
  };
}

const JSON_TEXT = 'application/json; charset=utf-8';

/**
 * Writes a text reply as Fastify's `reply.send` writes one: a JSON type without a charset gets
 * `; charset=utf-8`, no type at all `text/plain; charset=utf-8`; the length always (a 204: no body,
 * no type, no length); `Connection: close` once the server is closing (the shutdown gate's onSend hook).
 */
function writeText(res: ServerResponse, status: number, given: Record<string, string>, body: string, closing: boolean): void {
  const headers: Record<string, string | number> = { ...given };
  if (closing) headers.connection = 'close';
  if (status === 204) {
    // No content (a rule's http_status): written, as Fastify writes it, without a body, a type or a length (RFC 9110, 15.3.5).
    delete headers['content-type'];
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const type = headers['content-type'] as string | undefined;
  if (type === undefined) headers['content-type'] = 'text/plain; charset=utf-8';
  else if (type.toLowerCase().includes('json') && !/;\s*charset=/i.test(type)) headers['content-type'] = `${type}; charset=utf-8`;
  headers['content-length'] = Buffer.byteLength(body);
  res.writeHead(status, headers);
  res.end(body);
}

/** The pipeline's view of a callback that came by the lane: Node's request and response themselves. */
class RawExchange implements CallbackExchange {
  readonly input: CallbackInput;
  readonly log: CallbackExchange['log'];
  sent = false;
  private readonly socket: Socket;

  constructor(
    req: IncomingMessage,
    private readonly res: ServerResponse,
    body: string,
    private readonly target: LaneTarget,
    private readonly closing: () => boolean,
  ) {
    this.socket = req.socket;
    this.log = target.log;
    this.input = { method: req.method ?? 'POST', url: req.url ?? '', headers: req.headers, body };
  }

  get clientGone(): boolean {
    return this.socket.destroyed === true;
  }

  onClose(listener: () => void): () => void {
    const socket = this.socket;
    socket.once('close', listener);
    return () => socket.off('close', listener);
  }

  forgetBody(): void {
    this.input.body = '';
  }

  send(status: number, headers: Record<string, string>, body: string | Uint8Array): void {
    this.sent = true;
    if (typeof body === 'string') return writeText(this.res, status, headers, body, this.closing());
    // (relayed bytes, written under exactly their headers: the lane leaves proxy mode to the route, this is for completeness)
    this.res.writeHead(status, { ...headers, 'content-length': body.byteLength });
    this.res.end(body);
  }

  drop(): void {
    this.sent = true;
    this.socket.destroy();
  }

  fail(error: Error): void {
    try {
      const { status, headers, body } = failedCallback(this.target.sim, this.input, this.log, error);
      this.send(status, headers, body);
    } catch (again) {
      this.log.error({ err: again }, 'callback reply failed');
      this.socket.destroy();
    }
  }
}
