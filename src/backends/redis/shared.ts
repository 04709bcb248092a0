import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Scenario } from '../../protocol/types.generated.js';
import type { RuleCounters } from '../../core/scenario/rules.js';
import type { Counters } from '../backend.js';
import { type Channels, ownChannels } from './channels.js';
import { beforeWrite } from './coalesce.js';

/** What an unread count resolves with (nobody reads it). */
const UNREAD = Promise.resolve(0);

/** Fires a rule unless it fired `times` already (ARGV[2] empty: no cap), atomically. */
const FIRE = `
local fired = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if ARGV[2] ~= '' and fired >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
return 1
`;

type FireClient = Redis & { walletFire(key: string, index: string, times: string): Promise<number> };

/** The values of a MULTI's replies; throws the first error. */
function results(replies: [Error | null, unknown][] | null): unknown[] {
  if (!replies) throw new Error('Redis refused the transaction');
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/**
 * What several wallet-sim processes on one Redis share besides the ledger
 * (docs/scale-out.md): the active scenario, the rule counters and word of a reset. The scenario document
 * and a version live in Redis; a change is published on a channel and every process picks it up
 * (and re-reads it after a reconnect, in case it missed the message). Rule counters are hashes per
 * scenario version, so a change or reset starts them at zero everywhere at once.
 *
 *   scenario              the active scenario document (JSON)
 *   scenario:version      bumped by every scenario change and reset
 *   rules:<v>:matched     hash rule index → callbacks that matched it
 *   rules:<v>:fired       hash rule index → times it fired
 *   events                pub/sub channel: {"from": <process>, "what": "scenario" | "reset"}
 *   calls                 hash user_id → that player's authenticated callbacks in the session (the draw's count)
 */
export class RedisShared implements Counters {
  readonly id = randomUUID();
  private version = '0';
  /** Stops listening to the other processes' word. */
  private unlisten?: () => void;
  private listener?: (scenario: Scenario) => void;

  constructor(
    private readonly client: Redis,
    /** What the keys start with: the wallet's prefix and session tag (keys.ts). */
    private readonly prefix: string,
    /** What the `events` channel starts with: the wallet's prefix. */
    private readonly channelPrefix: string,
    /** The store's link: a counter that gets no reply in time marks Redis frozen for every user. */
    private readonly exchange: <T>(sent: Promise<T>) => Promise<T> = (sent) => sent,
    /** Where word of the other processes comes from: a subscriber of its own, or one shared by the process's wallets (hosted mode). */
    private readonly channels: Channels = ownChannels(client),
  ) {
    client.defineCommand('walletFire', { numberOfKeys: 1, lua: FIRE });
  }

  /** The active scenario's key: gone means Redis lost the wallet's state. */
  get scenarioKey(): string {
    return this.key('scenario');
  }

  private get channel(): string {
    return `${this.channelPrefix}events`;
  }

  private key(name: string): string {
    return `${this.prefix}${name}`;
  }

  /**
   * Joins the shared wallet: publishes `scenario` if none is active yet, else resolves with the
   * active one (which this process must adopt). Then calls `listener` with the scenario whenever
   * another process changes it or resets the wallet.
   */
  async join(scenario: Scenario, listener: (scenario: Scenario) => void): Promise<Scenario | undefined> {
    this.listener = listener;
    const set = await this.client.set(this.key('scenario'), JSON.stringify(scenario), 'NX');
    const [doc, version] = results(await this.client.multi().get(this.key('scenario')).get(this.key('scenario:version')).exec()) as [
      string,
      string | null,
    ];
    this.version = version ?? '0';
    this.unlisten = await this.channels.listen(
      this.channel,
      (message) => {
        const { from } = JSON.parse(message) as { from: string };
        if (from !== this.id) void this.resync();
      },
      // After a reconnect, what was published meanwhile was missed: read the state again.
      () => void this.resync(),
    );
    return set === 'OK' ? undefined : (JSON.parse(doc) as Scenario);
  }

  /** Reads the shared version and scenario; tells the listener when they moved. */
  private async resync(): Promise<void> {
    try {
      const [doc, version] = results(await this.client.multi().get(this.key('scenario')).get(this.key('scenario:version')).exec()) as [
        string | null,
        string | null,
      ];
      const next = version ?? '0';
      if (next === this.version || doc === null) return;
      this.version = next;
      this.listener?.(JSON.parse(doc) as Scenario);
    } catch {
      // Redis away: the next reconnect resyncs.
    }
  }

  /** Makes `scenario` the active one for every process (counters start at zero). */
  async publishScenario(scenario: Scenario): Promise<void> {
    const [, version] = results(
      await this.client
        .multi()
        .set(this.key('scenario'), JSON.stringify(scenario))
        .incr(this.key('scenario:version'))
        .del(...this.counterKeys())
        .exec(),
    );
    this.version = String(version);
    await this.client.publish(this.channel, JSON.stringify({ from: this.id, what: 'scenario' }));
  }

  /**
   * Rule counters start at zero for every process (after `POST /admin/reset`); a scenario lost with
   * Redis's state (a flush) is published again.
   */
  async publishReset(scenario: Scenario): Promise<void> {
    const [, version] = results(
      await this.client
        .multi()
        .set(this.key('scenario'), JSON.stringify(scenario), 'NX')
        .incr(this.key('scenario:version'))
        .del(...this.counterKeys())
        .exec(),
    );
    this.version = String(version);
    await this.client.publish(this.channel, JSON.stringify({ from: this.id, what: 'reset' }));
  }

  private counterKeys(): string[] {
    return [this.key(`rules:${this.version}:matched`), this.key(`rules:${this.version}:fired`)];
  }

  /** Counts not sent yet, by player (`countCall` unread): the player's commit script takes them, or this turn's write. */
  private readonly unsent = new Map<string, number>();

  /**
   * Counts a callback of `userId` for every process: its number in the session, from 1. Unread (no
   * rule draws), the count goes with the player's commit script when that leaves in this turn of the
   * event loop (`takeCount`), else on its own in the same write: no command of its own, in the usual case.
   */
  countCall(userId: string, unread?: boolean): Promise<number> {
    if (this.closed) return Promise.reject(new Error(CLOSED));
    if (unread) {
      const n = this.unsent.get(userId) ?? 0;
      this.unsent.set(userId, n + 1);
      if (this.unsent.size === 1 && n === 0) beforeWrite(this.client, () => this.sendCounts());
      return UNREAD;
    }
    // Through the store's link, as the rule counters: a count that gets no reply names Redis.
    return this.exchange(this.client.hincrby(this.key('calls'), userId, 1));
  }

  /** The callbacks of `userId` counted and not sent yet, for its commit script to count: the hash, the player, how many. */
  takeCount(userId: string): [string, string, number] | undefined {
    const n = this.unsent.get(userId);
    if (n === undefined) return undefined;
    this.unsent.delete(userId);
    return [this.key('calls'), userId, n];
  }

  private sendCounts(): void {
    if (this.closed) return this.unsent.clear();
    for (const [userId, n] of this.unsent) this.exchange(this.client.hincrby(this.key('calls'), userId, n)).catch(() => {});
    this.unsent.clear();
  }

  /** A new session: every player's callback count starts again (reset, DELETE /admin/journal). */
  async resetCalls(): Promise<void> {
    this.unsent.clear(); // (callbacks of the session that ends)
    await this.client.del(this.key('calls'));
  }

  /** The rule counters of the active scenario version, shared by every process. */
  readonly rules: RuleCounters = {
    match: async (indexes) => {
      if (this.closed) throw new Error(CLOSED);
      const key = this.key(`rules:${this.version}:matched`);
      const multi = this.client.multi();
      for (const i of indexes) multi.hincrby(key, String(i), 1);
      return results(await this.exchange(multi.exec())).map(Number);
    },
    fire: async (index, times) => {
      if (this.closed) throw new Error(CLOSED);
      return (
        (await this.exchange(
          (this.client as FireClient).walletFire(
            this.key(`rules:${this.version}:fired`),
            String(index),
            times === undefined ? '' : String(times),
          ),
        )) === 1
      );
    },
    read: async (count) => {
      const [matched, fired] = await Promise.all([
        this.client.hgetall(this.key(`rules:${this.version}:matched`)),
        this.client.hgetall(this.key(`rules:${this.version}:fired`)),
      ]);
      const list = (h: Record<string, string>) => Array.from({ length: count }, (_, i) => Number(h[String(i)] ?? 0));
      return { matched: list(matched), fired: list(fired) };
    },
  };

  /**
   * Closed with its store: a callback still being decided counts nothing more (hosted mode: its
   * tenant deleted, the keys swept; a late count would make them again, for good).
   */
  private closed = false;

  close(): void {
    this.closed = true;
    this.unlisten?.();
  }
}

const CLOSED = 'this wallet was closed (its tenant deleted, or wallet-sim stopping): nothing more is counted';
