import { Money, money, toJsonNumber } from '../money.js';

/**
 * The wallet's whole state, held in memory. Every change goes through `apply`, with records that
 * are plain JSON (amounts as decimal strings), so the same records are what a store persists and
 * replays on start.
 */
export interface PlayerRecord { user_id: string; balance: string; currency: string }
export interface RoundRecord {
  user_id: string;
  game_no: string;
  currency: string;
  stake: string;
  /** [bet_index, bet_type, bet_amount] in the order they were placed. */
  bets: [string, string, string][];
  settled: boolean;
}
export interface TransactionRecord { transaction_id: string; user_id: string; event_type: string; fingerprint: string }

export type Change =
  | ({ op: 'player' } & PlayerRecord)
  | ({ op: 'round' } & RoundRecord)
  | ({ op: 'txn' } & TransactionRecord)
  | { op: 'clear' };

export interface Player { user_id: string; balance: Money; currency: string }
export interface Bet { bet_type: string; bet_amount: Money }
export interface Round {
  user_id: string;
  game_no: string;
  currency: string;
  stake: Money;
  bets: Map<string, Bet>;
  settled: boolean;
}

const NO_BETS: Map<string, Bet> = new Map();

// JSON, not a separator: ids may contain any character, "\u0000" included.
export const roundKey = (userId: string, gameNo: string): string => JSON.stringify([userId, gameNo]);

export class WalletState {
  // Maps, never plain objects: "__proto__" and "constructor" are ordinary player ids here.
  readonly players = new Map<string, Player>();
  readonly rounds = new Map<string, Round>();
  readonly transactions = new Map<string, TransactionRecord>();

  apply(change: Change): void {
    switch (change.op) {
      case 'player':
        this.players.set(change.user_id, { user_id: change.user_id, balance: money(change.balance), currency: change.currency });
        break;
      case 'round':
        this.rounds.set(roundKey(change.user_id, change.game_no), {
          user_id: change.user_id,
          game_no: change.game_no,
          currency: change.currency,
          stake: money(change.stake),
          // A settled round only refuses more bets and a second settlement: it keeps no bets, and
          // all of them share one empty map, so a long history costs little heap.
          bets: change.settled ? NO_BETS : new Map(change.bets.map(([index, type, amount]) => [index, { bet_type: type, bet_amount: money(amount) }])),
          settled: change.settled,
        });
        break;
      case 'txn': {
        const { op: _op, ...record } = change;
        this.transactions.set(change.transaction_id, record);
        break;
      }
      case 'clear':
        this.players.clear();
        this.rounds.clear();
        this.transactions.clear();
        break;
    }
  }

  /** The whole state as change records; applying them to an empty state rebuilds it. */
  *changes(): Generator<Change> {
    for (const p of this.players.values()) yield playerChange(p);
    for (const r of this.rounds.values()) yield roundChange(r);
    for (const t of this.transactions.values()) yield { op: 'txn', ...t };
  }
}

export const playerChange = (p: Player): Change =>
  ({ op: 'player', user_id: p.user_id, balance: toJsonNumber(p.balance), currency: p.currency });

export const roundChange = (r: Round): Change => ({
  op: 'round',
  user_id: r.user_id,
  game_no: r.game_no,
  currency: r.currency,
  stake: toJsonNumber(r.stake),
  bets: [...r.bets].map(([index, b]) => [index, b.bet_type, toJsonNumber(b.bet_amount)]),
  settled: r.settled,
});
