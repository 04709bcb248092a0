import type { Money } from '../kernel/money.js';
import type { Finding, FindingCode } from './findings.js';
import type { CallbackRequest } from './types.generated.js';
import type { Change } from '../ledger/change.js';
import type { Player } from '../ledger/state.js';
import type { View } from '../ledger/store.js';
import type { RoundEffect } from '../ledger/round-effects.js';

/** A result code of the protocol's (this spec's: R0–R4, src/protocol/seed/codes.ts). */
export type ResultCode = string;

/** What the money rules need to know of the active scenario. */
export interface WalletConfig {
  /** Fraction digits allowed for a currency. */
  scale(currency: string): number;
  /** Whether that scale is the configuration's own, not a default (absent: every scale is). */
  declared?(currency: string): boolean;
  defaultCurrency: string;
  defaultBalance: Money;
  autoCreatePlayers: boolean;
  /** The clock of the ledger's `applied_at` (ms since the epoch); Date.now when absent. */
  now?: () => number;
}

/** What an event decides with: the records read for it, the player (perhaps about to be created). */
export interface EventContext {
  readonly view: View;
  readonly player: Player;
  /** The player does not exist yet: it is created if the event is applied. */
  readonly isNew: boolean;
  readonly config: WalletConfig;
  readonly findings: Finding[];
}

/** The fields of a callback that scenario rules can match on (`when`). */
export interface MatchFields {
  game_no?: string;
  table_no?: string;
  game_type?: string;
  currency?: string;
  /** The amount `min_amount` / `max_amount` compare against. */
  amount?: number;
}

/** What an event does to its round: a bet opens it (or adds to it), a bet_result settles it. */
export type { RoundEffect } from '../ledger/round-effects.js';

/** A JSON Schema document with its $id (the shape of src/protocol/schemas.ts, without importing it). */
export interface EventSchema {
  $id: string;
  [key: string]: unknown;
}

/**
 * One callback event: everything that differs from one event_type to another, and the one place
 * that says it. Registered in ./index.ts (the built-in ones) or with registerEvent (./registry.ts);
 * the schema enums, the callback request's oneOf and the UI's event list are derived from the
 * registry (`npm run gen:types`). Adding an event is one file like this, its schema and its tests.
 */
export interface EventHandler<R extends { event_type: string } = CallbackRequest> {
  readonly type: R['event_type'];
  /** Its request schema: the $id of a file in schemas/, or the document itself (an event defined elsewhere). */
  readonly schema: string | EventSchema;
  /** What it does to its round (`gameNo`); absent: it has none and moves no money (login). */
  readonly round?: RoundEffect;
  /** The round the event belongs to, read for it from the store. */
  gameNo(req: R): string | undefined;
  /** What scenario rules can match on. */
  matchFields(req: R): MatchFields;
  /** The event's checks: its changes when applied (a new array, which the wallet appends to), else the code it is refused with. */
  decide(req: R, ctx: EventContext): Change[] | ResultCode;
  /** The findings its checks can raise (beyond the schema's and the envelope's), for the docs and the tests. */
  readonly findings: readonly FindingCode[];
  /** Why a refusal with this code happened, when the findings do not say it (R4). */
  refusal?(code: ResultCode, req: R, balance: Money | undefined): string | undefined;
  /** Its reply's fields beyond the body every reply has: it echoes the request's Callback-URL header (spec section 4). */
  readonly echoesCallbackUrl: boolean;
  /** What grading learns from it beyond its round. */
  readonly grading: GradingFacts;
}

/** The facts the certification checks read from an event (src/grading/). */
export interface GradingFacts {
  /** It starts the player's session: the bets that follow need its R0 (login-before-bet, no-bet-after-login-refused). */
  readonly startsSession: boolean;
}
