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

/**
 * A loopback port nothing listens on (a connection there is refused) that nothing of the suite can
 * take meanwhile: a privileged port (only root may bind one, and no test binds a port by number)
 * found refusing now, none of those fetch will not call (1, 7, 9, …). A port a listener had and
 * released is in the ephemeral range that every `listen(0)` of the tests beside draws from.
 */
export async function closedPort(): Promise<number> {
  const { connect } = await import('node:net');
  for (const port of [2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 18]) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
    });
    if (refused) return port;
  }
  throw new Error('no refusing privileged loopback port found (2-18 all answer): free one of them to run this test');
}
