import type { FastifyInstance } from 'fastify';
import { buildHostedApp } from '../src/app/hosted-app.js';
import { logger } from '../src/app/logger.js';
import { HostMetrics } from '../src/app/metrics.js';
import { MemoryBook, memoryStores } from '../src/app/hosted.js';
import { TenantRegistry } from '../src/app/tenants.js';
import { DEFAULT_RETAIN_TRANSACTIONS } from '../src/backends/backend.js';
import { DEFAULT_JOURNAL_BYTES, DEFAULT_JOURNAL_SIZE } from '../src/journal/journal.js';
import { BENCH_SCENARIO, HEADERS } from './traffic.js';

/** A callback route: its URL and the headers its callbacks carry. */
export interface InjectRoute {
  url: string;
  headers: Record<string, string>;
}

const HOST_TOKEN = 'h'.repeat(40);
export const benchLogger = () => logger({ logLevel: 'warn', logFormat: 'json' });

/**
 * A hosted app in this process (not listening) on memory stores, holding `count` tenants created
 * through it with `inject` (each with the bench scenario; the single-tenant server's journal and
 * retention; no rate limit): what ./hosted-inject.ts measures, and what ./host-beside.ts keeps
 * beside a single-tenant server. `route`: the last tenant's callback route.
 */
export async function hostedInProcess(count: number): Promise<{ hosted: FastifyInstance; tenants: TenantRegistry; route: InjectRoute }> {
  let tenants: TenantRegistry | undefined;
  const metrics = new HostMetrics(() => tenants!);
  tenants = await TenantRegistry.open({
    watch: metrics.watch,
    hostToken: HOST_TOKEN,
    book: new MemoryBook(),
    stores: memoryStores({
      journalSize: DEFAULT_JOURNAL_SIZE,
      journalBytes: DEFAULT_JOURNAL_BYTES,
      retainTransactions: DEFAULT_RETAIN_TRANSACTIONS,
    }),
    max: count,
    limits: { callbacksPerSecond: 1e9, adminPerMinute: 1e9 },
  });
  const hosted = await buildHostedApp({ tenants, metrics, logger: benchLogger() });
  let route: InjectRoute = { url: '/callback', headers: HEADERS };
  for (let i = 0; i < count; i++) {
    const res = await hosted.inject({
      method: 'POST',
      url: '/tenants',
      headers: { authorization: `Bearer ${HOST_TOKEN}` },
      payload: { name: 'bench', scenario: BENCH_SCENARIO },
    });
    if (res.statusCode !== 201) throw new Error(`POST /tenants answered ${res.statusCode}: ${res.body}`);
    const t = res.json() as { id: string; credentials: { api_id: string; api_key: string } };
    route = { url: `/t/${t.id}/callback`, headers: { ...HEADERS, 'api-id': t.credentials.api_id, 'api-key': t.credentials.api_key } };
  }
  return { hosted, tenants, route };
}
