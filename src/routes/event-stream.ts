import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Takes the reply over as a server-sent event stream: status 200, the stream's headers (with any
 * set before it began, CORS under --cors among them), and a first comment line, so a client sees
 * the stream open before the first event.
 */
export function openEventStream(reply: FastifyReply, comment: string): ServerResponse {
  const early = reply.getHeaders() as OutgoingHttpHeaders;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...early,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  res.write(`: ${comment}\n\n`);
  return res;
}
