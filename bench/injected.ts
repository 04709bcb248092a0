import type { FastifyInstance } from 'fastify';
import { HEADERS } from './traffic.js';

/**
 * CPU per callback (process.cpuUsage: user + system, garbage collection included) of `count`
 * callbacks of the bench's traffic (`next`) through `app.inject`, each checked to be an R0.
 */
export async function injectedCpu(app: FastifyInstance, next: () => string, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const res = await app.inject({ method: 'POST', url: '/callback', headers: HEADERS, payload: next() });
    if (res.statusCode !== 200 || !res.body.includes('"R0"')) throw new Error(`not R0: ${res.statusCode} ${res.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}
