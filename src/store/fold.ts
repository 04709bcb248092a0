import { type Change, roundKey } from '../wallet/state.js';

/**
 * The latest record per key, folded from change records exactly as WalletState.apply folds them
 * (same keys, same Map insertion order), but without parsing amounts: what the store needs to
 * write a snapshot that WalletState.changes() would have produced.
 */
export class ChangeFold {
  private readonly players = new Map<string, Change>();
  private readonly rounds = new Map<string, Change>();
  private readonly transactions = new Map<string, Change>();

  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      switch (c.op) {
        case 'player': this.players.set(c.user_id, c); break;
        case 'round': this.rounds.set(roundKey(c.user_id, c.game_no), c); break;
        case 'txn': this.transactions.set(c.transaction_id, c); break;
        case 'clear':
          this.players.clear();
          this.rounds.clear();
          this.transactions.clear();
          break;
      }
    }
  }

  get size(): number {
    return this.players.size + this.rounds.size + this.transactions.size;
  }

  /** A copy of the folded state as change records: players, rounds, transactions. */
  changes(): Change[] {
    return [...this.players.values(), ...this.rounds.values(), ...this.transactions.values()];
  }
}

const str = (v: unknown) => typeof v === 'string';

/** Why a value read from disk is not a change record, or undefined when it is one. */
export function changeProblem(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'is not an object';
  const c = v as Record<string, unknown>;
  switch (c.op) {
    case 'player':
      return str(c.user_id) && str(c.balance) && str(c.currency) ? undefined : 'is not a valid player record (user_id, balance, currency)';
    case 'round':
      return str(c.user_id) && str(c.game_no) && str(c.currency) && str(c.stake) && typeof c.settled === 'boolean'
        && Array.isArray(c.bets) && c.bets.every((b) => Array.isArray(b) && b.length === 3 && b.every(str))
        ? undefined : 'is not a valid round record (user_id, game_no, currency, stake, bets, settled)';
    case 'txn':
      return str(c.transaction_id) && str(c.user_id) && str(c.event_type) && str(c.fingerprint) ? undefined : 'is not a valid txn record (transaction_id, user_id, event_type, fingerprint)';
    case 'clear':
      return undefined;
    default:
      return `has an unknown op ${JSON.stringify(c.op)}`;
  }
}
