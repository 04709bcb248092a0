import { request } from 'node:http';

export { listen } from './app.js';

export interface PostResult {
  status: number;
  body: any;
  ms: number;
  error?: string;
}

/**
 * POSTs JSON over a real socket with node:http (no retries, no pooling), so a dropped connection
 * shows as the error a provider's client would see. With `timeoutMs`, the client gives up as a
 * provider's HTTP client does (error `TIMEOUT`).
 */
export function post(url: string, payload: object, headers: Record<string, string>, timeoutMs?: number): Promise<PostResult> {
  const started = performance.now();
  const data = JSON.stringify(payload);
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: 'POST', agent: false, headers: { ...headers, 'content-length': Buffer.byteLength(data).toString() } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* raw */
          }
          resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started });
        });
        res.on('error', (e: NodeJS.ErrnoException) =>
          resolve({ status: 0, body: undefined, ms: performance.now() - started, error: e.code ?? e.message }),
        );
      },
    );
    if (timeoutMs !== undefined) req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timed out'), { code: 'TIMEOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ status: 0, body: undefined, ms: performance.now() - started, error: e.code ?? e.message }),
    );
    req.end(data);
  });
}

/** A loopback port nothing listens on: one a listener had, closed (a connection there is refused). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
