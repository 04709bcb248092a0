import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { BackendOptions } from '../backends/backend.js';
import { RedisHub } from '../backends/redis/hub.js';
import { escapeGlob } from '../backends/redis/records.js';
import { StoreUnavailable } from '../ledger/store-error.js';
import { RedisRunShelf } from './probe-shelf-redis.js';
import { TenantLimit } from '../routes/tenant-directory.js';
import { type SharedBook, type TenantBook, TenantGone, type TenantRecord, type TenantStores, tenantSimulator } from './tenant-book.js';

/*
 * `start --hosted --store redis`: every process on one Redis serves every tenant (docs/hosted.md,
 * "Several processes on Redis"). Under --redis-prefix (`wallet-sim:` by default):
 *
 *   {tenants}          hash id → the tenant's record (JSON: name, token digest, credentials, scenario)
 *   {tenants}:tokens   hash token digest → id
 *   {tenants}:version  bumped by every creation, rotation and deletion
 *   tenants:events     pub/sub: {"from": <process>} after each of them
 *   t:<id>:…           everything of tenant <id>: its wallet, counters, scenario, journal, grading
 *                      (the single-tenant keys of docs/scale-out.md, under this prefix)
 *
 * The registry's three keys share one hash tag, so that its scripts touch one slot on a Redis
 * Cluster (--redis-cluster) as on one Redis.
 */

/** How often a process checks `tenants:version` (the bound when word of a change was lost). */
export const TENANTS_CHECK_MS = 1000;

/** Where tenant `id`'s keys live. */
export const tenantPrefix = (base: string, id: string) => `${base}t:${id}:`;

/**
 * Whether a write must be refused because the registry this process saw is gone (ARGV `seen` '1'
 * and no version): Redis lost it. A write then would start a registry of one, which every process
 * would follow by dropping all the tenants it serves as deleted.
 */
const LOST = `
local function lost(seen) return seen == '1' and redis.call('EXISTS', KEYS[3]) == 0 end
`;

/**
 * Adds or replaces a record: 0 when a new one would pass --max-tenants, -1 when the one replaced is
 * gone, -2 when the registry is lost.
 */
const PUT = `${LOST}
if lost(ARGV[6]) then return -2 end
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then
  redis.call('HDEL', KEYS[2], cjson.decode(old).token_sha256)
elseif ARGV[5] == '1' then
  return -1
elseif redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[1])
redis.call('INCR', KEYS[3])
return 1
`;

/** Removes a record: 1, or 0 when there is none, -2 when the registry is lost. */
const REMOVE = `${LOST}
if lost(ARGV[2]) then return -2 end
local old = redis.call('HGET', KEYS[1], ARGV[1])
if not old then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], cjson.decode(old).token_sha256)
redis.call('INCR', KEYS[3])
return 1
`;

type BookClient = Redis & {
  tenantPut(...args: string[]): Promise<number>;
  tenantRemove(...args: string[]): Promise<number>;
};

const parsed = (text: string): TenantRecord | undefined => {
  try {
    return JSON.parse(text) as TenantRecord;
  } catch {
    return undefined; // not a record of ours (edited by hand): left out
  }
};

/** The tenants' records in Redis, shared by every process: a write is acknowledged by Redis before its answer. */
export class RedisBook implements TenantBook, SharedBook {
  readonly others = this;
  private readonly from = randomUUID();
  private timer?: NodeJS.Timeout;
  private unlisten?: () => void;
  /** The registry's version was seen: its absence since is Redis's loss, not every tenant deleted. */
  private seen = false;
  /** Why the registry counts as lost (GET /health's 503), until Redis holds it again. */
  lost?: string;

  constructor(
    private readonly hub: RedisHub,
    private readonly base: string,
    /** --max-tenants, over every process. */
    private readonly max: number,
  ) {
    hub.client.defineCommand('tenantPut', { numberOfKeys: 3, lua: PUT });
    hub.client.defineCommand('tenantRemove', { numberOfKeys: 3, lua: REMOVE });
  }

  private get keys(): [string, string, string] {
    return registryKeys(this.base);
  }

  /** The channel of word between processes (it matches one of `patterns`). */
  private get channel(): string {
    return `${this.base}tenants:events`;
  }

  /** What the hub's subscriber must hear: this book's word and every tenant's (`<base>t:<id>:events`: a scenario change, a reset). */
  static patterns(base: string): string[] {
    return [`${escapeGlob(base)}tenants:events`, `${escapeGlob(base)}t:*`];
  }

  private send<T>(sent: Promise<T>): Promise<T> {
    return this.hub.link.exchange(sent);
  }

  private get client(): BookClient {
    return this.hub.client as BookClient;
  }

  /**
   * One of the registry's hashes, with its version: a version seen once and gone since is Redis's
   * loss (flushed, evicted, restarted without persistence), refused, so the tenants are kept as
   * they were rather than forgotten as deleted.
   */
  private async registry(key: string): Promise<Record<string, string>> {
    const [[, all], [, version]] = (await this.send(this.client.multi().hgetall(key).get(this.keys[2]).exec()))! as [
      [unknown, Record<string, string>],
      [unknown, string | null],
    ];
    if (version === null && this.seen) throw new StoreUnavailable(this.lostNow());
    this.seen ||= version !== null;
    this.lost = undefined;
    return all;
  }

  async load(): Promise<TenantRecord[]> {
    const all = await this.registry(this.keys[0]);
    const records = Object.values(all).flatMap((text) => parsed(text) ?? []);
    return records.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  }

  async put(record: TenantRecord, replacing = false): Promise<void> {
    const args = [record.id, JSON.stringify(record), record.token_sha256, String(this.max), replacing ? '1' : '', this.seen ? '1' : ''];
    const done = await this.send(this.client.tenantPut(...this.keys, ...args));
    if (done === -2) throw new StoreUnavailable(this.lostNow());
    if (done === 0) throw new TenantLimit(this.max);
    if (done === -1) throw new TenantGone(`tenant ${record.id} was deleted`);
    this.seen = true; // (the script bumped the version)
    await this.tell();
  }

  async remove(id: string): Promise<boolean> {
    const done = await this.send(this.client.tenantRemove(...this.keys, id, this.seen ? '1' : ''));
    if (done === -2) throw new StoreUnavailable(this.lostNow());
    if (done === 1) await this.tell();
    return done === 1;
  }

  private lostNow(): string {
    return (this.lost ??=
      `Redis lost the tenant registry (${this.keys[2]} gone: flushed, evicted or restarted without persistence); the tenants ` +
      "known are kept but their wallets may be gone: restore Redis's data (use appendonly yes), or start afresh with another --redis-prefix");
  }

  /** Word to the other processes: they sync at once rather than at their next check. */
  private tell(): Promise<unknown> {
    return this.client.publish(this.channel, JSON.stringify({ from: this.from })).catch(() => undefined);
  }

  // While the registry is lost, a record or token not found is not known to be absent: 503 with the
  // reason, never 404 "check the URL" or 401 "check the token" to an integrator during the outage.
  async find(id: string): Promise<TenantRecord | undefined> {
    const text = await this.send(this.client.hget(this.keys[0], id));
    if (text === null && this.lost) throw new StoreUnavailable(this.lost);
    return text === null ? undefined : parsed(text);
  }

  async idOfToken(digest: string): Promise<string | undefined> {
    const id = await this.send(this.client.hget(this.keys[1], digest));
    if (id === null && this.lost) throw new StoreUnavailable(this.lost);
    return id ?? undefined;
  }

  async index(): Promise<Map<string, string>> {
    const byDigest = await this.registry(this.keys[1]);
    return new Map(Object.entries(byDigest).map(([digest, id]) => [id, digest]));
  }

  /** Word from another process, a reconnect of the subscriber, or `tenants:version` moved (checked every TENANTS_CHECK_MS). */
  follow(changed: () => void): void {
    let version: string | null | undefined;
    // Through the link: a check without a reply in time marks Redis frozen (GET /health's 503).
    const check = (): void =>
      void this.send(this.client.get(this.keys[2])).then(
        (now) => {
          if (now === null && (version || this.seen)) this.lostNow();
          else if (version !== undefined && now !== version) changed();
          else if (now !== null && this.lost) changed();
          version = now;
        },
        () => undefined, // Redis away: the next check
      );
    check();
    this.timer = setInterval(check, TENANTS_CHECK_MS).unref();
    void this.hub.channels
      .listen(
        this.channel,
        (message) => {
          if ((JSON.parse(message) as { from?: string }).from !== this.from) changed();
        },
        changed,
      )
      .then((stop) => (this.unlisten = stop));
  }

  /** Stops following, and closes the hub's connections (after the registry closed its tenants). */
  close(): Promise<void> {
    clearInterval(this.timer);
    this.unlisten?.();
    this.hub.close();
    return Promise.resolve();
  }
}

/** The registry's keys under `base`: the records, the token index, the version (one hash tag: one slot). */
export const registryKeys = (base: string): [string, string, string] => [
  `${base}{tenants}`,
  `${base}{tenants}:tokens`,
  `${base}{tenants}:version`,
];

/**
 * A registry an older wallet-sim wrote (`<base>tenants`, untagged) is refused, naming its keys and
 * the fix, rather than started beside as an empty one.
 */
async function refuseOlderRegistry(client: Redis, base: string): Promise<void> {
  const [records, tokens, version] = registryKeys(base);
  const older = `${base}tenants`;
  if ((await client.exists(records)) || !(await client.exists(older))) return;
  throw new Error(
    `Redis holds a tenant registry an older wallet-sim wrote under "${older}": this version keeps it under "${records}" ` +
      `(one hash tag, for Redis Cluster). Rename its keys (redis-cli rename ${older} ${records}; rename ${older}:tokens ${tokens}; ` +
      `rename ${older}:version ${version}), or start with another --redis-prefix`,
  );
}

/** Each tenant's wallet on the hub's connections, under `<base>t:<id>:`; a dropped tenant's keys are swept. */
export function redisStores(hub: RedisHub, base: string, limits: BackendOptions): TenantStores {
  return {
    open: async (record, scenario) => {
      return tenantSimulator(record, scenario, await hub.backend(tenantPrefix(base, record.id), limits));
    },
    drop: async (id, sim) => {
      await sim.backend.close();
      // In the background: a tenant's keys are bounded (its limits), and nothing reads them any more.
      void hub.sweep(tenantPrefix(base, id)).catch(() => undefined);
    },
  };
}

/** The book and the stores of a hosted process on Redis, on one hub (the book's `close`, after the registry's, closes it). */
export async function openRedisTenants(o: { url: string; base: string; timeoutMs?: number; max: number; limits: BackendOptions }) {
  const hub = await RedisHub.open(o.url, RedisBook.patterns(o.base), o.timeoutMs);
  try {
    await hub.link.exchange(refuseOlderRegistry(hub.client, o.base));
  } catch (e) {
    hub.close();
    throw e;
  }
  const book = new RedisBook(hub, o.base, o.max);
  return {
    book,
    stores: redisStores(hub, o.base, o.limits),
    shelf: new RedisRunShelf(hub, (id) => tenantPrefix(o.base, id)),
    /** Why Redis cannot serve now (GET /health's 503), or undefined. */
    failure: () => hub.link.failure ?? book.lost,
  };
}
