import { StoreUnavailable } from '../ledger/store-error.js';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { compileScenario } from '../core/scenario/scenario.js';
import type { Tenant, TenantCreate } from '../protocol/types.generated.js';
import type { Clock } from '../http/rate-limit.js';
import { DEFAULT_CALLBACKS_IN_FLIGHT, LiveTenant, scenarioOf, verdictOf } from './live-tenant.js';
import { type TenantBook, TenantGone, type TenantRecord, type TenantStores } from './tenant-book.js';
import { type HostedTenant, type Issued, type TenantDirectory, TenantLimit, type TenantLimits } from '../routes/tenant-directory.js';

export type { SharedBook, TenantBook, TenantRecord, TenantStores } from './tenant-book.js';

/*
 * Hosted mode's tenants: each holds one simulator over its own store namespace (./hosted.ts opens
 * it), found by id or by the hash of its token. Tokens are never kept: only their SHA-256 (they are
 * 256 random bits, so a fast hash is enough), compared as digests.
 */

/** Per-tenant defaults: a tenant is one integrator's certification runs, not a production load (docs/hosted.md). */
export const TENANT_DEFAULTS = {
  journalSize: 2_000,
  journalBytes: 8 * 1024 * 1024,
  retainTransactions: 100_000,
  players: 10_000,
  callbacksPerSecond: 50,
  callbacksInFlight: DEFAULT_CALLBACKS_IN_FLIGHT,
  adminPerMinute: 600,
  listeners: 5,
} as const;

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const random = (bytes: number) => randomBytes(bytes).toString('base64url');
/** 128 random bits, URL-safe: a path nobody guesses. */
/** 128 random bits, URL-safe, drawn again when it would start with `-` (a command line would read it as an option). */
export function newTenantId(): string {
  for (;;) {
    const id = random(16);
    if (!id.startsWith('-')) return id;
  }
}
const newToken = () => `wst_${random(32)}`;

export class TenantRegistry implements TenantDirectory {
  private readonly tenants = new Map<string, LiveTenant>();
  /** Token digest (hex) → tenant. */
  private readonly byToken = new Map<string, LiveTenant>();
  /** Creations under way: they hold a slot of --max-tenants. */
  private creating = 0;
  /** Set by whoever follows the tenants (metrics): a tenant added is followed until it goes. */
  watch?: (tenant: HostedTenant) => () => void;
  private readonly unwatch = new Map<string, () => void>();
  /** A shared book: ids created here and not in the book yet (a sync does not take them for deleted). */
  private readonly pendingIds = new Set<string>();
  /** Per tenant id, what is under way (a refresh, a rotation, a removal): one at a time. */
  private readonly busy = new Map<string, Promise<unknown>>();
  private syncing?: Promise<void>;
  private queued?: Promise<void>;
  private closed = false;

  private constructor(
    private readonly hostDigest: Buffer,
    private readonly book: TenantBook,
    private readonly stores: TenantStores,
    readonly max: number,
    private readonly limits: TenantLimits,
    private readonly now: Clock,
    /** --tenant-players: a scenario listing more is refused. */
    private readonly maxPlayers?: number,
  ) {}

  /** The registry with every tenant the book holds, each simulator opened. */
  static async open(o: {
    hostToken: string;
    book: TenantBook;
    stores: TenantStores;
    /** --max-tenants. */
    max: number;
    limits: TenantLimits;
    /** --tenant-players (the stores hold each tenant to it; a scenario listing more is refused). */
    maxPlayers?: number;
    /** The rate limits' clock (tests give their own). */
    now?: Clock;
    /** Follows each tenant while it exists (metrics): called as it is added, its result as it goes. */
    watch?: (tenant: HostedTenant) => () => void;
  }): Promise<TenantRegistry> {
    const registry = new TenantRegistry(sha256(o.hostToken), o.book, o.stores, o.max, o.limits, o.now ?? Date.now, o.maxPlayers);
    registry.watch = o.watch;
    for (const record of await o.book.load()) await registry.add(record);
    o.book.others?.follow(() => void registry.sync().catch(() => undefined));
    return registry;
  }

  private async add(record: TenantRecord): Promise<LiveTenant> {
    const scenario = compileScenario(record.scenario, `tenant ${record.id}'s scenario`);
    const tenant = new LiveTenant(record, await this.stores.open(record, scenario), this.limits, this.now);
    this.tenants.set(record.id, tenant);
    this.byToken.set(record.token_sha256, tenant);
    if (this.watch) this.unwatch.set(record.id, this.watch(tenant));
    return tenant;
  }

  /** Every tenant, oldest first. */
  all(): HostedTenant[] {
    return [...this.tenants.values()];
  }

  get size(): number {
    return this.tenants.size;
  }

  get(id: string): HostedTenant | undefined {
    return this.tenants.get(id);
  }

  whose(token: string): 'host' | HostedTenant | undefined {
    const digest = sha256(token);
    if (timingSafeEqual(digest, this.hostDigest)) return 'host';
    return this.byToken.get(digest.toString('hex'));
  }

  /** The tenant with this id: one this process serves, or (a shared book) one another process created. */
  async find(id: string): Promise<HostedTenant | undefined> {
    return this.tenants.get(id) ?? (this.book.others ? this.serial(id, () => this.refresh(id)) : undefined);
  }

  /** Who holds `token`, asking a shared book when no tenant of this process does (a tenant created or rotated elsewhere). */
  async holder(token: string): Promise<'host' | HostedTenant | undefined> {
    const known = this.whose(token);
    if (known || !this.book.others) return known;
    const digest = sha256(token).toString('hex');
    const id = await this.book.others.idOfToken(digest);
    if (id === undefined) return undefined;
    const tenant = await this.serial(id, () => this.refresh(id));
    return tenant?.record.token_sha256 === digest ? tenant : undefined;
  }

  /** Runs `run` after whatever is under way for tenant `id` (one refresh, rotation or removal at a time). */
  private serial<T>(id: string, run: () => Promise<T>): Promise<T> {
    const mine = (this.busy.get(id) ?? Promise.resolve()).catch(() => undefined).then(run);
    this.busy.set(id, mine);
    const done = () => {
      if (this.busy.get(id) === mine) this.busy.delete(id);
    };
    mine.then(done, done);
    return mine;
  }

  /** This process's copy of tenant `id` brought in line with the shared book: added, its token changed, or dropped. */
  private async refresh(id: string): Promise<LiveTenant | undefined> {
    const record = await this.book.others!.find(id);
    const known = this.tenants.get(id);
    if (!record) {
      if (known && !this.pendingIds.has(id)) await this.forget(known);
      return this.pendingIds.has(id) ? known : undefined;
    }
    if (!known) return this.closed ? undefined : this.add(record);
    if (known.record.token_sha256 !== record.token_sha256) this.retoken(known, record);
    return known;
  }

  /**
   * Catches up with what other processes did to the tenants (a shared book; its `follow` calls
   * this): one sync at a time, and one more queued when asked meanwhile.
   */
  sync(): Promise<void> {
    if (!this.book.others || this.closed) return Promise.resolve();
    if (this.queued) return this.queued;
    if (!this.syncing) return (this.syncing = this.syncOnce().finally(() => (this.syncing = undefined)));
    return (this.queued = this.syncing
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.sync();
      }));
  }

  private async syncOnce(): Promise<void> {
    const index = await this.book.others!.index();
    for (const id of new Set([...index.keys(), ...this.tenants.keys()])) {
      const known = this.tenants.get(id);
      if (known?.record.token_sha256 === index.get(id) || this.closed) continue;
      await this.serial(id, () => this.refresh(id)).catch(() => undefined); // (a record that does not compile stays out)
    }
  }

  async create(request: TenantCreate): Promise<Issued> {
    if (this.tenants.size + this.creating >= this.max) throw new TenantLimit(this.max);
    this.creating++;
    let id: string | undefined;
    try {
      const scenario = scenarioOf(request.scenario, this.maxPlayers); // a ScenarioError or UnknownScenario: nothing created
      const token = newToken();
      const record: TenantRecord = {
        id: newTenantId(),
        name: request.name,
        created_at: new Date().toISOString(),
        token_sha256: sha256(token).toString('hex'),
        credentials: { api_id: `tenant-${random(6)}`, api_key: random(24) },
        scenario: scenario.source,
      };
      this.pendingIds.add((id = record.id));
      const tenant = await this.add(record);
      try {
        await this.book.put(record);
      } catch (e) {
        await this.forget(tenant);
        throw e;
      }
      return { tenant, token };
    } finally {
      this.creating--;
      if (id) this.pendingIds.delete(id);
    }
  }

  async list(): Promise<Tenant[]> {
    await this.sync().catch(() => undefined); // (Redis away: this process's tenants)
    const listed: Tenant[] = [];
    for (const t of this.tenants.values()) {
      listed.push({
        id: t.id,
        name: t.name,
        created_at: t.record.created_at,
        last_activity_at: t.lastActivity === undefined ? null : new Date(t.lastActivity).toISOString(),
        callbacks: t.callbacks,
        rate_limited: t.callbackLimit.refused + t.adminLimit.refused + t.inFlight.refused,
        // (Redis away: 503 STORE_UNREACHABLE with the reason, as every admin read answers, never a 500)
        verdict: await verdictOf(t.sim).catch((e: unknown) => {
          const why = t.sim.backend.unavailable?.(e);
          throw why === undefined ? e : new StoreUnavailable(why, { cause: e });
        }),
      });
    }
    return listed;
  }

  async remove(id: string): Promise<boolean> {
    if (!(await this.find(id))) return false;
    return this.serial(id, async () => {
      const removed = await this.book.remove(id);
      const tenant = this.tenants.get(id);
      if (tenant) await this.forget(tenant);
      // (false: another process deleted it meanwhile, and this one forgot it too: 404, as the deletion was not this one)
      return removed;
    });
  }

  private async forget(tenant: LiveTenant): Promise<void> {
    this.tenants.delete(tenant.id);
    this.byToken.delete(tenant.record.token_sha256);
    this.unwatch.get(tenant.id)?.();
    this.unwatch.delete(tenant.id);
    tenant.endStreams('this tenant was deleted by the host');
    await this.stores.drop(tenant.id, tenant.sim);
  }

  async rotate(id: string): Promise<Issued | undefined> {
    if (!(await this.find(id))) return undefined;
    return this.serial(id, async () => {
      const tenant = this.tenants.get(id);
      if (!tenant) return undefined;
      const token = newToken();
      const record = { ...tenant.record, token_sha256: sha256(token).toString('hex') };
      try {
        await this.book.put(record, true);
      } catch (e) {
        if (!(e instanceof TenantGone)) throw e;
        await this.forget(tenant); // deleted by another process meanwhile
        return undefined;
      }
      this.retoken(tenant, record);
      return { tenant, token };
    });
  }

  /** A new token digest for a tenant: the old token stops working, its streams end. */
  private retoken(tenant: LiveTenant, record: TenantRecord): void {
    this.byToken.delete(tenant.record.token_sha256);
    tenant.record = record;
    this.byToken.set(record.token_sha256, tenant);
    tenant.endStreams("this tenant's token was rotated: ask the host for the new one");
  }

  /** Every tenant's simulator closed (the host is stopping). */
  async close(): Promise<void> {
    this.closed = true;
    await this.syncing?.catch(() => undefined);
    await Promise.all([...this.busy.values()].map((p) => p.catch(() => undefined)));
    for (const t of this.tenants.values()) {
      t.endStreams('wallet-sim is shutting down');
      await t.sim.wallet.close();
      await t.sim.backend.close();
    }
  }
}
