import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { apiError, sendApiError } from '../http/errors.js';
import { openEventStream } from './event-stream.js';
import { type Clock, RateLimit } from '../http/rate-limit.js';
import { maskedHeaders } from '../kernel/secrets.js';
import { runProbe } from '../probe/battery.js';
import { defaultScale } from '../probe/currency.js';
import { formatProbeHtml } from '../probe/format-html.js';
import { probeExitCode, probeJUnit } from '../probe/report.js';
import { guardedAgent, targetRefusal } from '../probe/targets.js';
import type { CheckResult, ProbeReport } from '../probe/types.js';
import { upstreamErrorOf, type UpstreamErrorKind } from '../probe/upstream-errors.js';
import { sentAsReturned } from './docs.js';
import type { Signer } from '../evidence/signing-key.js';
import { signProbeReport } from './probe-sign.js';
import { EVENTS_SCHEMA, LIST_SCHEMA, REPORT_SCHEMA, RUN_SCHEMA, START_SCHEMA, VERDICTS } from './probe-docs.js';

/** Probe as a service's defaults (docs/hosted.md): runs a tenant may start an hour, runs kept. */
export const PROBE_DEFAULTS = { runsPerHour: 20, kept: 20 } as const;

export interface ProbeRunsOptions {
  /** The tenant of the request (set by the scope's authorization, which runs first). */
  tenantOf: (request: FastifyRequest) => { id: string; name: string; streamsEnd?: AbortSignal };
  /** Whether a tenant still exists (a deleted one's runs are dropped). */
  exists?: (id: string) => boolean;
  /** A run ended (metrics): the tenant and the outcome (the verdict, or "failed"). */
  ended?: (tenant: string, outcome: string) => void;
  /** A run's target could not be reached, or did not answer as a wallet (metrics): the tenant and the kind. */
  upstreamError?: (tenant: string, kind: UpstreamErrorKind) => void;
  /** Run event streams one tenant may hold open at once (--tenant-listeners). */
  maxListenersEach?: number;
  /** --signing-key: ?signed=true signs a run's report. */
  signer?: Signer;
  /** --allow-private-targets: no address check (a host on a private network, tests). */
  allowPrivateTargets?: boolean;
  runsPerHour?: number;
  kept?: number;
  now?: Clock;
}

type State = 'running' | 'done' | 'failed';
type Verdict = (typeof VERDICTS)[number];

interface CheckLine {
  name: string;
  status: CheckResult['status'];
  duration_ms: number;
}

interface Run {
  id: string;
  state: State;
  started_at: string;
  ended_at?: string;
  target: { url: string; user: string; currency: string };
  checks: CheckLine[];
  verdict?: Verdict;
  /** Why nothing (more) could be checked, or why the run failed. */
  message?: string;
  report?: ProbeReport;
  listeners: Set<(event: string, data: object) => void>;
}

interface TenantRuns {
  runs: Map<string, Run>;
  quota: RateLimit;
  running?: Run;
}

function view(r: Run) {
  const { listeners: _l, report: _r, id, ...shown } = r;
  return { run: id, ...shown };
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
  const agent = o.allowPrivateTargets ? undefined : guardedAgent();
  app.addHook('onClose', async () => {
    await agent?.close();
  });
  /** Open event streams: their ends (at shutdown) and how many each tenant holds. */
  const streams = new Set<() => void>();
  const streamsOf = new Map<string, number>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  const runsOf = (request: FastifyRequest): TenantRuns => {
    const { id } = o.tenantOf(request);
    let t = byTenant.get(id);
    if (!t)
      byTenant.set(id, (t = { runs: new Map(), quota: new RateLimit(o.runsPerHour ?? PROBE_DEFAULTS.runsPerHour, 3_600_000, o.now) }));
    return t;
  };
  const runOf = (request: FastifyRequest) => runsOf(request).runs.get((request.params as { run: string }).run);

  app.post<{ Body: { url: string; api_id: string; api_key: string; user: string; currency?: string; decimals?: number } }>(
    '',
    {
      schema: START_SCHEMA,
    },
    async (request, reply) => {
      if (o.exists) for (const id of byTenant.keys()) if (!o.exists(id)) byTenant.delete(id);
      const tenantId = o.tenantOf(request).id;
      const tenant = runsOf(request);
      if (tenant.running) return sendApiError(reply, apiError('PROBE_RUNNING', tenant.running.id));
      const b = request.body;
      if (!o.allowPrivateTargets) {
        const refused = await targetRefusal(b.url);
        if (refused) return sendApiError(reply, apiError('PROBE_TARGET_REFUSED', refused));
      } else if (!/^https?:\/\//i.test(b.url)) return sendApiError(reply, apiError('BAD_REQUEST', '/url is not an http: or https: URL'));
      // Another POST may have started a run while this one's name was being resolved.
      const started = tenant.running as Run | undefined;
      if (started) return sendApiError(reply, apiError('PROBE_RUNNING', started.id));
      const over = tenant.quota.take();
      if (over) {
        reply.headers(over.headers);
        return sendApiError(reply, apiError('RATE_LIMITED', 'probe runs', tenant.quota.limit, 'hour', over.retryAfterS));
      }
      const currency = b.currency ?? 'USD';
      const run: Run = {
        id: randomBytes(12).toString('base64url'),
        state: 'running',
        started_at: new Date().toISOString(),
        target: { url: b.url, user: b.user, currency },
        checks: [],
        listeners: new Set(),
      };
      tenant.running = run;
      tenant.runs.set(run.id, run);
      for (const [id, r] of tenant.runs) if (tenant.runs.size > kept && r.state !== 'running') tenant.runs.delete(id);
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
      void runProbe(target, (c) => {
        const line = { name: c.name, status: c.status, duration_ms: c.durationMs };
        run.checks.push(line);
        emit('check', line);
      }).then(
        (report) => {
          run.report = report;
          run.verdict = VERDICTS[probeExitCode(report)];
          if (report.stopped) run.message = report.stopped.message;
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
      const end = (state: State) => {
        run.ended_at = new Date().toISOString();
        run.state = state;
        if (tenant.running === run) tenant.running = undefined;
        o.ended?.(tenantId, run.verdict ?? run.state);
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
    async (request) => [...runsOf(request).runs.values()].map(view),
  );

  app.get(
    '/:run',
    {
      schema: RUN_SCHEMA,
    },
    async (request, reply) => {
      const run = runOf(request);
      if (!run) return sendApiError(reply, apiError('PROBE_RUN_UNKNOWN', (request.params as { run: string }).run));
      return view(run);
    },
  );

  app.get(
    '/:run/events',
    {
      schema: EVENTS_SCHEMA,
    },
    async (request, reply) => {
      const run = runOf(request);
      if (!run) return sendApiError(reply, apiError('PROBE_RUN_UNKNOWN', (request.params as { run: string }).run));
      const holder = o.tenantOf(request);
      const mine = streamsOf.get(holder.id) ?? 0;
      const cap = o.maxListenersEach ?? Infinity;
      if (mine >= cap && run.state === 'running') {
        const { status, body } = apiError('LISTENERS_FULL', cap);
        return reply.code(status).header('connection', 'close').send(body);
      }
      const res = openEventStream(reply, 'wallet-sim probe run');
      const write = (event: string, data: object) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      for (const line of run.checks) write('check', line);
      if (run.state !== 'running') {
        write('end', view(run));
        return void res.end();
      }
      const listener = (event: string, data: object) => {
        write(event, data);
        if (event === 'end') finish();
      };
      let open = true;
      // Ended when the run ends, the listener goes, the token is rotated (as the admin streams) or the host shuts down.
      const finish = () => {
        if (!open) return;
        open = false;
        run.listeners.delete(listener);
        streams.delete(finish);
        holder.streamsEnd?.removeEventListener('abort', finish);
        streamsOf.set(holder.id, (streamsOf.get(holder.id) ?? 1) - 1);
        if (!res.writableEnded) res.end();
      };
      streamsOf.set(holder.id, mine + 1);
      run.listeners.add(listener);
      streams.add(finish);
      holder.streamsEnd?.addEventListener('abort', finish);
      res.on('close', finish);
    },
  );

  app.get<{ Querystring: { format?: 'json' | 'html' | 'junit'; signed?: 'true' | 'false' } }>(
    '/:run/report',
    {
      schema: REPORT_SCHEMA,
      ...sentAsReturned,
    },
    async (request, reply) => {
      const run = runOf(request);
      if (!run) return sendApiError(reply, apiError('PROBE_RUN_UNKNOWN', (request.params as { run: string }).run));
      const signed = request.query.signed === 'true';
      if (signed && !o.signer) return sendApiError(reply, apiError('SIGNING_NOT_ENABLED'));
      if (!run.report) {
        if (run.state === 'running') return sendApiError(reply, apiError('PROBE_NOT_FINISHED', run.id));
        return sendApiError(reply, apiError('PROBE_RUN_UNKNOWN', `${run.id}'s report (${run.message ?? 'the run failed'})`));
      }
      const format = request.query.format ?? 'json';
      if (signed && format !== 'json')
        return sendApiError(reply, apiError('BAD_REQUEST', 'signed=true signs the JSON report: leave format out'));
      if (format === 'html') return reply.type('text/html; charset=utf-8').send(formatProbeHtml(run.report));
      if (format === 'junit') return reply.type('application/xml; charset=utf-8').send(probeJUnit(run.report));
      // The key the tenant gave is its secret: masked in every exchange's headers, as the HTML masks it.
      const masked = (key: string, value: unknown) =>
        key === 'headers' && value !== null && typeof value === 'object' ? maskedHeaders(value as Record<string, string>) : value;
      if (signed) {
        const reportText = `${JSON.stringify(run.report, masked, 2)}\n`;
        return reply
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(signProbeReport(o.signer!, reportText, run.report, run, o.tenantOf(request))));
      }
      const text = JSON.stringify(run.report, masked);
      return reply.type('application/json; charset=utf-8').send(text);
    },
  );
};
