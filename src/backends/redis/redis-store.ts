import type { Redis } from 'ioredis';
import type { Change, RoundRecord } from '../../ledger/change.js';
import { DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT_MS } from './connection.js';
import { Generation } from './generation.js';
import { type GenKeys, refuseOlderLayout } from './keys.js';
import type { RedisLink } from './link.js';
import { KeyLocks } from './locks.js';
import { countKeys, isCluster, sweepKeys } from './cluster.js';
import { casArgs, type CasClient, type CasDocument, escapeGlob, type Op, recordOps } from './records.js';
import { type PlayerReads, readPlayer, readPlayers } from './player-reads.js';
import { commitCallback, type CommitContext, MAX_ATTEMPTS, RecordCache } from './callback-commit.js';
import { clusterCas, type ClusterClient } from './cluster-commit.js';
import { firstGeneration, newGeneration, seedDocument, seedGeneration } from './cluster-generations.js';
import { commitSender, connectStore } from './scripts.js';
import type { Player } from '../../ledger/state.js';
import type { Alongside, Decided, RecordKeys, Seal, Store, View } from '../../ledger/store.js';

export interface RedisStoreOptions {
  /** --redis-prefix: every key of this wallet starts with it (default `wallet-sim:`). */
  prefix?: string;
  /** --retain-transactions: applied transactions remembered for idempotency. */
  retainTransactions?: number;
  /** --redis-timeout-ms: a command without a reply after this long fails (default 2000). */
  timeoutMs?: number;
  maxPlayers?: number; // hosted mode's --tenant-players (checked in the callback's script); unbounded when absent
}

export { MAX_ATTEMPTS } from './callback-commit.js';

/**
 * The ledger in Redis (docs/scale-out.md): any number of wallet-sim processes sharing one Redis act as one
 * wallet. A callback's records are decided on by the pure `decide`, and one script commits the changes
 * only if none of those records changed; otherwise it decides again (optimistic concurrency). Callbacks
 * of one player queue in this process, so only callbacks from different processes race.
 *
 * Keys (keys.ts: one layout for a single Redis and a cluster), under the prefix and a generation
 * (`/admin/reset` starts a new generation atomically and deletes the old one's keys afterwards).
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  /** The generation this process works on; lost state (generation.ts). */
  readonly at: Generation;
  private readonly locks = new KeyLocks();
  /** The records of the players this process served, and what a callback's commit needs (./callback-commit.ts). */
  private readonly cache = new RecordCache();
  private readonly callbacks: CommitContext;
  /** The callbacks of a player counted and not sent yet (RedisShared.takeCount): its commit script counts them. */
  takeCount?: CommitContext['takeCount'];
  private closed = false;
  /** On Redis Cluster (--redis-cluster): a callback commits in steps, one slot each (cluster-commit.ts). */
  private readonly cluster: boolean;
  private readonly closers: (() => void)[] = [];

  private constructor(
    readonly link: RedisLink,
    readonly prefix: string,
    readonly retain: number,
    private readonly ownsLink = true, // the connection is this store's own (closed with it), or shared (hosted mode's tenants)
    maxPlayers?: number,
  ) {
    this.at = new Generation(prefix, link.url);
    this.cluster = isCluster(link.client);
    this.callbacks = {
      client: link.client as CommitContext['client'],
      send: commitSender(link, this.at),
      at: this.at,
      cache: this.cache,
      failure: () => this.failure,
      exchange: (sent) => this.exchange(sent),
      ops: (gen, changes, round, listed) => this.ops(gen, changes, round, listed),
      trim: (gen) => this.trim(gen),
      takeCount: (userId) => this.takeCount?.(userId),
      maxPlayers,
    };
  }

  /** A connection ready for stores (scripts.ts). */
  static connect(url: string, timeoutMs = DEFAULT_REDIS_TIMEOUT_MS): Promise<RedisLink> {
    return connectStore(url, timeoutMs);
  }

  static async open(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const link = await RedisStore.connect(url, options.timeoutMs);
    return RedisStore.over(link, options, true).catch((e: unknown) => {
      link.client.disconnect(); // refused (an older wallet under the prefix): nothing kept open
      throw e;
    });
  }

  /** A store on a connection from `connect` (`owned`: closed with the store; else shared and left open). */
  static async over(link: RedisLink, options: RedisStoreOptions = {}, owned = false): Promise<RedisStore> {
    const store = new RedisStore(
      link,
      options.prefix ?? DEFAULT_REDIS_PREFIX,
      options.retainTransactions ?? Number.POSITIVE_INFINITY,
      owned,
      options.maxPlayers,
    );
    // (through `exchange`: a cluster's master down is named as such, not a bare "Connection is closed.")
    const exists = (...keys: string[]) => store.exchange(link.client.exists(...keys));
    await refuseOlderLayout({ exists } as Pick<Redis, 'exists'>, store.at.layout);
    await store.exchange(link.client.set(store.genKey, String(firstGeneration(link.client)), 'NX'));
    await store.refreshGeneration();
    return store;
  }

  get client(): CasClient {
    return this.link.client as CasClient;
  }

  get url(): string {
    return this.link.url;
  }

  /** Why nothing can be acknowledged now: Redis is unreachable or frozen. Clears by itself. */
  get failure(): string | undefined {
    const lost = this.at.lostReason;
    if (lost) this.recheck();
    return this.link.failure ?? lost;
  }

  private rechecked = 0;

  /** While the state counts as lost: reads it again (one read at a time, every 100 ms at most); a reset anywhere clears it. */
  private recheck(): void {
    if (Date.now() - this.rechecked < 100) return;
    this.rechecked = Number.POSITIVE_INFINITY; // (one at a time)
    void this.refreshGeneration()
      .catch(() => {})
      .finally(() => (this.rechecked = Date.now()));
  }

  /** A Redis exchange (see RedisLink.exchange): the error names Redis and what happens next. */
  exchange<T>(sent: Promise<T>): Promise<T> {
    return this.link.exchange(sent);
  }

  /** Keys whose absence means Redis lost the wallet's state (the active scenario). */
  requireKeys(keys: readonly string[]): void {
    this.at.vital.push(...keys);
  }

  get genKey(): string {
    return this.at.genKey;
  }

  /** The keys of generation `gen` (keys.ts). */
  keysOf(gen: number): GenKeys {
    return this.at.keys(gen);
  }

  /** What the wallet's session-wide keys start with (its hash tag: keys.ts): the journal, grading, scenario and counters are under it. */
  get sessionPrefix(): string {
    return this.at.layout.session;
  }

  transact<T extends Decided>(keys: RecordKeys, decide: (view: View) => T, seal?: (decided: T) => Seal | undefined): Promise<T> {
    // Callbacks of one player run one after the other in this process: contention is only ever
    // between processes, so the number of attempts stays small (about the number of processes).
    return this.locks.run(keys.user_id, () => commitCallback(this.callbacks, keys, decide, seal));
  }

  private async cas(doc: CasDocument): Promise<boolean> {
    if (!this.cluster) return (await this.exchange(this.client.walletCas(...casArgs(doc)))) === 1;
    return clusterCas(this.link.client as ClusterClient, this.at, doc, (sent) => this.exchange(sent));
  }

  private trim(gen: number): CasDocument['trim'] {
    const key = this.at.keys(gen);
    return Number.isFinite(this.retain) ? [key.order, this.retain, key.forgotten, key.base] : undefined;
  }

  /** The Redis writes of change records (decided on `round`, the open round as read). */
  private ops(gen: number, changes: readonly Change[], round: RoundRecord | undefined, listed = false): Op[] {
    // Always listed in `order`: the ledger (GET /admin/ledger) reads the applied transactions from it, oldest first.
    return recordOps(this.at.keys(gen), changes, round, true, listed);
  }

  /**
   * Admin updates, scenario seeds and reset. A `clear` starts a new generation in the same atomic
   * step as the records after it (every process's next read sees it); the old generation's keys are
   * deleted afterwards.
   */
  async commit(changes: readonly Change[], alongside: readonly Alongside[] = []): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (this.link.failure) throw new Error(this.link.failure); // (lost state: a reset is the way out)
      const [rawGen, marker] = await this.exchange(this.client.mget(this.at.genKey, this.at.markerKey));
      const clears = changes.map((c) => c.op).lastIndexOf('clear'); // (the last clear: the records after it are the new ledger's)
      // A reset starts afresh whatever Redis holds (even nothing: after a flush); other writes need the ledger.
      if (clears < 0) this.at.follow(rawGen ?? null, marker ?? null);
      const from = rawGen === null || rawGen === undefined ? undefined : Number(rawGen);
      const gen = clears >= 0 ? await newGeneration(this.client, this.at, from, (s) => this.exchange(s)) : from!;
      const epoch = clears >= 0 ? Generation.resetMark() : marker;
      const rest = changes.slice(clears + 1);
      const ops: Op[] =
        clears >= 0
          ? [
              ['SET', this.at.genKey, String(gen)],
              ['SET', this.at.markerKey, epoch!],
            ]
          : [];
      for (const [key, value] of alongside) ops.push(['SET', key, value]);
      // Admin writes replace records whole: only the generation must not have moved meanwhile.
      for (const c of rest) {
        const open = c.op === 'bets' ? await this.exchange(this.client.get(this.at.keys(gen).round(c.user_id, c.game_no))) : null;
        ops.push(...this.ops(gen, [c], open ? (JSON.parse(open) as RoundRecord) : undefined));
      }
      const expect: CasDocument['expect'] = [
        [this.at.genKey, rawGen ?? false],
        [this.at.markerKey, marker ?? false],
      ];
      if (await this.cas({ expect, ops })) {
        this.cache.clear(); // (stale entries only cost an attempt; these records were just replaced)
        const before = this.at.n;
        this.at.adopt(gen, epoch ?? undefined);
        for (const old of new Set([from, before])) if (old !== undefined && old !== gen) void this.dropGeneration(old);
        return;
      }
    }
    throw new Error(`the wallet was reset ${MAX_ATTEMPTS} times during one admin update; retry`);
  }

  /** Deletes what a generation left behind (after a reset), a batch at a time. */
  private dropGeneration(gen: number): Promise<void> {
    return sweepKeys(this.client, `${escapeGlob(this.at.keys(gen).base)}*`, () => this.closed);
  }

  /** A player (undefined: none); one listed whose record is gone is Redis's loss, refused as callbacks refuse it (player-reads.ts). */
  player(userId: string): Promise<Player | undefined> {
    return readPlayer(this.reads, userId);
  }

  players(): Promise<Player[]> {
    return readPlayers(this.reads);
  }

  /** What the admin reads of players need (player-reads.ts). */
  private get reads(): PlayerReads {
    return {
      client: this.client,
      at: this.at,
      cluster: this.cluster,
      exchange: (s) => this.exchange(s),
      refresh: () => this.refreshGeneration(),
    };
  }

  async playerCount(): Promise<number> {
    await this.refreshGeneration();
    return this.exchange(this.client.scard(this.at.keys(this.at.n).players));
  }

  /** Open rounds (tests and diagnostics): a SCAN, not for the callback path. */
  async openRounds(): Promise<number> {
    await this.refreshGeneration();
    // (every player's `…{p:<id>}:round:<game>`)
    return countKeys(this.client, `${escapeGlob(this.at.keys(this.at.n).base)}{p:*}:round:*`);
  }

  /**
   * Seeds a new ledger (the scenario's players) unless one exists: atomic, so of several processes
   * starting at once exactly one seeds. True when this call did.
   */
  async initialize(changes: readonly Change[]): Promise<boolean> {
    await this.refreshGeneration();
    // (a cluster's seed: its records in a generation of its own, flipped to by the check: cluster-generations.ts)
    const gen = await seedGeneration(this.client, this.at, (s) => this.exchange(s));
    const seeded = gen !== undefined && (await this.cas(seedDocument(this.at, gen, this.ops(gen, changes, undefined))));
    // This process works under the ledger that is there now, seeded by it or not.
    this.at.forgetEpoch();
    await this.refreshGeneration();
    return seeded;
  }

  /**
   * Picks up a reset made by another process (reads only; callbacks check on every read); throws
   * when Redis lost the wallet's state.
   */
  async refreshGeneration(): Promise<void> {
    const [gen, marker] = await this.exchange(this.client.mget(this.at.genKey, this.at.markerKey));
    this.at.follow(gen ?? null, marker ?? null);
    if (this.at.vital.length && (await this.exchange(this.client.exists(...this.at.vital))) < this.at.vital.length)
      throw this.at.lost('no scenario key');
  }

  /** Runs `closer` when the store closes (the connections of the shared journal and scenario). */
  onClose(closer: () => void): void {
    this.closers.push(closer);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.ownsLink) this.link.close();
    for (const closer of this.closers.splice(0)) closer();
    await this.locks.idle();
    if (this.ownsLink) this.client.disconnect();
  }
}
