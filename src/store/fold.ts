import { money, sum, toJsonNumber } from '../money.js';
import { ForgottenIds } from './forgotten.js';
import { type Change, roundKey } from './change.js';
import { TransactionIndex } from './retention.js';

/**
 * The state folded from change records exactly as WalletState.apply folds them (same keys, same
 * Map insertion order, the same retention), but without parsing amounts: what the store needs to
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

  apply(changes: Iterable<Change>): void {
    for (const c of changes) this.add(c);
  }

  add(c: Change): void {
    switch (c.op) {
      case 'player':
        this.players.set(c.user_id, c);
        break;
      // A copy: 'bets' records extend it in place.
      case 'round':
        this.rounds.set(roundKey(c.user_id, c.game_no), { ...c, bets: [...c.bets] });
        break;
      case 'bets': {
        const key = roundKey(c.user_id, c.game_no);
        const round = this.rounds.get(key) ?? {
          op: 'round',
          user_id: c.user_id,
          game_no: c.game_no,
          currency: c.currency,
          stake: '0',
          bets: [],
          settled: false,
        };
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
      case 'forgotten':
        this.index.forgotten = ForgottenIds.fromRecord(c);
        break;
      case 'clear':
        this.players.clear();
        this.rounds.clear();
        this.index.clear();
        break;
    }
  }

  get size(): number {
    return this.players.size + this.rounds.size + this.index.records.size + (this.index.forgotten.size ? 1 : 0);
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
