import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Change,
  forgottenRound,
  forgottenTxn,
  type PlayerRecord,
  roundKey,
  type RoundRecord,
  type TransactionRecord,
} from './change.js';
import { ReplyError } from 'ioredis';
import { connectRedis, DEFAULT_REDIS_PREFIX, redact } from './redis-connection.js';
import { KeyLocks } from './redis-locks.js';
import { CAS, type CasClient, type CasDocument, escapeGlob, hash64, type Op, recordOps, toPlayer, toRound } from './redis-records.js';
import type { Player } from './state.js';
import type { Decided, RecordKeys, Store, View } from './store.js';

export interface RedisStoreOptions {
  /** --redis-prefix: every key of this wallet starts with it (default `wallet-sim:`). */
  prefix?: string;
  /** --retain-transactions: applied transactions remembered for idempotency. */
  retainTransactions?: number;
}

/** A callback still conflicting after this many attempts is answered R1 (the caller retries). */
export const MAX_ATTEMPTS = 20;

/**
 * The ledger in Redis (docs/scale-out.md): any number of wallet-sim processes sharing one
 * Redis act as one wallet. A callback reads the records it needs, the pure `decide` turns them into
 * changes, and a compare-and-set script commits them only if none of those records changed since
 * the read; otherwise it reads again and decides again (optimistic concurrency, docs/scale-out.md).
 * Callbacks of one player queue in this process, so only callbacks from different processes race.
 *
 * Keys, under the prefix and a generation (`/admin/reset` starts a new generation atomically and
 * deletes the old one's keys afterwards):
 *   gen                        the current generation n
 *   g<n>:player:<user_id>      PlayerRecord JSON         g<n>:players    set of user_ids
 *   g<n>:round:<round key>     open round (RoundRecord)  g<n>:settled:<round key>  "1"
 *   g<n>:txn:<transaction_id>  TransactionRecord JSON    g<n>:order      list: oldest applied first (the ledger)
 *   g<n>:forgotten             set of 64-bit hashes (hex) of forgotten transaction ids and rounds
 */
export class RedisStore implements Store {
  readonly kind = 'redis';
  private gen = 0;
  private readonly locks = new KeyLocks();
  private lastError?: string;
  private closed = false;
  private readonly closers: (() => void)[] = [];

  private constructor(
    readonly client: CasClient,
    readonly url: string,
    readonly prefix: string,
    readonly retain: number,
  ) {
    client.on('error', (e: Error) => {
      this.lastError = e.message;
    });
  }

  static async open(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const client = await connectRedis(url);
    client.defineCommand('walletCas', { numberOfKeys: 0, lua: CAS });
    const store = new RedisStore(
      client as CasClient,
      url,
      options.prefix ?? DEFAULT_REDIS_PREFIX,
      options.retainTransactions ?? Number.POSITIVE_INFINITY,
    );
    await client.set(store.genKey, '0', 'NX');
    store.gen = Number(await client.get(store.genKey));
    return store;
  }

  /** Why nothing can be acknowledged now: Redis is unreachable. Clears by itself on reconnect. */
  get failure(): string | undefined {
    if (this.client.status === 'ready') return undefined;
    return this.unreachable(this.lastError ?? this.client.status);
  }

  private unreachable(why: string): string {
    return `Redis at ${redact(this.url)} is unreachable (${why}); wallet-sim reconnects by itself`;
  }

  /**
   * A Redis exchange on the callback path. The connection can drop between the status check and
   * the command (ioredis then rejects with "Stream isn't writeable" or "Connection is closed"):
   * that is Redis being unreachable too, and the reason (R1) says so. An error Redis itself
   * answered (a ReplyError) is passed on as it is.
   */
  private exchange<T>(sent: Promise<T>): Promise<T> {
    return sent.catch((e: unknown) => {
      if (e instanceof ReplyError) throw e;
      throw new Error(this.unreachable(e instanceof Error ? e.message : String(e)), { cause: e });
    });
  }

  get genKey(): string {
    return `${this.prefix}gen`;
  }

  private key(gen: number, kind: string, id = ''): string {
    return `${this.prefix}g${gen}:${kind}${id ? `:${id}` : ''}`;
  }

  transact<T extends Decided>(keys: RecordKeys, decide: (view: View) => T): Promise<T> {
    // Callbacks of one player run one after the other in this process: contention is only ever
    // between processes, so the number of attempts stays small (about the number of processes).
    return this.locks.run(keys.user_id, () => this.attempt(keys, decide));
  }

  private async attempt<T extends Decided>(keys: RecordKeys, decide: (view: View) => T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (this.failure) throw new Error(this.failure);
      const gen = this.gen;
      const k = this.recordKeys(gen, keys);
      const watched = [this.genKey, k.player, k.txn, ...(k.round ? [k.round, k.settled!] : [])];
      const hashes = [hash64(forgottenTxn(keys.transaction_id)), ...(k.roundId ? [hash64(forgottenRound(k.roundId))] : [])];
      const replies = await this.exchange(
        this.client
          .multi()
          .mget(...watched)
          .smismember(this.key(gen, 'forgotten'), ...hashes)
          .exec(),
      );
      if (!replies) throw new Error('Redis refused the read');
      for (const [err] of replies) if (err) throw err;
      const values = replies[0]![1] as (string | null)[];
      const forgotten = replies[1]![1] as number[];
      if (values[0] !== String(gen)) {
        this.gen = Number(values[0]); // another process reset the wallet: read the new generation
        continue;
      }
      const [, player, txn, round, settled] = values;
      const roundRecord = round ? (JSON.parse(round) as RoundRecord) : undefined;
      const view: View = {
        player: player ? toPlayer(JSON.parse(player) as PlayerRecord) : undefined,
        round: roundRecord && toRound(roundRecord),
        roundSettled: Boolean(settled),
        roundForgotten: forgotten[1] === 1,
        transaction: txn ? (JSON.parse(txn) as TransactionRecord) : undefined,
        transactionForgotten: !txn && forgotten[0] === 1,
      };
      const decided = decide(view);
      // A refusal or a replay changes nothing: what it read is what Redis acknowledged.
      if (!decided.changes.length) return decided;
      const expect = watched.map((key, i): [string, string | false] => [key, values[i] ?? false]);
      if (await this.cas({ expect, ops: this.ops(gen, decided.changes, roundRecord), trim: this.trim(gen) })) return decided;
      if (attempt >= MAX_ATTEMPTS)
        throw new Error(`the records of ${keys.user_id} kept changing under ${MAX_ATTEMPTS} attempts (other wallet-sim processes); retry`);
      // Jittered back-off: two processes that collided do not collide again in lockstep.
      await sleep(Math.random() * Math.min(2 ** attempt, 50));
    }
  }

  private cas(doc: CasDocument): Promise<boolean> {
    return this.exchange(this.client.walletCas(JSON.stringify(doc))).then((r) => r === 1);
  }

  private trim(gen: number): CasDocument['trim'] {
    return Number.isFinite(this.retain) ? [this.key(gen, 'order'), this.retain, this.key(gen, 'forgotten')] : undefined;
  }

  private recordKeys(gen: number, { user_id, transaction_id, game_no }: RecordKeys) {
    const roundId = game_no === undefined ? undefined : roundKey(user_id, game_no);
    return {
      player: this.key(gen, 'player', user_id),
      txn: this.key(gen, 'txn', transaction_id),
      roundId,
      round: roundId && this.key(gen, 'round', roundId),
      settled: roundId && this.key(gen, 'settled', roundId),
    };
  }

  /** The Redis writes of change records (decided on `round`, the open round as read). */
  private ops(gen: number, changes: readonly Change[], round: RoundRecord | undefined): Op[] {
    // Always listed in `order`: the ledger (GET /admin/ledger) reads the applied transactions from it, oldest first.
    return recordOps((kind, id) => this.key(gen, kind, id), changes, round, true);
  }

  /**
   * Admin updates, scenario seeds and reset. A `clear` starts a new generation in the same atomic
   * step as the records after it (every process's next read sees it); the old generation's keys are
   * deleted afterwards.
   */
  async commit(changes: readonly Change[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (this.failure) throw new Error(this.failure);
      const from = Number(await this.exchange(this.client.get(this.genKey)));
      let clears = -1;
      changes.forEach((c, i) => {
        if (c.op === 'clear') clears = i;
      });
      const gen = clears >= 0 ? from + 1 : from;
      const rest = changes.slice(clears + 1);
      const ops: Op[] = clears >= 0 ? [['SET', this.genKey, String(gen)]] : [];
      // Admin writes replace records whole: only the generation must not have moved meanwhile.
      for (const c of rest) {
        const open = c.op === 'bets' ? await this.exchange(this.client.get(this.key(gen, 'round', roundKey(c.user_id, c.game_no)))) : null;
        ops.push(...this.ops(gen, [c], open ? (JSON.parse(open) as RoundRecord) : undefined));
      }
      if (await this.cas({ expect: [[this.genKey, String(from)]], ops })) {
        this.gen = gen;
        if (gen !== from) void this.dropGeneration(from);
        return;
      }
      if (attempt >= MAX_ATTEMPTS) throw new Error(`the wallet was reset ${MAX_ATTEMPTS} times during one admin update; retry`);
    }
  }

  /** Deletes what a generation left behind (after a reset), a batch at a time. */
  private async dropGeneration(gen: number): Promise<void> {
    const pattern = `${escapeGlob(this.prefix)}g${gen}:*`;
    let cursor = '0';
    try {
      do {
        const [next, keys] = await this.client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        if (keys.length) await this.client.unlink(...keys);
        cursor = next;
      } while (cursor !== '0' && !this.closed);
    } catch {
      // Redis went away: the next reset sweeps nothing of this one; the keys are unreachable anyway.
    }
  }

  async player(userId: string): Promise<Player | undefined> {
    await this.refreshGeneration();
    const raw = await this.client.get(this.key(this.gen, 'player', userId));
    return raw ? toPlayer(JSON.parse(raw) as PlayerRecord) : undefined;
  }

  async players(): Promise<Player[]> {
    await this.refreshGeneration();
    const ids = await this.client.smembers(this.key(this.gen, 'players'));
    const players: Player[] = [];
    for (let i = 0; i < ids.length; i += 1000) {
      const raws = await this.client.mget(...ids.slice(i, i + 1000).map((id) => this.key(this.gen, 'player', id)));
      for (const raw of raws) if (raw) players.push(toPlayer(JSON.parse(raw) as PlayerRecord));
    }
    return players.sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0));
  }

  async playerCount(): Promise<number> {
    await this.refreshGeneration();
    return this.client.scard(this.key(this.gen, 'players'));
  }

  /** Open rounds (tests and diagnostics): a SCAN, not for the callback path. */
  async openRounds(): Promise<number> {
    await this.refreshGeneration();
    let n = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.client.scan(cursor, 'MATCH', `${escapeGlob(this.key(this.gen, 'round'))}:*`, 'COUNT', 1000);
      n += keys.length;
      cursor = next;
    } while (cursor !== '0');
    return n;
  }

  /**
   * Seeds a new ledger (the scenario's players) unless one exists: atomic, so of several processes
   * starting at once exactly one seeds. True when this call did.
   */
  async initialize(changes: readonly Change[]): Promise<boolean> {
    await this.refreshGeneration();
    const marker = `${this.prefix}initialized`;
    return this.cas({
      expect: [
        [marker, false],
        [this.genKey, String(this.gen)],
      ],
      ops: [['SET', marker, new Date().toISOString()], ...this.ops(this.gen, changes, undefined)],
    });
  }

  /** Picks up a reset made by another process (reads only; callbacks check on every read). */
  async refreshGeneration(): Promise<void> {
    this.gen = Number(await this.client.get(this.genKey));
  }

  /** Runs `closer` when the store closes (the connections of the shared journal and scenario). */
  onClose(closer: () => void): void {
    this.closers.push(closer);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const closer of this.closers.splice(0)) closer();
    await this.locks.idle();
    this.client.disconnect();
  }
}
