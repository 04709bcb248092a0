import { setTimeout as sleep } from 'node:timers/promises';
import type { Change, RoundRecord } from '../../ledger/change.js';
import type { Decided, RecordKeys, Seal, View } from '../../ledger/store.js';
import type { CommitReply, Expected, Writes } from './commit.js';
import type { Generation } from './generation.js';
import { isCluster } from './cluster.js';
import { type CasClient, idOf, type Op, type ReadReply, type Trim, unlisted } from './records.js';
import { type Read, readView, recordsView, viewOf, type Watch, watchOf } from './view.js';

/** A callback still conflicting after this many attempts is answered R1 (the caller retries). */
export const MAX_ATTEMPTS = 20;

/** Keys cached at most (players, open rounds): the oldest go first. */
const MAX_CACHED = 50_000;

/**
 * The records this process last read or wrote for the players it serves (player, open round and
 * whether it is settled; never a transaction: each callback names a new one). A callback of a player served before
 * is decided on them and committed in one script that checks they still hold: stale is never
 * wrong, it only costs an attempt (the failed check answers the current values). Callbacks of one
 * player run one at a time in this process (KeyLocks), so its entries change under no decision.
 */
export class RecordCache {
  private readonly values = new Map<string, string | null>();

  /** The read a callback would make, from what is cached; undefined when its player is not. */
  read(at: Generation, watch: Watch): Read | undefined {
    const [, , player, , , round, settled] = watch.watched;
    const marker = at.marker;
    const playerValue = this.values.get(player!);
    if (marker === undefined || playerValue === undefined) return undefined;
    const values: (string | null)[] = [String(at.n), marker, playerValue, null, null];
    if (round !== undefined) values.push(this.values.get(round) ?? null, this.values.get(settled!) ?? null);
    // (assumed: the transaction is new and unclaimed, nothing of it forgotten, an absent player not
    // listed nor one too many; the commit checks it)
    return recordsView(
      values,
      watch.hashes.map(() => 0),
      0,
      idOf(watch.user),
    );
  }

  /** Keeps what Redis holds for a callback's player and round (read, or answered by a failed check). */
  remember(watch: Watch, values: readonly (string | null)[]): void {
    for (const i of [2, 5, 6]) if (i < watch.watched.length) this.set(watch.watched[i]!, values[i] ?? null);
  }

  /**
   * Keeps what a commit wrote to the callback's player and open round. A round settled goes (its
   * game is over: a late callback of it finds it absent in the cache, and the check says otherwise).
   */
  wrote(watch: Watch, ops: readonly Op[]): void {
    const [, , player, , , round, settled] = watch.watched;
    for (const [command, key, value] of ops) {
      if (key === undefined || (key !== player && key !== round)) continue;
      if (command === 'SET') this.set(key, value ?? null);
      else if (command === 'DEL') {
        this.values.delete(key);
        this.values.delete(settled!);
      }
    }
  }

  /** Forgets a callback's records (a commit whose outcome is unknown: Redis did not answer). */
  forget(watch: Watch): void {
    for (const key of watch.watched) this.values.delete(key);
  }

  clear(): void {
    this.values.clear();
  }

  private set(key: string, value: string | null): void {
    this.values.delete(key);
    this.values.set(key, value);
    if (this.values.size > MAX_CACHED) this.values.delete(this.values.keys().next().value!);
  }
}

/** What one callback's commit needs of the store. */
export interface CommitContext {
  readonly client: CasClient;
  /** Sends a commit (`seal`: journalled and graded with it): the one script on a single Redis, a cluster's steps (cluster-commit.ts). */
  send(watch: Watch, expected: Expected, writes: Writes, seal: Seal | undefined): Promise<CommitReply>;
  readonly at: Generation;
  readonly cache: RecordCache;
  /** Why nothing can be acknowledged now (Redis away, state lost), or undefined. */
  failure(): string | undefined;
  exchange<T>(sent: Promise<T>): Promise<T>;
  /**
   * The writes of changes decided on `round` (the open round as read), in generation `gen`; `listed`:
   * the player's record was there (so the players set holds it already).
   */
  ops(gen: number, changes: readonly Change[], round: RoundRecord | undefined, listed: boolean): Op[];
  /** The transaction index's bound, or undefined (none). */
  trim(gen: number): Trim | undefined;
  /** The player's callbacks counted and not sent yet: the hash, the player, how many (RedisShared.takeCount). */
  takeCount(userId: string): [string, string, number] | undefined;
  /** The most players the wallet holds (hosted mode's --tenant-players); unbounded when absent. */
  readonly maxPlayers?: number;
}

/**
 * One callback, optimistically (docs/scale-out.md): decide on the cached records (or on a read, for a
 * player not cached), then one script checks them, writes, and adds the journal entry and grading
 * event `seal` builds from the decision. A failed check answers the current values: decide again on
 * them. A refusal or replay decided on a read with nothing to journal changes nothing and is answered
 * from it; decided on the cache, the script confirms it (expecting, writing nothing).
 */
export async function commitCallback<T extends Decided>(
  ctx: CommitContext,
  keys: RecordKeys,
  decide: (view: View) => T,
  seal?: (decided: T) => Seal | undefined,
): Promise<T> {
  let answered: Read | undefined; // what the last failed check answered
  let raced = false; // beaten on what Redis answered: read afresh after the back-off
  let count: [string, string, number] | undefined | false = false; // (taken with the first script)
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const failure = ctx.failure();
    if (failure) throw new Error(failure);
    const gen = ctx.at.n;
    const watch = watchOf(ctx.at, keys, ctx.maxPlayers);
    let read: Read | undefined = answered ?? (raced ? undefined : ctx.cache.read(ctx.at, watch));
    const fromRedis: boolean = answered !== undefined || read === undefined;
    answered = undefined;
    if (!read) {
      read = await readView(ctx.client, ctx.at, watch, (sent) => ctx.exchange(sent));
      if (!read) continue; // another process reset the wallet: read the new generation
      ctx.cache.remember(watch, read.values);
    }
    const decided = decide(read.view);
    const sealed = seal?.(decided);
    // A transaction applied to the player and not listed yet (a cluster's step 3 that never ran): its replay lists it.
    const relists = unlisted(read.values);
    // A refusal or a replay changes nothing: what it read is what Redis acknowledged.
    if (!decided.changes.length && !sealed && fromRedis && !relists) return decided;
    const ops = decided.changes.length ? ctx.ops(gen, decided.changes, read.round, read.view.player !== undefined) : [];
    if (count === false) count = ctx.takeCount(keys.user_id);
    const trim = ops.length || relists ? ctx.trim(gen) : undefined;
    let reply: CommitReply;
    try {
      reply = await ctx.send(watch, read, { ops, trim, count }, sealed);
    } catch (e) {
      ctx.cache.forget(watch);
      throw e;
    }
    if (reply[0] === 1) {
      ctx.cache.wrote(watch, ops);
      sealed?.committed(reply[1]);
      return decided;
    }
    const current = reply.slice(1) as ReadReply;
    ctx.cache.remember(watch, current[0]);
    raced = fromRedis;
    if (!raced) {
      // The cache was stale: decide again on what the check answered (undefined: reset by another process).
      answered = viewOf(ctx.at, watch, current, isCluster(ctx.client));
      continue;
    }
    // Decided on what Redis answered and still beaten: another process won the race. A jittered
    // back-off, so that two that collided do not collide again in lockstep; then a fresh read.
    await sleep(Math.random() * Math.min(2 ** attempt, 50));
  }
  throw new Error(`the records of ${keys.user_id} kept changing under ${MAX_ATTEMPTS} attempts (other wallet-sim processes); retry`);
}
