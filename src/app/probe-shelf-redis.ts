import type { RedisHub } from '../backends/redis/hub.js';
import { KeyLayout } from '../backends/redis/keys.js';
import type { RunShelf, StoredRun } from '../routes/probe-run.js';

/**
 * A run holds its tenant's slot this long after its process last renewed it (a third of it apart,
 * while the run goes on, whatever its checks wait for): a run whose process died reads `failed`,
 * and its slot is free, within this (it was five minutes after the run's last check).
 */
const SLOT_MS = 15_000;

/** Deletes the slot if `run` still holds it. */
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
/**
 * Extends the slot if `run` still holds it, or takes it again if nobody does (Redis lost it: flushed,
 * restarted; or it expired while Redis was away): a live run is never shown `failed` for that. A slot
 * another run took meanwhile stays that run's.
 */
const RENEW = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/**
 * The tenants' probe runs in Redis, under each tenant's prefix (deleting the tenant deletes them)
 * and its session's hash tag (`<prefix>{<prefix>}`, keys.ts), so that the transactions over a run,
 * its list and the slot touch one slot on a Redis Cluster:
 *   probe:running      the run holding the tenant's one slot (SET NX, expiring)
 *   probe:run:<run>    the run as shown, its report once done (JSON)
 *   probe:runs         list of run ids, newest first, the last `kept`
 */
export class RedisRunShelf implements RunShelf {
  /** The renewals of the slots this process holds, by slot key. */
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly hub: RedisHub,
    /** The prefix of a tenant's keys. */
    private readonly prefixOf: (tenant: string) => string,
    private readonly slotMs = SLOT_MS,
  ) {}

  private key(tenant: string, name: string): string {
    return `${new KeyLayout(this.prefixOf(tenant)).session}probe:${name}`;
  }

  private send<T>(sent: Promise<T>): Promise<T> {
    return this.hub.link.exchange(sent);
  }

  async claim(tenant: string, run: string): Promise<string | undefined> {
    const key = this.key(tenant, 'running');
    if ((await this.send(this.hub.client.set(key, run, 'PX', this.slotMs, 'NX'))) !== 'OK')
      return (await this.send(this.hub.client.get(key))) ?? undefined;
    clearInterval(this.renewals.get(key));
    const renew = () => void this.hub.client.eval(RENEW, 1, key, run, this.slotMs).catch(() => undefined); // (Redis away: the next one)
    this.renewals.set(key, setInterval(renew, this.slotMs / 3).unref());
    return undefined;
  }

  async release(tenant: string, run: string): Promise<void> {
    const key = this.key(tenant, 'running');
    clearInterval(this.renewals.get(key));
    this.renewals.delete(key);
    // Compared and deleted in one step: a slot that expired meanwhile and went to another run stays its.
    await this.send(this.hub.client.eval(RELEASE, 1, key, run));
  }

  /** Stops renewing (the process closes: its runs' slots expire as a dead process's would). */
  close(): void {
    for (const timer of this.renewals.values()) clearInterval(timer);
    this.renewals.clear();
  }

  async put(tenant: string, run: StoredRun, kept: number): Promise<void> {
    const list = this.key(tenant, 'runs');
    const write = this.hub.client.multi();
    if (run.state === 'running') write.eval(RENEW, 1, this.key(tenant, 'running'), run.id, this.slotMs);
    const replies = await this.send(
      write
        .set(this.key(tenant, `run:${run.id}`), JSON.stringify(run))
        .lrem(list, 0, run.id)
        .lpush(list, run.id)
        .lrange(list, kept, -1)
        .ltrim(list, 0, kept - 1)
        .exec(),
    );
    const dropped = (replies?.at(-2)?.[1] as string[] | undefined) ?? [];
    if (dropped.length) await this.send(this.hub.client.del(...dropped.map((id) => this.key(tenant, `run:${id}`))));
  }

  async get(tenant: string, run: string): Promise<StoredRun | undefined> {
    return (await this.read(tenant, [run]))[0];
  }

  async list(tenant: string): Promise<StoredRun[]> {
    return this.read(tenant, await this.send(this.hub.client.lrange(this.key(tenant, 'runs'), 0, -1)));
  }

  /**
   * The runs, with the slot read in the same transaction: a run still `running` whose slot it no longer
   * holds lost its process (the owner writes the run's end before it gives the slot back).
   */
  private async read(tenant: string, ids: readonly string[]): Promise<StoredRun[]> {
    if (!ids.length) return [];
    const replies = await this.send(
      this.hub.client
        .multi()
        .mget(...ids.map((id) => this.key(tenant, `run:${id}`)))
        .get(this.key(tenant, 'running'))
        .exec(),
    );
    const texts = (replies?.[0]?.[1] ?? []) as (string | null)[];
    const holder = replies?.[1]?.[1] as string | null | undefined;
    return texts.flatMap((text) => {
      if (!text) return [];
      const run = JSON.parse(text) as StoredRun;
      if (run.state !== 'running' || holder === run.id) return [run];
      return [{ ...run, state: 'failed' as const, message: 'the process that ran it stopped before the run ended: start it again' }];
    });
  }
}
