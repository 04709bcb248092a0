import { type Change, forgottenRound, roundKey } from './change.js';
import { type Player, WalletState } from './state.js';
import type { Awaitable } from '../kernel/awaitable.js';
import type { Decided, Persistence, RecordKeys, Store, View } from './store.js';

/**
 * A store whose state is in this process (memory, file): reads are answered from memory and a
 * decision is applied in the same synchronous step as its read, so two callbacks never interleave
 * their read-modify-write. Then the persistence makes the change durable.
 */
export class LocalStore implements Store {
  failure?: string;

  constructor(
    readonly kind: string,
    readonly state: WalletState,
    private readonly persistence: Persistence,
    /** The most players it holds (hosted mode's --tenant-players): a view of a new player past it says `playersFull`. */
    readonly maxPlayers = Number.POSITIVE_INFINITY,
  ) {
    persistence.snapshotFrom?.(state);
  }

  /** Rebuilds the state from what the persistence holds; false when it holds nothing yet. */
  async load(): Promise<boolean> {
    const persisted = await this.persistence.load();
    for (const c of persisted) this.state.apply(c);
    return persisted.length > 0;
  }

  transact<T extends Decided>(keys: RecordKeys, decide: (view: View) => T): Awaitable<T> {
    if (this.failure) return Promise.reject(new Error(this.failure));
    const decided = decide(this.view(keys));
    if (this.persistence.immediate) {
      for (const c of decided.changes) this.state.apply(c);
      return decided;
    }
    // A refusal or a replay is final too: it waits until the state it was decided on (earlier
    // callbacks' changes still queued) is durable, like an R0.
    const durable = decided.changes.length ? this.commit(decided.changes) : this.persistence.flush();
    return durable.then(() => decided);
  }

  view({ user_id, transaction_id, game_no }: RecordKeys): View {
    const s = this.state;
    const transaction = s.transactions.get(transaction_id);
    // The round's key is made once (it is JSON text) for its three lookups.
    const key = game_no === undefined ? undefined : roundKey(user_id, game_no);
    const player = s.players.get(user_id);
    return {
      player,
      round: key === undefined ? undefined : s.rounds.get(key),
      roundSettled: key !== undefined && s.settled.has(key),
      roundForgotten: key !== undefined && !s.index.forgotten.empty && s.index.forgotten.has(forgottenRound(key)),
      transaction,
      transactionForgotten: !transaction && s.mayHaveForgotten(transaction_id),
      playersFull: !player && s.players.size >= this.maxPlayers,
    };
  }

  /** Applies changes in memory now and hands them to the persistence. */
  commit(changes: readonly Change[]): Promise<void> {
    for (const c of changes) this.state.apply(c);
    const durable = this.persistence.commit(changes);
    durable.catch((e: Error) => {
      // Memory now holds a change the persistence may not: nothing more may be answered from it.
      this.failure ??= `the store failed (${e.message}); restart wallet-sim: it recovers what was acknowledged`;
    });
    return durable;
  }

  async player(userId: string): Promise<Player | undefined> {
    return this.state.players.get(userId);
  }

  async players(): Promise<Player[]> {
    return [...this.state.players.values()];
  }

  close(): Promise<void> {
    return this.persistence.close();
  }
}
