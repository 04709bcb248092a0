import { CLI_NAMING, type OptionNaming } from '../text/option-naming.js';
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FileBackend } from '../backends/file/file-backend.js';
import { RecordFile } from '../backends/file/record-file.js';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildHostedApp } from './hosted-app.js';
import { HostMetrics } from './metrics.js';
import { type TenantBook, type TenantRecord, TenantRegistry, type TenantStores } from './tenants.js';

export { TENANT_DEFAULTS } from './tenants.js';
import { TENANT_DEFAULTS } from './tenants.js';
import { tenantSimulator } from './tenant-book.js';
import { MemoryBackend } from '../backends/memory/memory.js';
import type { Checked, ServeOptions } from './serve.js';
import { StartFailure } from './serve.js';
import { tokenProblem } from '../kernel/secrets.js';
import type { BackendOptions } from '../backends/backend.js';
import { CLUSTER_SCHEME } from '../backends/redis/defaults.js';
import type { RunShelf } from '../routes/probe-run.js';

/** `start --hosted`'s own options (start.ts defines each, its default and env var). */
export interface HostedOptions {
  hosted?: boolean;
  /** --host-token-file: the file holding the host token (read trimmed of its final newline). */
  hostTokenFile?: string;
  /** WALLET_SIM_HOST_TOKEN, or the Node API's hostToken. */
  hostToken?: string;
  /** --max-tenants (default 1,000). */
  maxTenants: number;
  /** --public-url: the base of the URLs handed to tenants. */
  publicUrl?: string;
  /** The per-tenant limits (--tenant-…). */
  tenantJournalSize: number;
  tenantJournalBytes: number;
  tenantRetainTransactions: number;
  /** --tenant-players (default 10,000). */
  tenantPlayers?: number;
  tenantCallbacksPerSecond: number;
  /** --tenant-callbacks-in-flight (default 100). */
  tenantCallbacksInFlight?: number;
  tenantAdminPerMinute: number;
  tenantListeners: number;
  /** --tenant-probe-runs: probe runs a tenant may start an hour. */
  tenantProbeRuns?: number;
  /** --allow-private-targets: the hosted probe may go to loopback, private and link-local addresses. */
  allowPrivateTargets?: boolean;
}

export const DEFAULT_MAX_TENANTS = 1000;
export const MIN_HOST_TOKEN_LENGTH = 32;

/**
 * The host token from --host-token-file or WALLET_SIM_HOST_TOKEN (the Node API: `hostToken` or
 * `hostTokenFile`, named so by `naming`); a StartFailure saying what to do when there is none.
 */
export function hostTokenOf(o: HostedOptions, naming: OptionNaming = CLI_NAMING): string {
  let token = o.hostToken;
  const fileOption = naming === CLI_NAMING ? '--host-token-file' : `${naming.option('hostTokenFile')}:`;
  if (o.hostTokenFile !== undefined) {
    try {
      token = readFileSync(o.hostTokenFile, 'utf8').replace(/\r?\n$/, '');
      const problem = tokenProblem(token);
      if (problem) throw new StartFailure(`wallet-sim: ${fileOption} ${o.hostTokenFile} ${problem} (its content is not shown)`);
    } catch (e) {
      if (e instanceof StartFailure) throw e;
      throw new StartFailure(
        `wallet-sim: ${fileOption} ${o.hostTokenFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: give a readable file holding the host token`,
      );
    }
  }
  if (token === undefined || token === '')
    throw new StartFailure(
      (naming === CLI_NAMING
        ? 'wallet-sim: --hosted needs a host token: --host-token-file <file> (env WALLET_SIM_HOST_TOKEN_FILE) or WALLET_SIM_HOST_TOKEN; '
        : `wallet-sim: startSimulator({ hosted: true }) needs a host token: ${naming.option('hostToken')} (at least ${MIN_HOST_TOKEN_LENGTH} characters) or ${naming.option('hostTokenFile')} (a file holding it); `) +
        'make one with: openssl rand -base64 32 > host-token && chmod 600 host-token',
    );
  if (token.length < MIN_HOST_TOKEN_LENGTH)
    throw new StartFailure(
      `wallet-sim: the host token has ${token.length} characters, fewer than ${MIN_HOST_TOKEN_LENGTH}: ` +
        'use a long random one, e.g. openssl rand -base64 32 > host-token',
    );
  return token;
}

/** Records kept in this process only (--store memory): tenants end with it. */
export class MemoryBook implements TenantBook {
  load(): Promise<TenantRecord[]> {
    return Promise.resolve([]);
  }
  put(): Promise<void> {
    return Promise.resolve();
  }
  remove(): Promise<boolean> {
    return Promise.resolve(true);
  }
}

/** Each tenant in its own memory backend. */
export function memoryStores(limits: BackendOptions = {}): TenantStores {
  return {
    open: (record, scenario) => tenantSimulator(record, scenario, new MemoryBackend(limits)),
    drop: async (_id, sim) => {
      await sim.backend.close();
    },
  };
}

/** `--store file --data <dir>`: the records in `<dir>/tenants.json`, written durably before a 201. */
export class FileBook implements TenantBook {
  private constructor(private readonly file: RecordFile<TenantRecord>) {}

  static async open(data: string): Promise<FileBook> {
    return new FileBook(await RecordFile.open<TenantRecord>(join(data, 'tenants.json')));
  }
  load(): Promise<TenantRecord[]> {
    return Promise.resolve(this.file.all());
  }
  put(record: TenantRecord): Promise<void> {
    return this.file.put(record);
  }
  async remove(id: string): Promise<boolean> {
    await this.file.remove(id);
    return true;
  }
  close(): Promise<void> {
    return this.file.close();
  }
}

/** Where a tenant's wallet lives under --data. */
export const tenantDir = (data: string, id: string) => join(data, 'tenants', id);

/** Each tenant's wallet in its own file store, `<dir>/tenants/<id>/wallet.json` (and its log, its lock). */
export function fileStores(data: string, limits: BackendOptions): TenantStores {
  return {
    open: async (record, scenario) => {
      const dir = tenantDir(data, record.id);
      await mkdir(dir, { recursive: true });
      return tenantSimulator(record, scenario, await FileBackend.open(join(dir, 'wallet.json'), limits));
    },
    drop: async (id, sim) => {
      await sim.backend.close();
      await rm(tenantDir(data, id), { recursive: true, force: true });
    },
  };
}

/** Where the tenants' records and wallets live: memory, files under --data, or Redis (loaded only then: ioredis). */
async function openBook(
  o: ServeOptions & HostedOptions,
  limits: BackendOptions,
): Promise<{ book: TenantBook & { close?(): Promise<void> }; stores: TenantStores; shelf?: RunShelf; failure?: () => string | undefined }> {
  if (o.store === 'file') return { book: await FileBook.open(o.data!), stores: fileStores(o.data!, limits) };
  if (o.store !== 'redis') return { book: new MemoryBook(), stores: memoryStores(limits) };
  const { openRedisTenants } = await import('./hosted-redis.js');
  const url = o.redisCluster ? `${CLUSTER_SCHEME}${o.redisCluster}` : o.redisUrl!;
  return openRedisTenants({ url, base: o.redisPrefix, timeoutMs: o.redisTimeoutMs, max: o.maxTenants, limits });
}

export interface OpenedHost {
  app: FastifyInstance;
  tenants: TenantRegistry;
  /** Closes every tenant's store (after the app closed). */
  close(): Promise<void>;
}

/** Opens the tenants (from the store when it keeps them) and the hosted app (not listening yet). */
export async function openHostedServer(
  o: ServeOptions & HostedOptions,
  checked: Checked,
  logger: FastifyServerOptions['logger'],
  naming: OptionNaming = CLI_NAMING,
): Promise<OpenedHost> {
  const hostToken = hostTokenOf(o, naming);
  if (o.store === 'file' && !o.data)
    throw new StartFailure('wallet-sim: --hosted --store file needs --data <dir>: the directory that holds the tenants and their wallets');
  const backend: BackendOptions = {
    journalSize: o.tenantJournalSize,
    journalBytes: o.tenantJournalBytes,
    retainTransactions: o.tenantRetainTransactions,
    maxPlayers: o.tenantPlayers ?? TENANT_DEFAULTS.players,
  };
  let book: TenantBook & { close?(): Promise<void> };
  let stores: TenantStores;
  let shelf: RunShelf | undefined;
  let failure: (() => string | undefined) | undefined;
  try {
    ({ book, stores, shelf, failure } = await openBook(o, backend));
  } catch (e) {
    const where = o.store === 'redis' ? 'in Redis' : `under --data ${o.data}`;
    throw new StartFailure(`wallet-sim: cannot open the tenants ${where}, nothing started:\n${(e as Error).message}`);
  }
  let tenants: TenantRegistry;
  const metrics = new HostMetrics(() => tenants);
  try {
    tenants = await TenantRegistry.open({
      watch: metrics.watch,
      hostToken,
      book,
      stores,
      max: o.maxTenants,
      maxPlayers: backend.maxPlayers,
      limits: {
        callbacksPerSecond: o.tenantCallbacksPerSecond,
        adminPerMinute: o.tenantAdminPerMinute,
        callbacksInFlight: o.tenantCallbacksInFlight,
      },
    });
  } catch (e) {
    await book.close?.();
    throw new StartFailure(`wallet-sim: cannot open the tenants' stores, nothing started:\n${(e as Error).message}`);
  }
  const app = await buildHostedApp({
    tenants,
    bodyLimit: o.bodyLimit,
    storeKind: o.store,
    storeFailure: failure,
    limits: o,
    host: o.host,
    allowedHosts: o.allowedHosts,
    cors: checked.cors,
    signer: checked.signer,
    logger,
    publicUrl: o.publicUrl,
    maxListenersEach: o.tenantListeners,
    allowPrivateTargets: o.allowPrivateTargets,
    probeRunsPerHour: o.tenantProbeRuns,
    probeShelf: shelf,
    metrics,
  });
  return {
    app,
    tenants,
    close: async () => {
      await tenants.close();
      shelf?.close?.();
      await book.close?.();
    },
  };
}
