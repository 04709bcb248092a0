import { hostedInProcess } from './hosted-in-process.js';

/**
 * Preloaded (`node --import`) into a single-tenant server by bench/paired.ts's `bh:<n>` target:
 * before the server starts, this process builds a hosted app beside it (never listening) and
 * creates BENCH_HOST_BESIDE tenants through it with Fastify's `inject`, and keeps them. The
 * single-tenant server then serves the bench's callbacks as (b) does, in a process that has done
 * what a hosted one did before its tenant's callbacks. Before the callback lane, (h) against (bh)
 * was the hosted layer's own cost; with the lane (bh) costs more than a real host, so it is a
 * diagnostic of that history only (docs/hosted-cost.md).
 */
const { hosted } = await hostedInProcess(Number(process.env.BENCH_HOST_BESIDE ?? 1000));
(globalThis as { benchHostBeside?: unknown }).benchHostBeside = hosted; // kept, as a hosted server keeps its tenants
