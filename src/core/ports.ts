import type { Awaitable } from '../kernel/awaitable.js';
import type { CallbackInput, Intake, Protocol } from '../protocol/port.js';
import type { Money } from '../kernel/money.js';
import type { Finding } from '../protocol/findings.js';
import type { RuleThen } from '../protocol/types.generated.js';
import type { Fired, RuleCounters } from './scenario/rules.js';
import type { Ledger } from '../ledger/ledger-entry.js';
import type { Change } from '../ledger/change.js';
import type { WalletState } from '../ledger/state.js';
import type { Seal, Store } from '../ledger/store.js';
import type { Health, Scenario } from '../protocol/types.generated.js';
import type { WalletConfig } from '../protocol/event.js';
import type { Grading, JournalStore, WalletGradingOptions } from './exchange.js';
import type { Relayed, UpstreamLeg } from './wallet-leg.js';

export type { Relayed, UpstreamLeg } from './wallet-leg.js';
import type { Thresholds } from './scenario/thresholds.js';

/**
 * The wallet as the callback pipeline (./handle.ts) sees it, defined here by its user: one small interface with
 * two adapters, the local ledger (src/wallet/local-wallet.ts: memory, file and Redis stores) and
 * an operator's wallet behind `--upstream` (src/wallet/upstream-wallet.ts). The pipeline never asks which one
 * it has; an adapter never calls back into the pipeline.
 */
export interface Wallet {
  /** The upstream's URL when the wallet is an operator's (for /health and the start line). */
  readonly upstream?: string;
  /** Proxy mode: the upstream's URL and whether it was reached when last tried (/health's `upstream`). */
  readonly upstreamHealth?: NonNullable<Health['upstream']>;
  /** Proxy mode: tries one connection to the upstream (bounded): undefined when made, else why not, in words. */
  checkReach?(boundMs?: number): Promise<string | undefined>;
  /**
   * Decides and applies one callback as read, with the scenario rule that fired (only for an
   * authenticated, well-formed callback). A wallet held in this process answers at once.
   */
  apply(call: WalletCall): Awaitable<Outcome>;
  close(): Promise<void>;
}

/** One callback, as received and as read. */
export interface WalletCall {
  input: CallbackInput;
  intake: Intake;
  rule?: Fired;
  /** The rule's effects, as the pipeline read them (once). */
  then?: RuleThen;
  /**
   * A shared store writes what this builds (the callback's journal entry and grading event) in the
   * same atomic step as the decision it is given (Store.transact's `seal`); undefined: written apart.
   */
  seal?: (outcome: Outcome) => Seal | undefined;
}

/** What the wallet did with a callback. */
export interface Outcome {
  /** The reply's code, when the reply carries one the protocol knows. */
  code?: string;
  /** The local ledger's decision (its findings, the balance before, a replay). */
  decision?: WalletDecision;
  /** Why the wallet could not answer (R1): no balance may then be claimed. */
  failure?: string;
  /** The player's balance to report (after the callback; for a refusal, as it stands). */
  balance?: Money;
  /** The operator's wallet's answer, relayed to the provider unless a rule replaces it. */
  relayed?: Relayed;
  /** The upstream leg, for the journal: what went upstream (or that nothing did) and what came back. */
  upstream?: UpstreamLeg;
  /** Proxy mode: the upstream answered R0 to a transaction it had answered R0 before (a replay). */
  replayed?: boolean;
}

/** What the pipeline reads of the local ledger's decision. */
export interface WalletDecision {
  /** What the caller did wrong, as far as the money rules can tell. */
  findings: Finding[];
  balanceBefore?: Money;
  replayed: boolean;
}

/**
 * Where a wallet keeps what outlives one callback: memory (this process, gone on exit), file (this
 * process, durable) or redis (shared by every process on it). The simulator asks a backend, never
 * which backend it is; test/backends/contract.test.ts runs one suite against all three. Defined
 * here by its user; the backends (src/backends/) implement it. The journal and grading are not a
 * backend's: they consume the exchange stream (./exchange.ts).
 */
export interface Backend {
  readonly kind: 'memory' | 'file' | 'redis';
  /** The ledger: players, rounds and transactions, changed one callback at a time (`transact`). */
  readonly store: Store;
  /** Callbacks per player in the session (the draws' input) and the rules' counters. */
  readonly counters: Counters;
  /** Health: why callbacks are answered R1 now (a failed write, Redis away, Redis lost the wallet's state). */
  readonly failure: string | undefined;
  /** The admin API's error code for that failure. */
  readonly failureCode: 'STORE_FAILED' | 'STORE_UNREACHABLE';
  /** Why an error a read of the store threw means the store cannot serve now (answered 503 with it), or undefined: not that. */
  unavailable?(error: unknown): string | undefined;
  /** Health: part of the store cannot serve (a cluster's master lost), the rest serves; undefined when whole. */
  readonly degraded?: string;
  /** The ledger's state when it lives in this process (memory, file): read at once, for tests and the admin routes. */
  readonly state?: WalletState;
  /**
   * Starts on what the backend holds: an empty one gets `players`. A backend shared by several
   * processes resolves with the scenario active there (the caller adopts it) and calls `adopt` when
   * another process changes it or resets the wallet; a local one resolves with nothing.
   */
  join(scenario: Scenario, players: readonly Change[], adopt: (scenario: Scenario) => void): Promise<Scenario | undefined>;
  /**
   * After join: the players a local store already held when this process started (a file store
   * restarted under a running client), whose logins happened before any session of this process.
   */
  readonly resumed?: readonly string[];
  /** `PUT /admin/scenario` here: the other processes of a shared backend adopt it. */
  publishScenario(scenario: Scenario): Promise<void>;
  /** `POST /admin/reset` here: the other processes of a shared backend start over too. */
  publishReset(scenario: Scenario): Promise<void>;
  /**
   * Reads whether a shared store still holds the wallet's state (Redis flushed, evicted or restarted
   * without persistence: its generation, marker or scenario gone); rejects with a StoreUnavailable
   * saying so. The admin reads call it first, so that a loss no callback has met yet is a 503, never
   * an empty ledger or journal. A local store has nothing to check.
   */
  verify?(): Promise<void>;
  /** The ledger as rows, oldest first, streamed in batches; `userId` keeps one player's. */
  ledger(userId?: string): Promise<Ledger>;
  playerCount(): Promise<number>;
  /** The most players it holds (hosted mode's --tenant-players); unbounded when absent. */
  readonly maxPlayers?: number;
  close(): Promise<void>;
}

/** Counts kept per session: every process of a shared backend counts together. */
export interface Counters {
  /**
   * Counts an authenticated callback of `userId`: its number in the session, from 1. `unread`: no
   * rule draws, nobody reads the number (a shared backend may then count it in the callback's
   * commit, and resolve with 0).
   */
  countCall(userId: string, unread?: boolean): number | Promise<number>;
  /** A new session: every player's count starts again from 1. */
  resetCalls(): Promise<void>;
  /** The rules' match and fire counts when the backend keeps them; else the rule engine counts in this process. */
  readonly rules?: RuleCounters;
}

/** Proxy mode (--upstream / --upstream-timeout-ms): the operator wallet that answers the callbacks. */
export interface UpstreamOptions {
  /** The operator wallet's callback URL. */
  url: string;
  /** A reply not read whole within this is no reply (the provider's connection is then closed). */
  timeoutMs: number;
}

/**
 * What a simulator is made of, chosen by its composer (src/app/compose.ts): the backend (ledger,
 * counters, sharing), the journal, the grading sessions and the wallet adapter. `J` is the
 * journal's type, `S` a grading session's.
 */
export interface SimulatorParts<J extends JournalStore, S> {
  readonly backend: Backend;
  readonly journal: J;
  /** The grading sessions, begun with the active scenario's thresholds; called once, after the backend joined. */
  grading(thresholds: Thresholds, seed: () => number, wallet: () => WalletGradingOptions | undefined): Promise<Grading<S>>;
  /** How callbacks are read and the session's own replies written (src/protocol/seed/: this spec's). */
  readonly protocol: Protocol;
  /** What decides and applies each callback: the local ledger, or the operator's wallet (--upstream). */
  wallet(host: WalletHost): Wallet;
}

/** What a wallet adapter reads of the simulator it serves: the store, the money rules, whether the store failed. */
export interface WalletHost {
  readonly store: Store;
  readonly config: WalletConfig;
  readonly storeFailure: string | undefined;
}
