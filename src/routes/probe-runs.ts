import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
export type { ProbeRunsOptions } from './probe-run.js';
import { apiError, sendApiError } from '../http/errors.js';
import { RateLimit } from '../http/rate-limit.js';
import { runProbe } from '../probe/battery.js';
import { inServiceWords } from '../probe/stops.js';
import { defaultScale } from '../probe/currency.js';
import { probeExitCode } from '../probe/report.js';
import { guardedAgent, targetRefusal } from '../probe/targets.js';
import { upstreamErrorOf } from '../probe/upstream-errors.js';
import { LIST_SCHEMA, START_SCHEMA, VERDICTS } from './probe-docs.js';
import {
  listedRuns,
  probeLine,
  type CheckLine,
  type ProbeRunsOptions,
  type Run,
  type RunState,
  type StoredRun,
  stored,
  view,
  walletLine,
} from './probe-run.js';
import { probeReadRoutes } from './probe-reads.js';

/** Probe as a service's defaults (docs/hosted.md): runs a tenant may start an hour, runs kept. */
export const PROBE_DEFAULTS = { runsPerHour: 20, kept: 20 } as const;

interface TenantRuns {
  runs: Map<string, Run>;
  quota: RateLimit;
  running?: Run;
}

/**
 * Probe as a service (docs/hosted.md): a tenant runs the probe's battery against its own wallet
 * from the host. One run at a time per tenant, a quota of runs an hour, the last runs kept (in this
 * process). Targets in the host's own networks are refused before anything is sent, and the address
 * each connection goes to is checked again (src/probe/targets.ts); redirects are never followed.
 */
export const probeRoutes: FastifyPluginAsync<ProbeRunsOptions> = async (app, o) => {
  const byTenant = new Map<string, TenantRuns>();
  const kept = o.kept ?? PROBE_DEFAULTS.kept;
  const { shelf } = o;
  const agent = o.allowPrivateTargets ? undefined : guardedAgent();
  app.addHook('onClose', async () => {
    await agent?.close();
  });
  const runsOf = (request: FastifyRequest): TenantRuns => {
    const { id } = o.tenantOf(request);
    let t = byTenant.get(id);
    if (!t)
      byTenant.set(id, (t = { runs: new Map(), quota: new RateLimit(o.runsPerHour ?? PROBE_DEFAULTS.runsPerHour, 3_600_000, o.now) }));
    return t;
  };
  /**
   * A copy for the other processes (Redis away: they see it later, or not; this process still serves
   * it). None once the tenant is deleted: its keys were swept, and a copy written after would stay.
   */
  const share = (tenant: string, run: Run) =>
    o.exists?.(tenant) === false ? undefined : shelf?.put(tenant, stored(run), kept).catch(() => undefined);

  app.post<{ Body: { url: string; api_id: string; api_key: string; user: string; currency?: string; decimals?: number } }>(
    '',
    {
      schema: START_SCHEMA,
    },
    async (request, reply) => {
      if (o.exists) for (const id of byTenant.keys()) if (!o.exists(id)) byTenant.delete(id);
      const tenantId = o.tenantOf(request).id;
      const tenant = runsOf(request);
      if (tenant.running) return sendApiError(reply, apiError('PROBE_RUNNING', tenant.running.id, tenantId));
      const b = request.body;
      if (!o.allowPrivateTargets) {
        const refused = await targetRefusal(b.url);
        if (refused) return sendApiError(reply, apiError('PROBE_TARGET_REFUSED', refused));
      } else if (!/^https?:\/\//i.test(b.url)) return sendApiError(reply, apiError('BAD_REQUEST', '/url is not an http: or https: URL'));
      // Another POST may have started a run while this one's name was being resolved.
      const started = tenant.running as Run | undefined;
      if (started) return sendApiError(reply, apiError('PROBE_RUNNING', started.id, tenantId));
      const id = randomBytes(12).toString('base64url');
      // One run at a time per tenant, whichever process was asked (STORE_UNREACHABLE when the shelf is away).
      let holder: string | undefined;
      try {
        holder = await shelf?.claim(tenantId, id);
      } catch (e) {
        return sendApiError(reply, apiError('STORE_UNREACHABLE', (e as Error).message));
      }
      if (holder) return sendApiError(reply, apiError('PROBE_RUNNING', holder, tenantId));
      const over = tenant.quota.take();
      if (over) {
        await shelf?.release(tenantId, id).catch(() => undefined);
        reply.headers(over.headers);
        return sendApiError(reply, apiError('RATE_LIMITED', 'probe runs', tenant.quota.limit, 'hour', over.retryAfterS));
      }
      const currency = b.currency ?? 'USD';
      const run: Run = {
        id,
        state: 'running',
        started_at: new Date().toISOString(),
        target: { url: b.url, user: b.user, currency },
        checks: [],
        listeners: new Set(),
      };
      tenant.running = run;
      tenant.runs.set(run.id, run);
      for (const [id, r] of tenant.runs) if (tenant.runs.size > kept && r.state !== 'running') tenant.runs.delete(id);
      void share(tenantId, run);
      const emit = (event: string, data: object) => {
        for (const listener of run.listeners) listener(event, data);
      };
      const target = {
        url: b.url,
        apiId: b.api_id,
        apiKey: b.api_key,
        user: b.user,
        currency,
        scale: b.decimals ?? defaultScale(currency),
        transport: { redirect: 'manual' as const, dispatcher: agent },
      };
      const check = (line: CheckLine) => {
        run.checks.push(line);
        emit('check', line);
      };
      void runProbe(target, (c) => {
        // (a stop's check says what the stop says: the run's fields, not the CLI's options)
        const line = probeLine(c);
        if (line.message) line.message = inServiceWords(line.message);
        check(line);
        void share(tenantId, run);
      }).then(
        (report) => {
          run.report = report;
          // The wallet checks count as much as the probe's own: listed, so the run says what its report says.
          for (const w of report.walletChecks) check(walletLine(w));
          run.verdict = VERDICTS[probeExitCode(report)];
          // (the line names the run's fields, not the CLI's options: the report shown and signed says the same)
          if (report.stopped) run.message = report.stopped.message = inServiceWords(report.stopped.message);
          // (and the check it stopped at, as the JUnit and HTML reports show it)
          for (const a of report.checks.flatMap((c) => c.assertions)) if (a.name === 'stopped') a.message = inServiceWords(a.message);
          const upstream = upstreamErrorOf(report);
          if (upstream) o.upstreamError?.(tenantId, upstream);
          end('done');
        },
        (e: unknown) => {
          run.message = `the probe itself failed: ${(e as Error).message}`;
          end('failed');
        },
      );
      // Everything a reader of the run sees change, at once: the state last of the run's fields.
      const end = (state: RunState) => {
        run.ended_at = new Date().toISOString();
        run.state = state;
        if (tenant.running === run) tenant.running = undefined;
        o.ended?.(tenantId, run.verdict ?? run.state);
        void share(tenantId, run)?.then(() => shelf?.release(tenantId, run.id).catch(() => undefined));
        emit('end', view(run));
      };
      return reply.code(202).send({ run: run.id });
    },
  );

  app.get(
    '',
    {
      schema: LIST_SCHEMA,
    },
    async (request) => {
      const here = runsOf(request).runs;
      if (!shelf) return [...here.values()].map(view);
      // Every process's runs, oldest first; this process's own as it has them (the freshest).
      return listedRuns<StoredRun>(await shelf.list(o.tenantOf(request).id), here, kept).map(view);
    },
  );

  await app.register(probeReadRoutes, {
    ...o,
    local: (request, run) => runsOf(request).runs.get(run),
  });
};
