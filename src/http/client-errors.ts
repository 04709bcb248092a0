import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { apiError, type ApiErrorReply } from './errors.js';
import type { ServerLimits } from './limits.js';

/** Connections Node cut for a request that did not arrive in time, with the 408 they were answered. */
const timedOut = new WeakMap<Socket, ApiErrorReply>();

/**
 * What Node's HTTP parser refuses before any handler runs (a request too slow, headers too large,
 * bytes that are not HTTP), answered in the house format with what to do, as every other error is.
 * Fastify's own handler answers `{"error":"Request Timeout","message":"Client Timeout"}` and the like.
 */
export function clientErrorHandler(limits: Pick<ServerLimits, 'headersTimeoutMs' | 'requestTimeoutMs'>) {
  return function onClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    // A connection reset: nobody to answer (as Fastify's handler).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const refusal =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? apiError('REQUEST_TIMEOUT', limits.headersTimeoutMs, limits.requestTimeoutMs)
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? apiError('HEADERS_TOO_LARGE')
          : apiError('HTTP_MALFORMED', error.code ?? error.message);
    const { status, body } = refusal;
    if (status === 408) timedOut.set(socket, refusal);
    this.log.debug({ err: error }, 'a request refused by the HTTP parser');
    // Bytes past a complete request (a Content-Length shorter than the body): that request is
    // being answered, and may have changed a balance. Its reply goes first, then the refusal.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (status !== 408 && inFlight && !inFlight.writableFinished && inFlight.req?.complete) {
      inFlight.once('close', () => refuse(socket, status, body, error));
      return;
    }
    refuse(socket, status, body, error);
  };
}

/** Writes the refusal (when the connection can still take it) and closes the connection. */
function refuse(socket: Socket, status: number, body: object, error: Error): void {
  if (socket.writable) {
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/**
 * Why a callback's body never completed, when it was Node that cut it: its caller got the 408
 * above, and the journal says so (not the "aborted" its body stream reports).
 */
export function cutForTime(socket: Socket | undefined): ApiErrorReply | undefined {
  return socket && timedOut.get(socket);
}
