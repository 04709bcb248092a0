import { Journal, type JournalStore } from './journal/journal.js';
import { RedisJournal } from './backends/redis/journal.js';
import type { CallbackRequest, Scenario } from './protocol/types.generated.js';
import { type Fired, type RuleHits } from './scenario/rules.js';
import { compileScenario } from './scenario/scenario.js';
import { RedisShared } from './backends/redis/shared.js';
import type { Money } from './money.js';
import { RuleEngine } from './scenario/rules.js';
import { randomSeed } from './scenario/draw.js';
import type { ActiveScenario } from './scenario/scenario.js';
import { matches, secretBytes } from './secrets.js';
import { LocalStore } from './backends/local/local-store.js';
import { RedisStore } from './backends/redis/redis-store.js';
import { type Change, type Player, playerChange, WalletState } from './backends/state.js';
import type { Persistence, Store } from './backends/store.js';
import type { WalletConfig } from './wallet/decide.js';
import { GradingSession } from './grading/session.js';
import type { GradingFeed } from './grading/feed.js';
import { SharedGrading } from './backends/redis/grading.js';

export interface SimulatorOptions {
  /** --api-id / --api-key: override the scenario's credentials. */
  apiId?: string;
  apiKey?: string;
  journalSize?: number;
  /** --journal-bytes: the journal's bound on the JSON text it holds. */
  journalBytes?: number;
  /** --retain-transactions: applied transactions remembered for idempotency (default 1,000,000). */
  retainTransactions?: number;
  /** --seed: the seed of the probability draws, over the scenario's own `seed`. */
  seed?: number;
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

const withSeed = (s: ActiveScenario, seed: number): ActiveScenario => ({ ...s, source: { ...s.source, seed } });

/**
 * The simulator's domain: the active scenario, its rule counters, the wallet and the journal.
 * HTTP lives elsewhere; everything here is callable from tests directly. `J` is the journal's type:
 * the in-memory `Journal` of a single process (what a memory or file store gets, read at once), or
 * with a shared store (Redis) a journal every process shares, read asynchronously.
 */
export class Simulator<J extends JournalStore = JournalStore> {
  rules: RuleEngine;
  /** The money rules' view of the scenario: scales, defaults. */
  config: WalletConfig;

  /** The grading session of a single process: begun at start-up and by every reset. */
  private localGrading: GradingSession;
  /** With a shared store: one session and one verdict for every process. */
  private sharedGrading?: SharedGrading;

  /**
   * The current grading session; callbacks are folded into the session they arrived in. With a
   * shared store it is this process's fold of every process's events (`currentGrading()` first
   * folds what is new).
   */
  get grading(): GradingSession {
    return this.sharedGrading?.session ?? this.localGrading;
  }

  /** Where the callback route sends a callback's grading events: the session it arrives in. */
  get gradingFeed(): GradingFeed {
    return (this.sharedGrading?.feed ?? this.localGrading.grader) as GradingFeed;
  }

  /** The current session with every event folded (other processes' too): what a report reads. */
  async currentGrading(): Promise<GradingSession> {
    return this.sharedGrading ? this.sharedGrading.catchUp() : this.localGrading;
  }

  /** Why callbacks are refused: a store write failed, or a shared store is unreachable. */
  get storeFailure(): string | undefined {
    return this.store.failure;
  }

  private constructor(
    public scenario: ActiveScenario,
    readonly store: Store,
    readonly options: SimulatorOptions,
    readonly journal: J,
    /** Scenario, rule counters and reset shared with the other processes of a Redis store. */
    private readonly shared?: RedisShared,
  ) {
    this.rules = new RuleEngine(scenario.rules, this.seed);
    this.config = walletConfig(scenario);
    this.localGrading = new GradingSession(scenario.grading, this.seed);
  }

  /** Begins a new grading session (for every process); one begun by clearing the journal keeps who is logged in. */
  async newSession(keepLogins = false): Promise<void> {
    if (this.sharedGrading) return this.sharedGrading.begin(keepLogins);
    const carried = keepLogins ? this.localGrading.grader : undefined;
    this.localGrading = new GradingSession(this.scenario.grading, this.seed, Date.now(), carried);
  }

  /**
   * Clears the journal and begins a new session (the wallet is unchanged): grading starts afresh,
   * and so do the players' callback counts of the probability draws.
   */
  async clearJournal(): Promise<void> {
    await this.newSession(true);
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

  /** Callbacks per player in the session (the draw's count) of a local store; Redis counts them for every process. */
  private calls = new Map<string, number>();

  /**
   * Counts an authenticated callback of `userId`: its number in the session, from 1. Kept here, or
   * with a shared store in Redis (every process counts together).
   */
  countCall(userId: string): number | Promise<number> {
    if (this.shared) return this.shared.countCall(userId);
    const n = (this.calls.get(userId) ?? 0) + 1;
    this.calls.set(userId, n);
    return n;
  }

  /** A new session: every player's callback count starts again from 1 (the seed stays). */
  async resetCallCounts(): Promise<void> {
    this.calls = new Map();
    await this.shared?.resetCalls();
  }

  /**
   * Starts from what the store holds; an empty store gets the scenario's players. A persistence
   * (memory, file) is wrapped in a local store that keeps the state in this process. A Redis store
   * joins the wallet its Redis holds: the first process seeds it with its scenario, later ones
   * adopt the scenario active there (`PUT /admin/scenario` changes it for all).
   */
  static async open(scenario: ActiveScenario, backend: Persistence, options?: SimulatorOptions): Promise<Simulator<Journal>>;
  static async open(scenario: ActiveScenario, backend: Persistence | Store, options?: SimulatorOptions): Promise<Simulator>;
  static async open(given: ActiveScenario, backend: Persistence | Store, options: SimulatorOptions = {}): Promise<Simulator> {
    // --seed, else the scenario's, else a random one: written into the active document, so it is
    // shown by GET /admin/scenario and shared with the processes of a Redis store.
    const scenario = withSeed(given, options.seed ?? given.source.seed ?? randomSeed());
    if (backend instanceof RedisStore) {
      const shared = new RedisShared(backend.client, backend.prefix, (sent) => backend.exchange(sent));
      const journal = new RedisJournal(
        backend.client,
        backend.prefix,
        options.journalSize,
        options.journalBytes,
        () => backend.link.failure,
      );
      await backend.initialize(seed(scenario, () => undefined));
      let sim: Simulator | undefined;
      const active = await shared.join(scenario.source, (doc) => sim?.adopt(doc));
      backend.requireKeys([shared.scenarioKey]); // gone: Redis lost the wallet's state
      sim = new Simulator(active ? compileScenario(active, 'the scenario active in Redis') : scenario, backend, options, journal, shared);
      const opened = sim;
      const grading = new SharedGrading(backend.client, backend.prefix, sim.scenario.grading, () => opened.seed);
      await grading.join();
      sim.sharedGrading = grading;
      backend.onClose(() => {
        grading.close();
        shared.close();
        journal.close();
      });
      return sim;
    }
    const journal = new Journal(options.journalSize, options.journalBytes);
    if ('transact' in backend) return new Simulator(scenario, backend, options, journal);
    const local = new LocalStore(backend.kind, new WalletState(options.retainTransactions ?? DEFAULT_RETAIN_TRANSACTIONS), backend);
    const sim = new Simulator(scenario, local, options, journal);
    if (!(await local.load())) await local.commit(seed(scenario, () => undefined));
    return sim;
  }

  /** The rule for a callback (`count`: its player's callback count), counted here or, with a shared store, across every process. */
  chooseRule(req: CallbackRequest, count: number): Fired | undefined | Promise<Fired | undefined> {
    return this.shared ? this.rules.chooseShared(req, this.shared.counters, count) : this.rules.choose(req, count);
  }

  async ruleHits(): Promise<RuleHits[]> {
    return this.shared ? this.rules.hitsOf(await this.shared.counters.read(this.rules.rules.length)) : this.rules.hits();
  }

  /** Another process changed the scenario (or reset the wallet): use it here too. */
  private adopt(doc: Scenario): void {
    void this.sharedGrading?.catchUp().catch(() => undefined); // a reset elsewhere may have begun a session
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
    this.localGrading.grader.t = scenario.grading;
    this.sharedGrading?.use(scenario.grading);
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
    await this.newSession();
    this.rules.reset();
    await this.resetCallCounts();
    await this.journal.reset();
    await this.store.commit([{ op: 'clear' }, ...seed(this.scenario, () => undefined)]);
    await this.shared?.publishReset(this.scenario.source);
  }

  /**
   * Makes a new scenario active: rules (counters reset), credentials, currencies and defaults; the
   * players it lists get their listed balances, others and history stay. `reset` starts over.
   */
  async setScenario(next: ActiveScenario, reset = false): Promise<void> {
    // The seed stays unless --seed did not set it and the new scenario names one.
    const scenario = withSeed(next, this.options.seed ?? next.source.seed ?? this.seed);
    this.use(scenario);
    await this.shared?.publishScenario(scenario.source);
    if (reset) await this.reset();
    else {
      const known =
        this.store instanceof LocalStore ? new Map<string, Player>() : new Map((await this.store.players()).map((p) => [p.user_id, p]));
      await this.store.commit(seed(scenario, (id) => (this.store instanceof LocalStore ? this.player(id) : known.get(id))));
    }
  }

  /** How many players the wallet holds (for /health). */
  async playerCount(): Promise<number> {
    if (this.store instanceof LocalStore) return this.store.state.players.size;
    if (this.store instanceof RedisStore) return this.store.playerCount();
    return (await this.store.players()).length;
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
   * Sets (or creates) a player's balance; the currency defaults to the current one or the
   * scenario's. Memory changes before the first await, so a caller may rely on it at once.
   */
  async setPlayer(userId: string, balance: Money, currency?: string): Promise<Player> {
    const existing = this.store instanceof LocalStore ? this.player(userId) : await this.store.player(userId);
    const player = { user_id: userId, balance, currency: currency ?? existing?.currency ?? this.scenario.defaultCurrency };
    await this.store.commit([playerChange(player)]);
    return player;
  }
}
