import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Listens on 127.0.0.1, any free port; returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

export interface PostResult { status: number; body: any; ms: number; error?: string }

/**
 * POSTs JSON over a real socket with node:http (no retries, no pooling), so a dropped connection
 * shows as the error a provider's client would see.
 */
export function post(url: string, payload: object, headers: Record<string, string>): Promise<PostResult> {
  const started = performance.now();
  const data = JSON.stringify(payload);
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': Buffer.byteLength(data).toString() } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => {
        let body: unknown = text;
        try { body = JSON.parse(text); } catch { /* raw */ }
        resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started });
      });
      res.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, body: undefined, ms: performance.now() - started, error: e.code ?? e.message }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, body: undefined, ms: performance.now() - started, error: e.code ?? e.message }));
    req.end(data);
  });
}
