import { PlayerLimit } from './player-limit.js';
import type { ExchangeFeed, Grading, GradingSessionOf, JournalStore, WalletGradingOptions } from './exchange.js';
import type { CallbackRequest, Scenario } from '../protocol/types.generated.js';
import { type Fired, RuleEngine, type RuleHits } from './scenario/rules.js';
import { type ActiveScenario, compileScenario } from './scenario/scenario.js';
import type { Money } from '../kernel/money.js';
import { randomSeed } from './scenario/draw.js';
import { matches } from '../kernel/secrets.js';
import { type Change, type Player, playerChange, type WalletState } from '../ledger/state.js';
import type { Store } from '../ledger/store.js';
import type { WalletConfig } from '../protocol/event.js';
import type { Backend, SimulatorParts, UpstreamOptions, Wallet } from './ports.js';
import { adminPlace } from './admin-place.js';
import type { Protocol } from '../protocol/port.js';

export type { SimulatorParts } from './ports.js';

export interface SimulatorOptions {
  /** --api-id / --api-key: override the scenario's credentials. */
  apiId?: string;
  apiKey?: string;
  /** --seed: the seed of the probability draws, over the scenario's own `seed`. */
  seed?: number;
  /** --upstream / --upstream-timeout-ms: proxy mode, the operator's wallet answers the callbacks. */
  upstream?: UpstreamOptions;
  /** A hosted tenant's: where its admin API is served (`/admin` if not) and where a caller finds its credentials (./admin-place.ts). */
  adminPath?: string;
  credentialsAt?: string;
}

const walletConfig = (s: ActiveScenario): WalletConfig => ({
  scale: s.scaleOf,
  declared: (currency) => s.scales.has(currency),
  defaultCurrency: s.defaultCurrency,
  defaultBalance: s.defaultBalance,
  autoCreatePlayers: s.autoCreatePlayers,
});

/** The scenario's players; one listed without a currency keeps the one it has, if any. */
const seed = (s: ActiveScenario, known: (id: string) => Player | undefined): Change[] =>
  s.players.map((p) => playerChange({ ...p, currency: p.currency ?? known(p.user_id)?.currency ?? s.defaultCurrency }));

const withSeed = (s: ActiveScenario, seed: number): ActiveScenario => ({ ...s, source: { ...s.source, seed } });

/**
 * The simulator's domain: the active scenario, its rule engine, and the backend that holds the
 * wallet, the journal, the counters and the grading sessions (src/backends/). HTTP lives
 * elsewhere; everything here is callable from tests directly. `J` is the journal's type: the
 * in-memory `Journal` of a local backend (read at once), or any journal, read asynchronously.
 */
export class Simulator<J extends JournalStore = JournalStore, S = GradingSessionOf> {
  rules: RuleEngine;
  /** The money rules' view of the scenario: scales, defaults. */
  config: WalletConfig;
  /** The grading sessions: one begins at start-up and at every reset. */
  private gradings!: Grading<S>;
  /** What decides and applies each callback: the local ledger, or the operator's wallet (--upstream). */
  readonly wallet: Wallet;

  /** Proxy mode: the operator wallet's callback URL (balances live there; wallet-sim keeps what it reported). */
  get upstream(): string | undefined {
    return this.wallet.upstream;
  }

  /**
   * The current grading session; callbacks are folded into the session they arrived in. With a
   * shared backend it is this process's fold of every process's events (`currentGrading()` first
   * folds what is new).
   */
  get grading(): S {
    return this.gradings.session;
  }

  /** Where the callback route sends a callback's grading events: the session it arrives in. */
  get gradingFeed(): ExchangeFeed {
    return this.gradings.feed;
  }

  /** The current session with every event folded (other processes' too): what a report reads. */
  currentGrading(): Promise<S> {
    return this.gradings.current();
  }

  /** Why callbacks are refused: a store write failed, or a shared store is unreachable. */
  get storeFailure(): string | undefined {
    return this.backend.failure;
  }

  /** The ledger's records. */
  get store(): Store {
    return this.backend.store;
  }

  readonly backend: Backend;
  /** How callbacks are read and the session's own replies written. */
  readonly protocol: Protocol;
  /** The last callbacks: the in-memory `Journal` of a local backend (read at once), or any journal, read asynchronously. */
  readonly journal: J;
  /** Where its admin API is served (`/admin`, a tenant's `/t/<id>/admin`) and where its credentials are found (./admin-place.ts). */
  readonly adminPath: string;
  readonly credentialsAt: string;

  private constructor(
    public scenario: ActiveScenario,
    parts: SimulatorParts<J, S>,
    readonly options: SimulatorOptions,
  ) {
    this.backend = parts.backend;
    this.protocol = parts.protocol;
    this.journal = parts.journal;
    this.rules = new RuleEngine(scenario.rules, this.seed);
    this.config = walletConfig(scenario);
    this.wallet = parts.wallet(this);
    ({ adminPath: this.adminPath, credentialsAt: this.credentialsAt } = adminPlace(options));
  }

  /** How far a callback's timestamp may be from the wallet's clock (s): the active scenario's. */
  get timestampSkewS(): number {
    return this.scenario.timestampSkewS;
  }

  /** Proxy mode: what the wallet side is graded against (the provider's declared time-out, the credentials it was given). */
  private get walletGrading(): WalletGradingOptions | undefined {
    if (!this.options.upstream) return undefined;
    return { clientTimeoutMs: this.scenario.grading.client_timeout_s * 1000, credentials: this.credentials, config: this.config };
  }

  /** The scenario's players to seed: none in proxy mode (the players are the upstream's, listed once seen). */
  private seedOf(s: ActiveScenario, known: (id: string) => Player | undefined): Change[] {
    return this.options.upstream ? [] : seed(s, known);
  }

  /** Clears the journal and begins a new session (the wallet and who is logged in stay): grading and the draws' counts start afresh. */
  async clearJournal(): Promise<void> {
    await this.gradings.begin(true);
    await this.journal.reset();
    await this.resetCallCounts();
  }

  /** The seed of the rules' probability draws: in the active scenario's document (GET /admin/scenario), shared with every process. */
  get seed(): number {
    return this.scenario.source.seed ?? 0;
  }

  /** Whether a rule of the active scenario has a `probability` (the start line then shows the seed). */
  get draws(): boolean {
    return this.scenario.rules.some((r) => r.probability !== undefined);
  }

  /** Counts an authenticated callback of `userId`: its number in the session, from 1 (the backend counts, for every process). */
  countCall(userId: string, unread?: boolean): number | Promise<number> {
    return this.backend.counters.countCall(userId, unread);
  }

  /** A new session: every player's callback count starts again from 1 (the seed stays). */
  resetCallCounts(): Promise<void> {
    return this.backend.counters.resetCalls();
  }

  /**
   * Starts from what the backend holds; an empty one gets the scenario's players. A shared backend
   * (Redis) joins the wallet it holds: the first process seeds it with its scenario, later ones
   * adopt the scenario active there (`PUT /admin/scenario` changes it for all).
   */
  static async open<J extends JournalStore, S>(
    given: ActiveScenario,
    parts: SimulatorParts<J, S>,
    options: SimulatorOptions = {},
  ): Promise<Simulator<J, S>> {
    // --seed, else the scenario's, else a random one: written into the active document, so it is
    // shown by GET /admin/scenario and shared with the processes of a Redis store.
    const scenario = withSeed(given, options.seed ?? given.source.seed ?? randomSeed());
    let sim: Simulator<J, S> | undefined;
    const { backend } = parts;
    const active = await backend.join(scenario.source, options.upstream ? [] : seed(scenario, () => undefined), (doc) => sim?.adopt(doc));
    sim = new Simulator(active ? compileScenario(active, 'the scenario active in Redis') : scenario, parts, options);
    const opened = sim;
    sim.gradings = await parts.grading(
      sim.scenario.grading,
      () => opened.seed,
      () => opened.walletGrading,
    );
    if (backend.resumed?.length) sim.gradings.resume?.(backend.resumed);
    return sim;
  }

  /** Whether a rule draws (has a `probability`): a callback's count is its draw's input, read by nothing else. */
  get rulesDraw(): boolean {
    return this.rules.draws;
  }

  /** The rule for a callback (`count`: its player's callback count), counted here or, with a shared store, across every process. */
  chooseRule(req: CallbackRequest, count: number): Fired | undefined | Promise<Fired | undefined> {
    const shared = this.backend.counters.rules;
    return shared ? this.rules.chooseShared(req, shared, count) : this.rules.choose(req, count);
  }

  async ruleHits(): Promise<RuleHits[]> {
    const shared = this.backend.counters.rules;
    await this.backend.verify?.(); // (Redis lost the wallet's state: a 503, never counters of zero)
    return shared ? this.rules.hitsOf(await shared.read(this.rules.rules.length)) : this.rules.hits();
  }

  /** Another process changed the scenario (or reset the wallet): use it here too. */
  private adopt(doc: Scenario): void {
    void this.gradings.current().catch(() => undefined); // a reset elsewhere may have begun a session
    try {
      this.use(compileScenario(doc, 'the scenario published in Redis'));
    } catch {
      // Only a valid scenario is ever published; a hand-edited key keeps the old one.
    }
  }

  private use(scenario: ActiveScenario): void {
    this.scenario = scenario;
    this.rules = new RuleEngine(scenario.rules, this.seed);
    this.config = walletConfig(scenario);
    this.gradings.use(scenario.grading);
  }

  /** The in-process state of a local backend (memory, file): for tests and the admin routes. */
  get state(): WalletState {
    const { state } = this.backend;
    if (!state) throw new Error(`the ${this.backend.kind} store keeps no state in this process`);
    return state;
  }

  get credentials(): { api_id: string; api_key: string } {
    const { api_id, api_key } = this.scenario.credentials;
    return { api_id: this.options.apiId ?? api_id, api_key: this.options.apiKey ?? api_key };
  }

  /** Which of the caller's Api-Id / Api-Key match, in constant time (the expected pair read once per scenario). */
  checkCredentials(apiId: string, apiKey: string): { id: boolean; key: boolean } {
    if (this.expected?.scenario !== this.scenario) this.expected = { scenario: this.scenario, ...this.credentials };
    return { id: matches(apiId, this.expected.api_id), key: matches(apiKey, this.expected.api_key) };
  }

  private expected?: { scenario: ActiveScenario; api_id: string; api_key: string };

  /** Back to the scenario's initial state: players, no rounds, no transactions, counters and journal cleared. */
  async reset(): Promise<void> {
    this.rules.reset();
    await this.resetCallCounts();
    // Ledger and session in one atomic step (a shared store's), then the journal: whichever process
    // commits a callback, it is graded in the session of the ledger it went to (whole rounds).
    const next = await this.gradings.prepare?.();
    await this.store.commit([{ op: 'clear' }, ...this.seedOf(this.scenario, () => undefined)], next && [next]);
    await this.journal.reset();
    await this.gradings.begin(false, next);
    await this.backend.publishReset(this.scenario.source);
  }

  /**
   * Makes a new scenario active: rules (counters reset), credentials, currencies and defaults; the
   * players it lists get their listed balances, others and history stay. `reset` starts over.
   */
  async setScenario(next: ActiveScenario, reset = false): Promise<void> {
    // The seed stays unless --seed did not set it and the new scenario names one.
    const scenario = withSeed(next, this.options.seed ?? next.source.seed ?? this.seed);
    this.use(scenario);
    await this.backend.publishScenario(scenario.source);
    if (reset) await this.reset();
    else {
      const known = new Map((await this.store.players()).map((p) => [p.user_id, p]));
      await this.store.commit(this.seedOf(scenario, (id) => known.get(id)));
    }
  }

  /** How many players the wallet holds (for /health). */
  playerCount(): Promise<number> {
    return this.backend.playerCount();
  }

  /** A player of a local store (memory, file), at once; any store: `store.player()`. */
  player(userId: string): Player | undefined {
    return this.state.players.get(userId);
  }

  /** The players of a local store (memory, file), at once; any store: `store.players()`. */
  players(): Player[] {
    return [...this.state.players.values()];
  }

  /**
   * Sets (or creates) a player's balance (a new one past the backend's `maxPlayers`: PlayerLimit);
   * the currency defaults to the current one or the
   * scenario's. Memory changes before the first await, so a caller may rely on it at once.
   */
  async setPlayer(userId: string, balance: Money, currency?: string): Promise<Player> {
    const existing = this.backend.state ? this.player(userId) : await this.store.player(userId);
    const max = this.backend.maxPlayers;
    if (!existing && max !== undefined && (await this.backend.playerCount()) >= max) throw new PlayerLimit(max);
    const player = { user_id: userId, balance, currency: currency ?? existing?.currency ?? this.scenario.defaultCurrency };
    await this.store.commit([playerChange(player)]);
    return player;
  }
}
