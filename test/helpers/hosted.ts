import type { FastifyInstance } from 'fastify';
import { buildHostedApp, type HostedAppOptions } from '../../src/app/hosted-app.js';
import { MemoryBook, memoryStores } from '../../src/app/hosted.js';
import { TenantRegistry } from '../../src/app/tenants.js';
import { HostMetrics } from '../../src/app/metrics.js';
import type { BackendOptions } from '../../src/backends/backend.js';
import type { Clock } from '../../src/http/rate-limit.js';
import type { TenantLimits } from '../../src/routes/tenant-directory.js';
import { now, txid } from './app.js';

export const HOST_TOKEN = 'host-token-for-tests-0123456789abcdef';
export const asHost = { authorization: `Bearer ${HOST_TOKEN}` };

/** A small scenario of the tests' own: auto-created USD players, none listed. */
export const SMALL = {
  name: 'small',
  credentials: { api_id: 'ignored', api_key: 'ignored' },
  currencies: { USD: 2 },
  defaults: { currency: 'USD', balance: 100, auto_create_players: true },
  players: [] as object[],
  rules: [] as object[],
};

export interface HostedTestApp {
  app: FastifyInstance;
  tenants: TenantRegistry;
}

/** A hosted app on memory stores (not listening). */
export async function buildHostedTestApp(
  o: Partial<HostedAppOptions> & { maxTenants?: number; backend?: BackendOptions; tenantLimits?: Partial<TenantLimits>; now?: Clock } = {},
): Promise<HostedTestApp> {
  let tenants: TenantRegistry | undefined;
  const metrics = new HostMetrics(() => tenants!);
  tenants = await TenantRegistry.open({
    watch: metrics.watch,
    hostToken: HOST_TOKEN,
    book: new MemoryBook(),
    stores: memoryStores(o.backend),
    max: o.maxTenants ?? 1000,
    maxPlayers: o.backend?.maxPlayers,
    limits: { callbacksPerSecond: 1000, adminPerMinute: 10_000, ...o.tenantLimits },
    now: o.now,
  });
  const app = await buildHostedApp({ metrics, ...o, tenants });
  return { app, tenants };
}

/** What POST /tenants answers. */
export interface Created {
  id: string;
  name: string;
  token: string;
  callback_url: string;
  credentials: { api_id: string; api_key: string };
  dashboard_url: string;
}

export async function createTenant(app: FastifyInstance, body: object = { name: 'acme' }): Promise<Created> {
  const res = await app.inject({ method: 'POST', url: '/tenants', headers: asHost, payload: body });
  if (res.statusCode !== 201) throw new Error(`POST /tenants: HTTP ${res.statusCode} ${res.body}`);
  return res.json();
}

/** The callback headers of a tenant. */
export const callbackHeaders = (t: Created) => ({
  'content-type': 'application/json',
  'api-id': t.credentials.api_id,
  'api-key': t.credentials.api_key,
  'callback-url': 'http://provider.test/callback',
});

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export const loginOf = (user_id: string) => ({
  transaction_id: txid('login'),
  event_type: 'login',
  timestamp: now(),
  feedback_data: 'fb',
  user_id,
});
