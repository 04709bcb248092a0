import type { WalletAnswer, WalletExchange } from './wallet/exchange.js';
import type { Arrival, Completion } from './attempt.js';

/**
 * What the callback route tells grading, in the order things happen. A single process folds them a
 * turn of the event loop at a time (src/grading/batched-feed.ts, into src/grading/grader.ts); with
 * a shared store the events go to the session's stream and every process folds them
 * (src/grading/redis-feed.ts). `R` is the handle of one attempt.
 */
export interface GradingFeed<R = unknown> {
  /** A callback arrived at `at` and is being decided: windows after `at` wait for it. */
  expect(at: number): number;
  /** The callback of `ticket` will not be graded. */
  settle(ticket: number): undefined;
  /** An authenticated callback with a transaction_id arrived. */
  arrive(arrival: Arrival, ticket?: number): R;
  /** The caller closed the connection of an attempt still being answered. */
  closed(attempt: R, at: number): void;
  /** The wallet wrote the attempt's reply, or closed its connection. */
  complete(attempt: R, done: Completion): void;
  /** The findings of one journalled callback (any callback, refused credentials included). */
  count(user: string | undefined, codes: Iterable<string>): void;
  /** Proxy mode (--upstream) only: where the upstream leg of each callback goes, to grade the operator's wallet. */
  readonly wallet?: WalletFeed;
}

/** What the pipeline tells the wallet-side grading (src/grading/wallet/wallet-grader.ts) of one forwarded callback. */
export interface WalletFeed {
  /** A callback is going upstream; `x.id` is a provisional id (negative), its journal id not known yet. */
  sent(x: WalletExchange): void;
  /** The upstream answered the callback sent as `sentAs` (or did not); `x.id` is now its journal id. */
  answered(sentAs: number, x: WalletExchange, a: WalletAnswer): void;
}

/** Provisional ids of forwarded callbacks: negative (journal ids are positive), unique across the processes of a store. */
const PROCESS_BASE = (1 + Math.floor(Math.random() * 2 ** 31)) * 2 ** 20;
let provisional = 0;
export const provisionalId = (): number => -(PROCESS_BASE + (++provisional % 2 ** 20));
