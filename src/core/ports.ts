import type { Awaitable } from '../kernel/awaitable.js';
import type { CallbackInput, Intake } from '../protocol/seed/read.js';
import type { Money } from '../kernel/money.js';
import type { Code } from '../protocol/seed/codes.js';
import type { RuleThen } from '../protocol/types.generated.js';
import type { Fired } from './scenario/rules.js';
import type { Decision } from '../wallet/decide.js';

/**
 * The wallet as the callback pipeline (src/core/handle.ts) sees it: one small interface with
 * two adapters, the local ledger (./local-wallet.ts: memory, file and Redis stores) and an
 * operator's wallet behind `--upstream` (./upstream-wallet.ts). The pipeline never asks which one
 * it has; an adapter never calls back into the pipeline.
 */
export interface Wallet {
  /** The upstream's URL when the wallet is an operator's (for /health and the start line). */
  readonly upstream?: string;
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
}

/** What the wallet did with a callback. */
export interface Outcome {
  /** The reply's code, when the reply carries one the protocol knows. */
  code?: Code;
  /** The local ledger's decision (its findings, the balance before, a replay). */
  decision?: Decision;
  /** Why the wallet could not answer (R1): no balance may then be claimed. */
  failure?: string;
  /** The player's balance to report (after the callback; for a refusal, as it stands). */
  balance?: Money;
  /** The operator's wallet's answer, relayed to the provider unless a rule replaces it. */
  relayed?: Relayed;
  /** The upstream leg, for the journal: what went upstream (or that nothing did) and what came back. */
  upstream?: UpstreamLeg;
}

/** An upstream's answer: an HTTP reply as it came, or none (the provider's connection is then closed). */
export type Relayed = { kind: 'reply'; status: number; headers: Record<string, string>; text: string } | { kind: 'none'; why: string };

/** The journal's record of the upstream leg (schemas/journal-entry.schema.json `upstream`). */
export interface UpstreamLeg {
  url: string;
  /** False when a rule answered locally (a forced code) and nothing went upstream. */
  forwarded: boolean;
  sent_at?: string;
  replied_at?: string;
  /** Forwarded → the upstream's reply read whole (or given up on). */
  duration_ms?: number;
  status?: number;
  headers?: Record<string, string>;
  /** The reply's body: parsed JSON, or its text when it is not JSON. */
  body?: unknown;
  /** Why there is no reply: a time-out, a refused or reset connection, bytes that are not HTTP. */
  error?: string;
}
