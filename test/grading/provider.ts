// Scripted providers over real sockets: each attempt is a fresh connection with a client-side
// time-out, as a provider's HTTP client makes it.
import { setTimeout as sleep } from 'node:timers/promises';
import { HEADERS } from '../helpers/app.js';
import { post } from '../helpers/net.js';

export interface Reply {
  code: string;
  latest_balance?: number;
}

/** One attempt: the reply, or undefined when none came (connection closed, or the time-out fired). */
export async function attempt(url: string, body: object, timeoutMs: number): Promise<Reply | undefined> {
  const sent = await post(url, body, HEADERS, timeoutMs);
  return sent.error || typeof sent.body !== 'object' || sent.body === null ? undefined : (sent.body as Reply);
}

const DEFINITE = new Set(['R0', 'R2', 'R3', 'R4']);

/**
 * The well-behaved client: resends a lost or R1 callback unchanged (same transaction_id) after a
 * back-off that doubles, until a definite answer.
 */
export async function reliably(
  url: string,
  body: object,
  o: { timeoutMs: number; backoffMs: number; maxAttempts?: number },
): Promise<Reply | undefined> {
  let wait = o.backoffMs;
  for (let i = 0; i < (o.maxAttempts ?? 6); i++) {
    const reply = await attempt(url, body, o.timeoutMs);
    if (reply && DEFINITE.has(reply.code)) return reply;
    await sleep(wait);
    wait *= 2;
  }
  return undefined;
}
