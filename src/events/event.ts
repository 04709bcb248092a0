import type { Money } from '../money.js';
import type { Code } from '../protocol/codes.js';
import type { Finding } from '../protocol/findings.js';
import type { CallbackRequest } from '../protocol/types.generated.js';
import type { Change } from '../backends/change.js';
import type { Player } from '../backends/state.js';
import type { View } from '../backends/store.js';

/** What the money rules need to know of the active scenario. */
export interface WalletConfig {
  /** Fraction digits allowed for a currency. */
  scale(currency: string): number;
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

/**
 * One callback event: everything that differs from one event_type to another. Registered in
 * ./index.ts; adding an event (a future `bet_cancel`) is one file like this and its schema.
 */
export interface EventHandler<R extends CallbackRequest = CallbackRequest> {
  readonly type: R['event_type'];
  /** The round the event belongs to, read for it from the store. */
  gameNo(req: R): string | undefined;
  /** What scenario rules can match on. */
  matchFields(req: R): MatchFields;
  /** The event's checks: its changes when applied, else the code it is refused with. */
  decide(req: R, ctx: EventContext): Change[] | Code;
  /** Why a refusal with this code happened, when the findings do not say it (R4). */
  refusal?(code: Code, req: R, balance: Money | undefined): string | undefined;
  /** The reply echoes the request's Callback-URL header (spec section 4). */
  readonly echoesCallbackUrl: boolean;
}
