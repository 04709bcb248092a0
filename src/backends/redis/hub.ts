import type { BackendOptions } from '../backend.js';
import { SharedChannels } from './channels.js';
import type { RedisLink } from './link.js';
import { scanKeys } from './cluster.js';
import { escapeGlob } from './records.js';
import { RedisBackend } from './redis-backend.js';
import { RedisStore } from './redis-store.js';
import { KeyLayout } from './keys.js';

/**
 * One process's connections to Redis when it holds many wallets (hosted mode: a wallet per
 * tenant): one command connection and one subscriber for all of them, however many there are.
 * Each wallet is a RedisBackend under a prefix of its own; what a single-tenant backend does on
 * connections of its own (word of a scenario change, of a new grading session) goes through the
 * hub's subscriber, and no wallet keeps a blocking reader open (the grading session folds on
 * demand: src/grading/redis-feed.ts).
 */
export class RedisHub {
  private constructor(
    readonly link: RedisLink,
    readonly channels: SharedChannels,
  ) {}

  /**
   * Connects (an unreachable Redis throws an Error naming the URL). `patterns`: the channels the
   * subscriber hears (PSUBSCRIBE), every channel a wallet or a caller listens to among them.
   */
  static async open(url: string, patterns: readonly string[], timeoutMs?: number): Promise<RedisHub> {
    const link = await RedisStore.connect(url, timeoutMs);
    try {
      return new RedisHub(link, await SharedChannels.open(link.client, patterns));
    } catch (e) {
      link.client.disconnect();
      throw e;
    }
  }

  get client(): RedisLink['client'] {
    return this.link.client;
  }

  /** A wallet with every key under `prefix`, on the hub's connections (closing it leaves them open). */
  async backend(prefix: string, options: BackendOptions = {}): Promise<RedisBackend> {
    const store = await RedisStore.over(this.link, {
      prefix,
      retainTransactions: options.retainTransactions,
      maxPlayers: options.maxPlayers,
    });
    return RedisBackend.over(store, options, this.channels);
  }

  /**
   * Deletes every key under `prefix` (SCAN and UNLINK, a batch at a time); resolves with how many
   * went. The wallet's marker goes first: a commit of a callback still being decided then finds
   * none and writes nothing (its journal and grading, closed with the wallet, write nothing either),
   * and what was written before is there for the SCAN to find.
   */
  async sweep(prefix: string): Promise<number> {
    let gone = await this.link.exchange(this.client.del(new KeyLayout(prefix).marker));
    await this.link.exchange(
      scanKeys(this.client, `${escapeGlob(prefix)}*`, async (keys, unlink) => {
        gone += await unlink(keys);
      }),
    );
    return gone;
  }

  close(): void {
    this.channels.close();
    this.link.close();
    this.client.disconnect();
  }
}
