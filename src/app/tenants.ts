import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import type { Simulator } from '../core/simulator.js';
import { type ActiveScenario, compileScenario, loadScenarioFile } from '../core/scenario/scenario.js';
import { bundledScenarios, SCENARIOS_DIR } from '../kernel/paths.js';
import { checkHostable } from '../core/scenario/proxy-check.js';
import type { Scenario, Tenant, TenantCreate } from '../protocol/types.generated.js';
import { reportOf } from '../grading/grade.js';
import { testResults } from '../evidence/statement.js';
import { type Clock, InFlightLimit, RateLimit } from '../http/rate-limit.js';
import {
  type HostedTenant,
  type Issued,
  type TenantDirectory,
  TenantLimit,
  type TenantLimits,
  UnknownScenario,
} from '../routes/tenant-directory.js';

/*
 * Hosted mode's tenants: each holds one simulator over its own store namespace (./hosted.ts opens
 * it), found by id or by the hash of its token. Tokens are never kept: only their SHA-256 (they are
 * 256 random bits, so a fast hash is enough), compared as digests.
 */

/** The scenario a tenant gets when POST /tenants names none. */
export const DEFAULT_TENANT_SCENARIO = 'certification';

/** Per-tenant defaults: a tenant is one integrator's certification runs, not a production load (docs/hosted.md). */
export const TENANT_DEFAULTS = {
  journalSize: 2_000,
  journalBytes: 8 * 1024 * 1024,
  retainTransactions: 100_000,
  players: 10_000,
  callbacksPerSecond: 50,
  callbacksInFlight: 100,
  adminPerMinute: 600,
  listeners: 5,
} as const;

/** What the registry keeps of a tenant (and what a durable store writes): never its token. */
export interface TenantRecord {
  id: string;
  name: string;
  created_at: string;
  token_sha256: string;
  credentials: { api_id: string; api_key: string };
  /** The scenario it was created with. */
  scenario: Scenario;
}

/** Where the records live: memory, a file, Redis (./tenant-books.ts). */
export interface TenantBook {
  load(): Promise<TenantRecord[]>;
  /** Durable before it resolves (a 201 is never lost). */
  put(record: TenantRecord): Promise<void>;
  remove(id: string): Promise<void>;
}

/** Opens a tenant's simulator over its own namespace of the store; `drop` deletes its data. */
export interface TenantStores {
  open(record: TenantRecord, scenario: ActiveScenario): Promise<Simulator>;
  /** Closes the simulator's store and deletes everything it held. */
  drop(id: string, sim: Simulator): Promise<void>;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const random = (bytes: number) => randomBytes(bytes).toString('base64url');
/** 128 random bits, URL-safe: a path nobody guesses. */
export const newTenantId = () => random(16);
const newToken = () => `wst_${random(32)}`;

class LiveTenant implements HostedTenant {
  callbacks = 0;
  lastActivity: number | undefined;
  private ender = new AbortController();
  readonly callbackLimit: RateLimit;
  readonly adminLimit: RateLimit;
  readonly inFlight: InFlightLimit;

  constructor(
    public record: TenantRecord,
    readonly sim: Simulator,
    limits: TenantLimits,
    private readonly now: Clock,
  ) {
    this.callbackLimit = new RateLimit(limits.callbacksPerSecond, 1000, now);
    this.adminLimit = new RateLimit(limits.adminPerMinute, 60_000, now);
    this.inFlight = new InFlightLimit(limits.callbacksInFlight ?? TENANT_DEFAULTS.callbacksInFlight);
  }

  get id() {
    return this.record.id;
  }
  get name() {
    return this.record.name;
  }
  get credentials() {
    return this.record.credentials;
  }
  get streamsEnd(): AbortSignal {
    return this.ender.signal;
  }

  touched(callback: boolean): void {
    if (callback) this.callbacks++;
    this.lastActivity = this.now();
  }

  /** Its token changed or it is gone: the streams opened with the old one end. */
  endStreams(): void {
    this.ender.abort();
    this.ender = new AbortController();
  }
}

export class TenantRegistry implements TenantDirectory {
  private readonly tenants = new Map<string, LiveTenant>();
  /** Token digest (hex) → tenant. */
  private readonly byToken = new Map<string, LiveTenant>();
  /** Creations under way: they hold a slot of --max-tenants. */
  private creating = 0;
  /** Set by whoever follows the tenants (metrics): a tenant added is followed until it goes. */
  watch?: (tenant: HostedTenant) => () => void;
  private readonly unwatch = new Map<string, () => void>();

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

  async create(request: TenantCreate): Promise<Issued> {
    if (this.tenants.size + this.creating >= this.max) throw new TenantLimit(this.max);
    this.creating++;
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
    }
  }

  async list(): Promise<Tenant[]> {
    const listed: Tenant[] = [];
    for (const t of this.tenants.values()) {
      listed.push({
        id: t.id,
        name: t.name,
        created_at: t.record.created_at,
        last_activity_at: t.lastActivity === undefined ? null : new Date(t.lastActivity).toISOString(),
        callbacks: t.callbacks,
        rate_limited: t.callbackLimit.refused + t.adminLimit.refused + t.inFlight.refused,
        verdict: await verdictOf(t.sim),
      });
    }
    return listed;
  }

  async remove(id: string): Promise<boolean> {
    const tenant = this.tenants.get(id);
    if (!tenant) return false;
    await this.book.remove(id);
    await this.forget(tenant);
    return true;
  }

  private async forget(tenant: LiveTenant): Promise<void> {
    this.tenants.delete(tenant.id);
    this.byToken.delete(tenant.record.token_sha256);
    this.unwatch.get(tenant.id)?.();
    this.unwatch.delete(tenant.id);
    tenant.endStreams();
    await this.stores.drop(tenant.id, tenant.sim);
  }

  async rotate(id: string): Promise<Issued | undefined> {
    const tenant = this.tenants.get(id);
    if (!tenant) return undefined;
    const token = newToken();
    const record = { ...tenant.record, token_sha256: sha256(token).toString('hex') };
    await this.book.put(record);
    this.byToken.delete(tenant.record.token_sha256);
    tenant.record = record;
    this.byToken.set(record.token_sha256, tenant);
    tenant.endStreams();
    return { tenant, token };
  }

  /** Every tenant's simulator closed (the host is stopping). */
  async close(): Promise<void> {
    for (const t of this.tenants.values()) {
      t.endStreams();
      await t.sim.wallet.close();
      await t.sim.backend.close();
    }
  }
}

/** A bundled scenario's name (never a path: a tenant reads no file of the host) or a whole document. */
function scenarioOf(given: TenantCreate['scenario'], maxPlayers?: number): ActiveScenario {
  if (given === undefined || typeof given === 'string') {
    const name = given ?? DEFAULT_TENANT_SCENARIO;
    const names = bundledScenarios();
    if (!names.includes(name))
      throw new UnknownScenario(
        `/scenario "${name}" is no bundled scenario: name one of ${names.join(', ')}, or send a whole scenario document`,
      );
    return loadScenarioFile(join(SCENARIOS_DIR, `${name}.json`));
  }
  const scenario = compileScenario(given, 'scenario');
  checkHostable(scenario, 'scenario', maxPlayers);
  return scenario;
}

/** The current session's verdict as a signed statement would state it. */
async function verdictOf(sim: Simulator): Promise<Tenant['verdict']> {
  const { grader, info } = await sim.currentGrading();
  const report = reportOf(grader, { now: new Date(), scenario: sim.scenario.source.name, session: { ...info, seed: sim.seed } });
  if (report.checks.every((c) => c.status === 'not_exercised')) return 'NOT_EXERCISED';
  return testResults(report.checks).result;
}
