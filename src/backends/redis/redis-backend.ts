import type { Ledger } from '../../ledger/ledger-entry.js';
import type { Scenario } from '../../protocol/types.generated.js';
import type { Backend, BackendOptions } from '../backend.js';
import type { Change } from '../../ledger/change.js';
import { readRedisLedger } from './ledger.js';
import { RedisStore, type RedisStoreOptions } from './redis-store.js';
import { RedisShared } from './shared.js';
import type { Channels } from './channels.js';

/**
 * `--store redis --redis-url <url>`: one wallet for every wallet-sim process on that Redis
 * (docs/scale-out.md). The ledger, the counters and the scenario are in Redis; so are the journal
 * (src/journal/redis-journal.ts) and the grading session's events (src/grading/redis-feed.ts), on
 * this backend's connection, under its prefix.
 */
export class RedisBackend implements Backend {
  readonly kind = 'redis';
  readonly failureCode = 'STORE_UNREACHABLE';
  readonly counters: RedisShared;
  private readonly shared: RedisShared;
  /** What else is closed with the store, first: the journal and grading on its connection. */
  private readonly users: (() => void)[] = [];

  private constructor(
    readonly store: RedisStore,
    /** The options it was opened with (the journal's bounds among them, for its composer). */
    readonly options: BackendOptions,
    /**
     * Hosted mode: the subscriber this wallet shares with the process's others (src/backends/redis/hub.ts);
     * the grading session then folds on demand instead of reading on a connection of its own.
     */
    readonly channels?: Channels,
  ) {
    this.shared = new RedisShared(store.client, store.sessionPrefix, store.prefix, (sent) => store.exchange(sent), channels);
    this.counters = this.shared;
    store.takeCount = (userId) => this.shared.takeCount(userId); // (counted in the player's commit script)
    store.onClose(() => {
      for (const close of this.users) close();
      this.shared.close();
    });
  }

  /** Something else kept on this backend's connection (the journal, grading): `close` runs when the store closes. */
  use(close: () => void): void {
    this.users.unshift(close);
  }

  /** Connects; an unreachable Redis throws an Error naming the URL. */
  static async open(url: string, options: BackendOptions & Omit<RedisStoreOptions, 'retainTransactions'> = {}): Promise<RedisBackend> {
    return new RedisBackend(await RedisStore.open(url, { ...options, retainTransactions: options.retainTransactions }), options);
  }

  /** A wallet on a store over a shared connection, its word through `channels` (RedisHub.backend). */
  static over(store: RedisStore, options: BackendOptions, channels: Channels): RedisBackend {
    return new RedisBackend(store, options, channels);
  }

  /** The store's connection and key prefix (the journal, the counters and the grading use them too). */
  get client(): RedisStore['client'] {
    return this.store.client;
  }

  /** The wallet's prefix (its channels start with it). */
  get prefix(): string {
    return this.store.prefix;
  }

  /** What its session-wide keys start with: the prefix and the session's hash tag (the journal's, grading's; keys.ts). */
  get keyPrefix(): string {
    return this.store.sessionPrefix;
  }

  get failure(): string | undefined {
    return this.store.failure;
  }

  unavailable(error: unknown): string | undefined {
    return this.store.link.unavailable(error);
  }

  get degraded(): string | undefined {
    const { degraded } = this.store.link;
    const lost = this.store.at.playersLost;
    return degraded && lost ? `${degraded}; ${lost}` : (degraded ?? lost);
  }

  /** Hosted mode's --tenant-players (the callback's script checks it; `PUT …/players` asks playerCount). */
  get maxPlayers(): number | undefined {
    return this.options.maxPlayers;
  }

  async join(scenario: Scenario, players: readonly Change[], adopt: (scenario: Scenario) => void): Promise<Scenario | undefined> {
    await this.store.initialize(players);
    const active = await this.shared.join(scenario, adopt);
    this.store.requireKeys([this.shared.scenarioKey]); // gone: Redis lost the wallet's state
    return active;
  }

  publishScenario(scenario: Scenario): Promise<void> {
    return this.shared.publishScenario(scenario);
  }

  publishReset(scenario: Scenario): Promise<void> {
    return this.shared.publishReset(scenario);
  }

  verify(): Promise<void> {
    return this.store.refreshGeneration();
  }

  ledger(userId?: string): Promise<Ledger> {
    return readRedisLedger(this.store, userId);
  }

  playerCount(): Promise<number> {
    return this.store.playerCount();
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
