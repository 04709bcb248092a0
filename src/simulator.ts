import { Journal } from './journal/journal.js';
import type { Money } from './money.js';
import { RuleEngine } from './scenario/rules.js';
import type { ActiveScenario } from './scenario/scenario.js';
import { matches, secretBytes } from './secrets.js';
import { LocalStore } from './store/local.js';
import { type Change, type Player, playerChange, WalletState } from './store/state.js';
import type { Persistence, Store } from './store/store.js';
import type { WalletConfig } from './wallet/decide.js';

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
  /** The money rules' view of the scenario: scales, defaults. */
  config: WalletConfig;
  readonly journal: Journal;

  /** Why callbacks are refused since a store write failed. */
  get storeFailure(): string | undefined {
    return this.store.failure;
  }

  private constructor(
    public scenario: ActiveScenario,
    readonly store: Store,
    readonly options: SimulatorOptions,
  ) {
    this.rules = new RuleEngine(scenario.rules);
    this.config = walletConfig(scenario);
    this.journal = new Journal(options.journalSize, options.journalBytes);
  }

  /**
   * Starts from what the store holds; an empty store gets the scenario's players. A persistence
   * (memory, file) is wrapped in a local store that keeps the state in this process.
   */
  static async open(scenario: ActiveScenario, backend: Persistence | Store, options: SimulatorOptions = {}): Promise<Simulator> {
    if ('transact' in backend) return new Simulator(scenario, backend, options);
    const local = new LocalStore(backend.kind, new WalletState(options.retainTransactions ?? DEFAULT_RETAIN_TRANSACTIONS), backend);
    const sim = new Simulator(scenario, local, options);
    if (!(await local.load())) await local.commit(seed(scenario, () => undefined));
    return sim;
  }

  /** The in-process state of a local store (memory, file): for tests and the admin routes. */
  get state(): WalletState {
    if (!(this.store instanceof LocalStore)) throw new Error(`the ${this.store.kind} store keeps no state in this process`);
    return this.store.state;
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
    await this.store.commit([{ op: 'clear' }, ...seed(this.scenario, () => undefined)]);
  }

  /**
   * Makes a new scenario active: rules (counters reset), credentials, currencies and defaults; the
   * players it lists get their listed balances, others and history stay. `reset` starts over.
   */
  async setScenario(scenario: ActiveScenario, reset = false): Promise<void> {
    this.scenario = scenario;
    this.rules = new RuleEngine(scenario.rules);
    this.config = walletConfig(scenario);
    if (reset) await this.reset();
    else await this.store.commit(seed(scenario, (id) => this.player(id)));
  }

  player(userId: string): Player | undefined {
    return this.state.players.get(userId);
  }

  players(): Player[] {
    return [...this.state.players.values()];
  }

  /**
   * Sets (or creates) a player's balance; the currency defaults to the current one or the
   * scenario's. Memory changes before the first await, so a caller may rely on it at once.
   */
  async setPlayer(userId: string, balance: Money, currency?: string): Promise<Player> {
    const existing = this.player(userId);
    const player = { user_id: userId, balance, currency: currency ?? existing?.currency ?? this.scenario.defaultCurrency };
    await this.store.commit([playerChange(player)]);
    return player;
  }
}
