import type { Ledger } from '../../ledger/ledger-entry.js';
import { type Backend, type BackendKind, type BackendOptions, type Counters, DEFAULT_RETAIN_TRANSACTIONS } from '../backend.js';
import type { Change } from '../../ledger/change.js';
import { WalletState } from '../../ledger/state.js';
import type { Persistence } from '../../ledger/store.js';
import { localLedger } from './ledger.js';
import { LocalStore } from '../../ledger/local-store.js';

/** Callbacks per player, counted in this process. */
class LocalCounters implements Counters {
  /** A box per player: a call counted is one lookup, not a lookup and a store. */
  private calls = new Map<string, { n: number }>();

  countCall(userId: string): number {
    const box = this.calls.get(userId);
    if (box) return ++box.n;
    this.calls.set(userId, { n: 1 });
    return 1;
  }

  resetCalls(): Promise<void> {
    this.calls = new Map();
    return Promise.resolve();
  }
}

/**
 * A backend whose state lives in this process (memory, file): the ledger is a WalletState that a
 * persistence makes durable, counting done here. (Its journal and grading are in this process too:
 * src/app/compose.ts.)
 */
export class LocalBackend implements Backend {
  readonly store: LocalStore;
  readonly counters = new LocalCounters();
  readonly failureCode = 'STORE_FAILED';

  constructor(
    readonly kind: BackendKind,
    persistence: Persistence,
    /** The options it was opened with (the journal's bounds among them, for its composer). */
    readonly options: BackendOptions = {},
  ) {
    this.store = new LocalStore(
      kind,
      new WalletState(options.retainTransactions ?? DEFAULT_RETAIN_TRANSACTIONS),
      persistence,
      options.maxPlayers,
    );
  }

  get maxPlayers(): number | undefined {
    return this.options.maxPlayers;
  }

  get state(): WalletState {
    return this.store.state;
  }

  get failure(): string | undefined {
    return this.store.failure;
  }

  resumed?: readonly string[];

  async join(_scenario: unknown, players: readonly Change[]): Promise<undefined> {
    if (await this.store.load()) this.resumed = [...this.state.players.keys()];
    else await this.store.commit(players);
    return undefined;
  }

  publishScenario(): Promise<void> {
    return Promise.resolve();
  }

  publishReset(): Promise<void> {
    return Promise.resolve();
  }

  ledger(userId?: string): Promise<Ledger> {
    return Promise.resolve(localLedger(this.state, userId));
  }

  playerCount(): Promise<number> {
    return Promise.resolve(this.state.players.size);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
