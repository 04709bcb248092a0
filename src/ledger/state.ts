import { Money, money, sum, toJsonNumber, ZERO } from '../kernel/money.js';
import { type Change, forgottenRound, forgottenTxn, roundKey, type TransactionRecord } from './change.js';
import { TransactionIndex } from './retention.js';

export { type Change, roundKey } from './change.js';

/**
 * The wallet's whole state, held in memory by the local stores (memory, file). Every change goes
 * through `apply`, with the store's change records (src/ledger/change.ts): the one fold of them.
 * The file store's snapshots are copies of `changes()`.
 */
export interface Player {
  user_id: string;
  balance: Money;
  currency: string;
}
export interface Bet {
  bet_type: string;
  bet_amount: Money;
}
export interface Round {
  user_id: string;
  game_no: string;
  currency: string;
  stake: Money;
  bets: Map<string, Bet>;
  settled: boolean;
}

export class WalletState {
  // Maps, never plain objects: "__proto__" and "constructor" are ordinary player ids here.
  readonly players = new Map<string, Player>();
  /** Open rounds. */
  readonly rounds = new Map<string, Round>();
  /**
   * Settled rounds, by key only: a settled round just refuses more bets and a second settlement,
   * so a long history costs one short string per round.
   */
  readonly settled = new Set<string>();
  readonly index: TransactionIndex;
  /** Counts clears (resets): a ledger read that began before one knows its rows are gone. */
  generation = 0;

  constructor(retainTransactions?: number) {
    this.index = new TransactionIndex(retainTransactions);
  }

  get transactions(): ReadonlyMap<string, TransactionRecord> {
    return this.index.records;
  }

  round(userId: string, gameNo: string): Round | undefined {
    return this.rounds.get(roundKey(userId, gameNo));
  }

  isSettled(userId: string, gameNo: string): boolean {
    return this.settled.has(roundKey(userId, gameNo));
  }

  /** True when the transaction_id may be one this wallet applied and then forgot. */
  mayHaveForgotten(transactionId: string): boolean {
    const { forgotten } = this.index;
    return !forgotten.empty && forgotten.has(forgottenTxn(transactionId));
  }

  /** True when the round may be a settled one this wallet forgot. */
  mayHaveForgottenRound(userId: string, gameNo: string): boolean {
    return this.index.forgotten.has(forgottenRound(roundKey(userId, gameNo)));
  }

  private readonly forgetSettled = (key: string): boolean => this.settled.delete(key);

  apply(change: Change): void {
    switch (change.op) {
      case 'player':
        this.players.set(change.user_id, { user_id: change.user_id, balance: money(change.balance), currency: change.currency });
        break;
      case 'round': {
        const key = roundKey(change.user_id, change.game_no);
        if (change.settled) {
          this.rounds.delete(key);
          this.settled.add(key);
          break;
        }
        this.rounds.set(key, {
          user_id: change.user_id,
          game_no: change.game_no,
          currency: change.currency,
          stake: money(change.stake),
          bets: new Map(change.bets.map(([index, type, amount]) => [index, { bet_type: type, bet_amount: money(amount) }])),
          settled: false,
        });
        break;
      }
      case 'bets': {
        const key = roundKey(change.user_id, change.game_no);
        let round = this.rounds.get(key);
        if (!round) {
          round = {
            user_id: change.user_id,
            game_no: change.game_no,
            currency: change.currency,
            stake: ZERO,
            bets: new Map(),
            settled: false,
          };
          this.rounds.set(key, round);
        }
        // In place: `apply` is the only writer, and copying the round would cost what it holds.
        for (const [index, type, amount] of change.bets) round.bets.set(index, { bet_type: type, bet_amount: money(amount) });
        round.stake = round.stake.plus(sum(change.bets.map(([, , amount]) => money(amount))));
        break;
      }
      case 'txn':
        // The change itself is the record (its `op` too): a copy without it cost more than it saves.
        this.index.add(change, this.forgetSettled);
        break;
      case 'forgotten':
        this.index.forgotten.absorb(change);
        break;
      case 'clear':
        this.generation++;
        this.players.clear();
        this.rounds.clear();
        this.settled.clear();
        this.index.clear();
        break;
    }
  }

  /** The whole state as change records; applying them to an empty state rebuilds it. */
  *changes(): Generator<Change> {
    for (const p of this.players.values()) yield playerChange(p);
    for (const r of this.rounds.values()) yield roundChange(r);
    // What a settled round keeps: its key (records.ts allows its empty currency).
    for (const key of this.settled) {
      const [user_id, game_no] = JSON.parse(key) as [string, string];
      yield { op: 'round', user_id, game_no, currency: '', stake: '0', bets: [], settled: true };
    }
    for (const t of this.index.records.values()) yield { op: 'txn', ...t };
    if (this.index.forgotten.size) yield { op: 'forgotten', ...this.index.forgotten.toRecord() };
  }
}

export const playerChange = (p: Player): Change => ({
  op: 'player',
  user_id: p.user_id,
  balance: toJsonNumber(p.balance),
  currency: p.currency,
});

export const roundChange = (r: Round): Change => ({
  op: 'round',
  user_id: r.user_id,
  game_no: r.game_no,
  currency: r.currency,
  stake: toJsonNumber(r.stake),
  bets: [...r.bets].map(([index, b]) => [index, b.bet_type, toJsonNumber(b.bet_amount)]),
  settled: r.settled,
});
