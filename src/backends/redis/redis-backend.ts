import type { WalletGraderOptions } from '../../grading/wallet/wallet-grader.js';
import type { Thresholds } from '../../core/scenario/thresholds.js';
import type { Ledger } from '../../ledger/ledger-entry.js';
import type { Scenario } from '../../protocol/types.generated.js';
import type { Backend, BackendOptions, Grading } from '../backend.js';
import type { Change } from '../../ledger/change.js';
import { SharedGrading } from '../../grading/redis-feed.js';
import { RedisJournal } from '../../journal/redis-journal.js';
import { readRedisLedger } from './ledger.js';
import { RedisStore, type RedisStoreOptions } from './redis-store.js';
import { RedisShared } from './shared.js';

/**
 * `--store redis --redis-url <url>`: one wallet for every wallet-sim process on that Redis
 * (docs/scale-out.md). The ledger, the journal, the counters, the scenario and the grading
 * session's events are all in Redis; each process folds the events into its own grader.
 */
export class RedisBackend implements Backend {
  readonly kind = 'redis';
  readonly failureCode = 'STORE_UNREACHABLE';
  readonly journal: RedisJournal;
  readonly counters: RedisShared;
  private readonly shared: RedisShared;
  private shareGrading?: SharedGrading;

  private constructor(
    readonly store: RedisStore,
    options: BackendOptions,
  ) {
    this.journal = new RedisJournal(store.client, store.prefix, options.journalSize, options.journalBytes, () => store.link.failure);
    this.shared = new RedisShared(
      store.client,
      store.prefix,
      (sent) => store.exchange(sent),
      (userId) => this.journal.reserve(userId),
    );
    this.counters = this.shared;
    store.onClose(() => {
      this.shareGrading?.close();
      this.shared.close();
      this.journal.close();
    });
  }

  /** Connects; an unreachable Redis throws an Error naming the URL. */
  static async open(url: string, options: BackendOptions & Omit<RedisStoreOptions, 'retainTransactions'> = {}): Promise<RedisBackend> {
    return new RedisBackend(await RedisStore.open(url, { ...options, retainTransactions: options.retainTransactions }), options);
  }

  /** The store's connection and key prefix (the journal, the counters and the grading use them too). */
  get client(): RedisStore['client'] {
    return this.store.client;
  }

  get prefix(): string {
    return this.store.prefix;
  }

  get failure(): string | undefined {
    return this.store.failure;
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

  async grading(thresholds: Thresholds, seed: () => number, wallet?: () => WalletGraderOptions | undefined): Promise<Grading> {
    const grading = new SharedGrading(this.store.client, this.store.prefix, thresholds, seed, wallet);
    await grading.join();
    this.shareGrading = grading;
    return grading;
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
