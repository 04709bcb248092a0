import { money, type Money } from '../../kernel/money.js';
import type { WalletConfig } from '../../protocol/event.js';
import type { Overlapped } from './overlap.js';

// What the wallet grader (./wallet-grader.ts) keeps per player and per transaction, and its defaults.

/** The wallet rules when none are given: two fraction digits, unknown players followed as the wallet reports them. */
export const DEFAULT_CONFIG: WalletConfig = {
  scale: () => 2,
  defaultCurrency: 'USD',
  defaultBalance: money(0),
  autoCreatePlayers: true,
};

/** Transactions remembered for idempotency (the oldest are forgotten). */
export const MAX_TRANSACTIONS = 50_000;

/** One player's callbacks in flight, and the episode they belong to (callbacks since the player last had none in flight). */
export interface PlayerState {
  inFlight: Map<number, Overlapped>;
  episode: Overlapped[];
  /** The episode cannot be judged as a history (a callback in it may have moved money the reference cannot follow). */
  opaque: boolean;
}

export interface TxState {
  /** Digest of the body without its timestamp: an identical resend has the same. */
  digest: string;
  /** The first R0 to it: its exchange id and the balance it reported. */
  applied?: { id: number; balance?: Money };
  /** An attempt got no readable answer before any R0: the wallet may have applied it then. */
  uncertain?: boolean;
}

/** The game_no a callback's body names, when it names one (read loosely: the body may be invalid). */
export function gameOf(body: unknown): string | undefined {
  const game = (body as { data?: { game_no?: unknown } } | undefined)?.data?.game_no;
  return typeof game === 'string' ? game : undefined;
}
