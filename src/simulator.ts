import { Journal } from './journal/journal.js';
import type { Money } from './money.js';
import { RuleEngine } from './scenario/rules.js';
import type { ActiveScenario } from './scenario/scenario.js';
import { matches, secretBytes } from './secrets.js';
import type { Store } from './store/store.js';
import { type Change, type Player, WalletState, playerChange } from './wallet/state.js';
import { Wallet, type WalletConfig } from './wallet/wallet.js';

export interface SimulatorOptions {
  /** --api-id / --api-key: override the scenario's credentials. */
  apiId?: string;
  apiKey?: string;
  journalSize?: number;
  /** --journal-bytes: the journal's bound on the JSON text it holds. */
  journalBytes?: number;
  /** --retain-transactions: applied transactions remembered for idempotency (default 1,000,000). */
  retainTransactions?: number;
}

export const DEFAULT_RETAIN_TRANSACTIONS = 1_000_000;

const walletConfig = (s: ActiveScenario): WalletConfig => ({
  scale: s.scaleOf,
  defaultCurrency: s.defaultCurrency,
  defaultBalance: s.defaultBalance,
  autoCreatePlayers: s.autoCreatePlayers,
});

/** The scenario's players; one listed without a currency keeps the one it has, if any. */
const seed = (s: ActiveScenario, known: (id: string) => Player | undefined): Change[] =>
  s.players.map((p) => playerChange({ ...p, currency: p.currency ?? known(p.user_id)?.currency ?? s.defaultCurrency }));

/**
 * The simulator's domain: the active scenario, its rule counters, the wallet and the journal.
 * HTTP lives elsewhere; everything here is callable from tests directly.
 */
export class Simulator {
  rules: RuleEngine;
  readonly wallet: Wallet;
  readonly journal: Journal;
  /** Why callbacks are refused since a store write failed (see Wallet.failure). */
  get storeFailure(): string | undefined {
    return this.wallet.failure;
  }

  private constructor(public scenario: ActiveScenario, readonly store: Store, readonly options: SimulatorOptions) {
    this.rules = new RuleEngine(scenario.rules);
    this.wallet = new Wallet(new WalletState(options.retainTransactions ?? DEFAULT_RETAIN_TRANSACTIONS), store, walletConfig(scenario));
    this.journal = new Journal(options.journalSize, options.journalBytes);
  }

  /** Starts from what the store holds; an empty store gets the scenario's players. */
  static async open(scenario: ActiveScenario, store: Store, options: SimulatorOptions = {}): Promise<Simulator> {
    const sim = new Simulator(scenario, store, options);
    const persisted = await store.load();
    if (persisted.length) for (const c of persisted) sim.wallet.state.apply(c);
    else await sim.wallet.commit(seed(scenario, () => undefined));
    return sim;
  }

  get credentials(): { api_id: string; api_key: string } {
    return {
      api_id: this.options.apiId ?? this.scenario.credentials.api_id,
      api_key: this.options.apiKey ?? this.scenario.credentials.api_key,
    };
  }

  /** Which of the caller's Api-Id / Api-Key match, in constant time (expected bytes made once per scenario). */
  checkCredentials(apiId: string, apiKey: string): { id: boolean; key: boolean } {
    if (this.expected?.scenario !== this.scenario) {
      const { api_id, api_key } = this.credentials;
      this.expected = { scenario: this.scenario, id: secretBytes(api_id), key: secretBytes(api_key) };
    }
    return { id: matches(apiId, this.expected.id), key: matches(apiKey, this.expected.key) };
  }

  private expected?: { scenario: ActiveScenario; id: Buffer; key: Buffer };

  /** Back to the scenario's initial state: players, no rounds, no transactions, counters and journal cleared. */
  async reset(): Promise<void> {
    this.rules.reset();
    this.journal.reset();
    await this.wallet.commit([{ op: 'clear' }, ...seed(this.scenario, () => undefined)]);
  }

  /**
   * Makes a new scenario active: rules (counters reset), credentials, currencies and defaults; the
   * players it lists get their listed balances, others and history stay. `reset` starts over.
   */
  async setScenario(scenario: ActiveScenario, reset = false): Promise<void> {
    this.scenario = scenario;
    this.rules = new RuleEngine(scenario.rules);
    this.wallet.config = walletConfig(scenario);
    if (reset) await this.reset();
    else await this.wallet.commit(seed(scenario, (id) => this.player(id)));
  }

  player(userId: string): Player | undefined {
    return this.wallet.state.players.get(userId);
  }

  players(): Player[] {
    return [...this.wallet.state.players.values()];
  }

  /**
   * Sets (or creates) a player's balance; the currency defaults to the current one or the
   * scenario's. Memory changes before the first await, so a caller may rely on it at once.
   */
  async setPlayer(userId: string, balance: Money, currency?: string): Promise<Player> {
    const existing = this.player(userId);
    const player = { user_id: userId, balance, currency: currency ?? existing?.currency ?? this.scenario.defaultCurrency };
    await this.wallet.commit([playerChange(player)]);
    return player;
  }
}
