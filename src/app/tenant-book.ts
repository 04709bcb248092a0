import type { Simulator } from '../core/simulator.js';
import type { ActiveScenario } from '../core/scenario/scenario.js';
import type { Scenario } from '../protocol/types.generated.js';
import type { Backend } from '../backends/backend.js';
import { openSimulator } from './compose.js';

/*
 * Where hosted mode keeps its tenants' records (the book) and their wallets (the stores): memory,
 * a file, Redis (./hosted.ts, ./hosted-redis.ts).
 */

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

/** Where the records live: memory, a file, Redis (./hosted.ts, ./hosted-redis.ts). */
export interface TenantBook {
  load(): Promise<TenantRecord[]>;
  /**
   * Durable before it resolves (a 201 is never lost). `replacing`: a rotation, of a record that
   * exists; a shared book throws TenantGone when another process deleted it meanwhile.
   */
  put(record: TenantRecord, replacing?: boolean): Promise<void>;
  /** False when there was no such record (a shared book: another process removed it meanwhile). */
  remove(id: string): Promise<boolean>;
  /** A book other processes write too (Redis): how this one learns what they did. */
  readonly others?: SharedBook;
}

/** The side of a shared book that other processes change. */
export interface SharedBook {
  find(id: string): Promise<TenantRecord | undefined>;
  /** The id of the tenant whose token has this digest (hex). */
  idOfToken(digest: string): Promise<string | undefined>;
  /** Every tenant's id → its token's digest. */
  index(): Promise<Map<string, string>>;
  /** Calls `changed` whenever the tenants may have changed elsewhere (word of a change, a reconnect, a periodic check). */
  follow(changed: () => void): void;
}

/** A rotation of a tenant another process deleted meanwhile. */
export class TenantGone extends Error {
  override name = 'TenantGone';
}

/** Opens a tenant's simulator over its own namespace of the store; `drop` deletes its data. */
export interface TenantStores {
  open(record: TenantRecord, scenario: ActiveScenario): Promise<Simulator>;
  /** Closes the simulator's store and deletes everything it held. */
  drop(id: string, sim: Simulator): Promise<void>;
}

/** A tenant's simulator over its own backend, with the tenant's credentials; the backend is closed when it cannot open. */
export async function tenantSimulator(record: TenantRecord, scenario: ActiveScenario, backend: Backend): Promise<Simulator> {
  try {
    return await openSimulator(scenario, backend, {
      apiId: record.credentials.api_id,
      apiKey: record.credentials.api_key,
      adminPath: `/t/${record.id}/admin`,
      credentialsAt: "the tenant's own, which POST /tenants answered when it was created (wallet-sim tenant create printed them)",
    });
  } catch (e) {
    await backend.close();
    throw e;
  }
}
