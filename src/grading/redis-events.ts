import type { Arrival, Completion } from './attempt.js';
import type { EntryHeaders } from '../core/exchange.js';
import type { SealedEvent } from './sealed-event.js';
import type { WalletAnswer, WalletExchange } from './wallet/exchange.js';

/**
 * What a shared session's keys hold (./redis-feed.ts): the session's document and its stream's
 * events, in Redis, written by every process alike.
 */

/** How an earlier version wrote an arrival's evidence (`sb`: its body was the arrival's). */
export interface FormerSource {
  request: { headers: EntryHeaders; body?: unknown };
  reply: { status: number; body: unknown };
}

/** One grading event as the stream carries it. */
export type Event =
  | { t: 'a'; k: string; a: Arrival & { source?: FormerSource }; sb?: 1 }
  | { t: 'x'; k: string; at: number }
  | { t: 'c'; k: string; d: Completion }
  | { t: 'f'; u?: string; c: string[] }
  // A session begun by clearing the journal: the players logged in when it began (its first event).
  | { t: 'l'; users: string[] }
  | SealedEvent
  // Proxy mode: a callback sent upstream (provisional id; `at`: when it arrived, absent before 1 Dec 2026), and the
  // upstream's answer (as its journal id).
  | { t: 'ws'; x: WalletExchange; at?: number }
  | { t: 'wa'; s: number; x: WalletExchange; a: WalletAnswer };

export interface SessionDoc {
  id: string;
  started_at: string;
  /** Begun by clearing the journal: players logged in stay logged in. */
  keep_logins?: boolean;
}

const idParts = (id: string): [number, number] => id.split('-').map(Number) as [number, number];
export const after = (a: string, b: string) => {
  const [am, as] = idParts(a);
  const [bm, bs] = idParts(b);
  return am > bm || (am === bm && as > bs);
};

/** The id of a session's document as Redis held it; undefined when none, or not a document of ours. */
export function sessionIdOf(text: string | null | undefined): string | undefined {
  try {
    return text ? (JSON.parse(text) as SessionDoc).id : undefined;
  } catch {
    return undefined;
  }
}
