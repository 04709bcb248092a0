import type { ExchangeFeed, JournalledExchange } from '../core/exchange.js';
import { eventNamed } from '../protocol/registry.js';
import { SUCCESS } from '../protocol/seed/codes.js';
import { readReply } from '../protocol/seed/reply-read.js';
import { type Arrival, faultOf } from './attempt.js';
import { keptBody } from './graded-body.js';

export { provisionalId, type WalletFeed } from '../core/exchange.js';

/**
 * What the callback route tells grading, in the order things happen. A single process folds them a
 * turn of the event loop at a time (src/grading/batched-feed.ts, into src/grading/grader.ts); with
 * a shared store the events go to the session's stream and every process folds them
 * (src/grading/redis-feed.ts). `R` is the handle of one attempt.
 */
export interface GradingFeed<R = unknown> extends ExchangeFeed<R> {
  /** An authenticated callback with a transaction_id arrived. */
  arrive(arrival: Arrival, ticket?: number): R;
}

/**
 * An exchange as grading takes it (`ExchangeFeed.arrived`): an authenticated callback enters
 * grading when it has a transaction_id, a player and one of the events; any other settles its ticket.
 */
export function arriveExchange<R>(feed: GradingFeed<R>, x: JournalledExchange, ticket: number): R | undefined {
  const arrival = arrivalOf(x);
  if (!arrival) return feed.settle(ticket);
  return feed.arrive(arrival, ticket);
}

/** What grading takes of an exchange on arrival: undefined when it is not graded. */
export function arrivalOf(x: JournalledExchange): Arrival | undefined {
  const { transaction_id: tx, user_id: user, event_type: event, request, reply, code } = x.out.entry;
  if (tx === undefined || user === undefined || event === undefined || !eventNamed(event)) return undefined;
  const data = (request.body as { data?: { game_no?: unknown; total_bet_amount?: unknown } } | null)?.data;
  const excused = upstreamAtFault(x);
  return {
    id: x.journalId,
    at: x.at,
    user,
    event,
    tx,
    game: typeof data?.game_no === 'string' ? data.game_no : undefined,
    total: typeof data?.total_bet_amount === 'number' ? data.total_bet_amount : undefined,
    body: keptBody(x.requestBody, x.chars, x.text),
    applied: code === SUCCESS && !excused,
    excused,
    imposed: x.out.forced !== undefined || relayed(x),
    headers: request.headers,
    reply,
    lag: x.lag,
    fault: faultOf(x.out.drop, x.out.delayMs, x.out.forced),
  };
}

/**
 * Proxy mode: the provider got the upstream's own reply (status and bytes as it came, not a rule's
 * drop, status or body) and that reply fails WALLET_REPLY_VALID: the fault is the wallet's.
 */
function upstreamAtFault(x: JournalledExchange): boolean {
  const leg = x.out.wallet;
  if (!relayed(x) || leg?.answer.kind !== 'reply') return false;
  return readReply(leg.sent, leg.answer).problems.length > 0;
}

/** Proxy mode: the provider got the upstream's own reply, status and bytes as they came (no rule's drop, status or body). */
function relayed(x: JournalledExchange): boolean {
  const leg = x.out.wallet;
  if (!leg || leg.answer.kind !== 'reply' || x.out.drop) return false;
  return x.out.status === leg.answer.status && x.out.body === leg.answer.text;
}
