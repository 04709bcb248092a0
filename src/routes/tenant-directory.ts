import type { Simulator } from '../core/simulator.js';
import type { InFlightLimit, RateLimit } from '../http/rate-limit.js';
import type { Tenant, TenantCreate } from '../protocol/types.generated.js';

/*
 * Hosted mode as its routes see it (defined here by its user; src/app/tenants.ts implements it):
 * tenants, each holding one simulator, found by id or by token. The routes decide who may do what
 * (src/routes/tenant-scope.ts, src/routes/tenants.ts); the directory only knows who holds a token.
 */

/** One tenant: its simulator and what the routes count for it. */
export interface HostedTenant {
  readonly id: string;
  readonly name: string;
  readonly sim: Simulator;
  readonly credentials: { api_id: string; api_key: string };
  /** Fires when its token is rotated or it is deleted: its open event streams end. */
  readonly streamsEnd: AbortSignal;
  /** A callback or an admin request served for it at `at` (default: now; GET /tenants shows the count and the time). */
  touched(callback: boolean, at?: number): void;
  /** Its callbacks per second and its admin requests per minute (the host's limits). */
  readonly callbackLimit: RateLimit;
  readonly adminLimit: RateLimit;
  /** Its callbacks being answered at once (delayed replies included). */
  readonly inFlight: InFlightLimit;
}

/** The per-tenant limits of a host (start options; docs/hosted.md lists the defaults). */
export interface TenantLimits {
  callbacksPerSecond: number;
  adminPerMinute: number;
  /** Callbacks being answered at once (default TENANT_DEFAULTS.callbacksInFlight). */
  callbacksInFlight?: number;
}

/** A new tenant, or a rotated token: the token in clear, this once. */
export interface Issued {
  tenant: HostedTenant;
  token: string;
}

export interface TenantDirectory {
  /** --max-tenants. */
  readonly max: number;
  /** A tenant this process serves (no store read). */
  get(id: string): HostedTenant | undefined;
  /** Who holds `token` among the host and the tenants this process serves (no store read). */
  whose(token: string): 'host' | HostedTenant | undefined;
  /** As `get`, asking the store when this process does not serve it yet (several processes on one Redis). */
  find(id: string): Promise<HostedTenant | undefined>;
  /** As `whose`, asking the store when no tenant of this process holds it (a tenant created or rotated by another process). */
  holder(token: string): Promise<'host' | HostedTenant | undefined>;
  /** Creates a tenant (a TenantLimit at --max-tenants; a ScenarioError for a bad scenario). */
  create(request: TenantCreate): Promise<Issued>;
  list(): Promise<Tenant[]>;
  /** Removes a tenant and all its data; false when there is none with that id. */
  remove(id: string): Promise<boolean>;
  /** A new token for a tenant (the old one stops working, its streams end); undefined when there is none with that id. */
  rotate(id: string): Promise<Issued | undefined>;
}

/** --max-tenants reached: POST /tenants answers 409 TENANT_LIMIT. */
export class TenantLimit extends Error {
  override name = 'TenantLimit';
  constructor(readonly max: number) {
    super(`${max} tenants already`);
  }
}

/** A scenario name that is no bundled scenario: POST /tenants answers 400 naming the bundled ones. */
export class UnknownScenario extends Error {
  override name = 'UnknownScenario';
}
