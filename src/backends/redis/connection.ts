import { Redis, type RedisOptions } from 'ioredis';

import { clusterClient, connectMasters } from './cluster.js';
import { CLUSTER_SCHEME, DEFAULT_REDIS_TIMEOUT_MS } from './defaults.js';

export { DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT_MS } from './defaults.js';

/** How long `wallet-sim start` waits for Redis before it gives up (a clear message, nothing started). */
export const CONNECT_WAIT_MS = 10_000;

/**
 * A connection that fails fast instead of hanging: while Redis is down a command is refused at
 * once (no offline queue, no resend after a reconnect), so a callback answers R1 instead of
 * waiting; ioredis keeps reconnecting in the background (every 50 ms to 1 s) and the wallet serves
 * again as soon as Redis is back. A Redis that accepts the connection but does not answer (frozen)
 * is caught by `commandTimeout` (--redis-timeout-ms, set by `connectRedis`).
 */
export const REDIS_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 0,
  connectTimeout: DEFAULT_REDIS_TIMEOUT_MS,
  commandTimeout: DEFAULT_REDIS_TIMEOUT_MS,
  retryStrategy: (times) => Math.min(50 * times, 1_000),
  // A connection with an idle caller must notice a dead Redis too.
  keepAlive: 10_000,
};

/**
 * Opens a connection to `url` (a cluster's: `redis-cluster://host:port,…`, --redis-cluster); rejects
 * with a message naming the URL when Redis does not answer in time.
 */
export async function connectRedis(url: string, options: RedisOptions = {}): Promise<Redis> {
  const cluster = url.startsWith(CLUSTER_SCHEME);
  const client = cluster
    ? clusterClient(url.slice(CLUSTER_SCHEME.length), { ...REDIS_OPTIONS, ...options })
    : new Redis(url, { ...REDIS_OPTIONS, ...options });
  let lastError = '';
  client.on('error', (e: Error) => {
    lastError = e.message;
  });
  const ready = new Promise<void>((resolve) => client.once('ready', () => resolve()));
  client.connect().catch(() => {
    /* retried by retryStrategy; reported below */
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `Redis at ${redact(url)} does not answer (${lastError || 'no reply'}) after ${CONNECT_WAIT_MS / 1000} s; start redis-server or fix ${cluster ? '--redis-cluster' : '--redis-url'}`,
          ),
        ),
      CONNECT_WAIT_MS,
    );
  });
  try {
    await Promise.race([ready.then(() => connectMasters(client)), timeout]);
  } catch (e) {
    client.disconnect();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/** The URL without its password, for messages and logs. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
