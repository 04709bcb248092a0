import { buildHostedApp } from '../src/app/hosted-app.js';
import { logger } from '../src/app/logger.js';
import { HostMetrics } from '../src/app/metrics.js';
import { MemoryBook, memoryStores } from '../src/app/hosted.js';
import { TenantRegistry } from '../src/app/tenants.js';
import { DEFAULT_RETAIN_TRANSACTIONS } from '../src/backends/backend.js';
import { DEFAULT_JOURNAL_BYTES, DEFAULT_JOURNAL_SIZE } from '../src/journal/journal.js';
import { BENCH_SCENARIO } from './traffic.js';

/**
 * Preloaded (`node --import`) into a single-tenant server by bench/paired.ts's `bh:<n>` target:
 * before the server starts, this process builds a hosted app beside it (never listening) and
 * creates BENCH_HOST_BESIDE tenants through it with Fastify's `inject`, and keeps them. The
 * single-tenant server then serves the bench's callbacks as (b) does, in a process that has done
 * what a hosted one did before its tenant's callbacks: so (h) against (bh) is the hosted layer's
 * own cost per callback, and (bh) against (b) what that history costs any server (docs/hosted.md).
 */
const count = Number(process.env.BENCH_HOST_BESIDE ?? 1000);
const HOST_TOKEN = 'h'.repeat(40);
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
const hosted = await buildHostedApp({ tenants, metrics, logger: logger({ logLevel: 'warn', logFormat: 'json' }) });
for (let i = 0; i < count; i++) {
  const res = await hosted.inject({
    method: 'POST',
    url: '/tenants',
    headers: { authorization: `Bearer ${HOST_TOKEN}` },
    payload: { name: 'bench', scenario: BENCH_SCENARIO },
  });
  if (res.statusCode !== 201) throw new Error(`POST /tenants answered ${res.statusCode}: ${res.body}`);
}
(globalThis as { benchHostBeside?: unknown }).benchHostBeside = hosted; // kept, as a hosted server keeps its tenants
