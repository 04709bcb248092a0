import { money, sum, toJsonNumber } from '../money.js';
import { ForgottenIds } from '../wallet/forgotten.js';
import { type Change, roundKey, TransactionIndex } from '../wallet/state.js';

/**
 * The latest record per key, folded from change records exactly as WalletState.apply folds them
 * (same keys, same Map insertion order), but without parsing amounts: what the store needs to
 * write a snapshot that WalletState.changes() would have produced.
 */
export class ChangeFold {
  private readonly players = new Map<string, Change & { op: 'player' }>();
  private readonly rounds = new Map<string, Change & { op: 'round' }>();
  private readonly index: TransactionIndex;

  /** `retainTransactions`: the same retention as the wallet's, so a snapshot holds what it holds. */
  constructor(retainTransactions?: number) {
    this.index = new TransactionIndex(retainTransactions);
  }

  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      switch (c.op) {
        case 'player': this.players.set(c.user_id, c); break;
        // A copy: 'bets' records extend it in place.
        case 'round': this.rounds.set(roundKey(c.user_id, c.game_no), { ...c, bets: [...c.bets] }); break;
        case 'bets': {
          const key = roundKey(c.user_id, c.game_no);
          const round = this.rounds.get(key) ?? { op: 'round', user_id: c.user_id, game_no: c.game_no, currency: c.currency, stake: '0', bets: [], settled: false };
          round.bets.push(...c.bets);
          round.stake = toJsonNumber(money(round.stake).plus(sum(c.bets.map(([, , amount]) => money(amount)))));
          this.rounds.set(key, round);
          break;
        }
        case 'txn': {
          const { op: _op, ...record } = c;
          this.index.add(record, (key) => this.rounds.get(key)?.settled === true && this.rounds.delete(key));
          break;
        }
        case 'forgotten': this.index.forgotten = ForgottenIds.fromRecord(c); break;
        case 'clear':
          this.players.clear();
          this.rounds.clear();
          this.index.clear();
          break;
      }
    }
  }

  get size(): number {
    return this.players.size + this.rounds.size + this.index.records.size;
  }

  /** A copy of the folded state as change records: players, rounds, transactions, forgotten ids. */
  changes(): Change[] {
    // Rounds are copied: a later 'bets' record extends the fold's own while a snapshot is written.
    const out: Change[] = [...this.players.values()];
    for (const r of this.rounds.values()) out.push({ ...r, bets: [...r.bets] });
    for (const t of this.index.records.values()) out.push({ op: 'txn', ...t });
    if (this.index.forgotten.size) out.push({ op: 'forgotten', ...this.index.forgotten.toRecord() });
    return out;
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
    case 'bets':
      return str(c.user_id) && str(c.game_no) && str(c.currency) && Array.isArray(c.bets) && c.bets.every((b) => Array.isArray(b) && b.length === 3 && b.every(str))
        ? undefined : 'is not a valid bets record (user_id, game_no, currency, bets)';
    case 'txn':
      return str(c.transaction_id) && str(c.user_id) && str(c.event_type) && str(c.fingerprint) && (c.game_no === undefined || str(c.game_no))
        ? undefined : 'is not a valid txn record (transaction_id, user_id, event_type, fingerprint, game_no)';
    case 'forgotten':
      return Array.isArray(c.generations) && c.generations.every(str) && str(c.active) ? undefined : 'is not a valid forgotten record (generations, active)';
    case 'clear':
      return undefined;
    default:
      return `has an unknown op ${JSON.stringify(c.op)}`;
  }
}
