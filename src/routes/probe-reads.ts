import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { apiError, sendApiError } from '../http/errors.js';
import { formatProbeHtml } from '../probe/format-html.js';
import { probeJUnit } from '../probe/report.js';
import { sentAsReturned } from './docs.js';
import { openEventStream } from './event-stream.js';
import { signProbeReport } from './probe-sign.js';
import { EVENTS_SCHEMA, REPORT_SCHEMA, RUN_SCHEMA } from './probe-docs.js';
import { maskedReport, type ProbeRunsOptions, type Run, type StoredRun, view } from './probe-run.js';

/** How often a stream of a run another process runs looks at the shelf for new checks. */
export const SHELF_POLL_MS = 250;

export interface ProbeReadOptions extends ProbeRunsOptions {
  /** The run of that id this process runs or ran, if any. */
  local: (request: FastifyRequest, run: string) => Run | undefined;
}

/**
 * Reading a probe run: its state, its progress as server-sent events, its report. A run this
 * process runs is read from memory and followed as it goes; another process's (hosted mode on
 * Redis) from the shelf, its progress followed by looking there every SHELF_POLL_MS.
 */
export const probeReadRoutes: FastifyPluginAsync<ProbeReadOptions> = async (app, o) => {
  /** Open event streams: their ends (at shutdown) and how many each tenant holds. */
  const streams = new Set<(why?: string) => void>();
  const streamsOf = new Map<string, number>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end('wallet-sim is shutting down');
  });
  const idOf = (request: FastifyRequest) => (request.params as { run: string }).run;
  /** The run: this process's, else the shelf's (undefined: none; an Error: the shelf is away). */
  const find = async (request: FastifyRequest): Promise<{ local?: Run; run?: StoredRun }> => {
    const local = o.local(request, idOf(request));
    if (local || !o.shelf) return { local, run: local };
    return { run: await o.shelf.get(o.tenantOf(request).id, idOf(request)) };
  };
  const unknown = (request: FastifyRequest) => apiError('PROBE_RUN_UNKNOWN', idOf(request), o.tenantOf(request).id);

  app.get('/:run', { schema: RUN_SCHEMA }, async (request, reply) => {
    const { run } = await find(request);
    return run ? view(run) : sendApiError(reply, unknown(request));
  });

  app.get('/:run/events', { schema: EVENTS_SCHEMA }, async (request, reply) => {
    const { local, run } = await find(request);
    if (!run) return sendApiError(reply, unknown(request));
    const holder = o.tenantOf(request);
    const mine = streamsOf.get(holder.id) ?? 0;
    const cap = o.maxListenersEach ?? Infinity;
    const slots = o.listenerSlots;
    if ((mine >= cap || slots?.full) && run.state === 'running') {
      // Closed, not kept alive: a refused listener that stays connected would hold a slot all the same.
      const all = mine < cap;
      const { status, body } = all
        ? apiError('LISTENERS_FULL', slots!.max, 'the event streams of this server')
        : apiError('LISTENERS_FULL', cap, "this tenant's probe event streams", true);
      return reply.code(status).header('connection', 'close').send(body);
    }
    const res = openEventStream(reply, 'wallet-sim probe run');
    const write = (event: string, data: object) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    let sent = 0;
    const caughtUp = (latest: StoredRun) => {
      for (; sent < latest.checks.length; sent++) write('check', latest.checks[sent]!);
      if (latest.state === 'running') return false;
      write('end', view(latest));
      return true;
    };
    if (caughtUp(run)) return void res.end();
    const listener = (event: string, data: object) => {
      if (event === 'check') sent++;
      write(event, data);
      if (event === 'end') finish();
    };
    // Another process's run: its progress, as it reaches the shelf (a shelf away: the stream waits).
    const timer = local
      ? undefined
      : setInterval(() => {
          void o.shelf!.get(holder.id, run.id).then(
            (latest) => latest && caughtUp(latest) && finish(),
            () => undefined,
          );
        }, SHELF_POLL_MS);
    let open = true;
    const ended = holder.streamsEnd;
    // Ended when the run ends, the listener goes, the token is rotated (as the admin streams) or the
    // host shuts down: the last two say so in a last comment (the abort's reason, or `why`).
    const finish = (why?: unknown) => {
      if (!open) return;
      open = false;
      local?.listeners.delete(listener);
      clearInterval(timer);
      streams.delete(finish);
      ended?.removeEventListener('abort', finish);
      streamsOf.set(holder.id, (streamsOf.get(holder.id) ?? 1) - 1);
      slots?.give();
      if (res.writableEnded) return;
      const reason = why instanceof Event ? (why.target as AbortSignal).reason : why;
      res.end(typeof reason === 'string' ? `: ${reason}\n\n` : undefined);
    };
    streamsOf.set(holder.id, mine + 1);
    slots?.take();
    local?.listeners.add(listener);
    streams.add(finish);
    ended?.addEventListener('abort', finish);
    res.on('close', finish);
  });

  app.get<{ Querystring: { format?: 'json' | 'html' | 'junit'; signed?: 'true' | 'false' } }>(
    '/:run/report',
    { schema: REPORT_SCHEMA, ...sentAsReturned },
    async (request, reply) => {
      const { run } = await find(request);
      if (!run) return sendApiError(reply, unknown(request));
      const signed = request.query.signed === 'true';
      if (signed && !o.signer) return sendApiError(reply, apiError('SIGNING_NOT_ENABLED'));
      if (!run.report) {
        if (run.state === 'running') return sendApiError(reply, apiError('PROBE_NOT_FINISHED', run.id, o.tenantOf(request).id));
        return sendApiError(
          reply,
          apiError('PROBE_RUN_UNKNOWN', `${run.id}'s report (${run.message ?? 'the run failed'})`, o.tenantOf(request).id),
        );
      }
      const format = request.query.format ?? 'json';
      if (signed && format !== 'json')
        return sendApiError(reply, apiError('BAD_REQUEST', 'signed=true signs the JSON report: leave format out'));
      if (format === 'html') return reply.type('text/html; charset=utf-8').send(formatProbeHtml(run.report));
      if (format === 'junit') return reply.type('application/xml; charset=utf-8').send(probeJUnit(run.report));
      // The key the tenant gave is its secret: masked in every exchange's headers, as the HTML masks it.
      if (signed) {
        const reportText = `${JSON.stringify(run.report, maskedReport, 2)}\n`;
        return reply
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(signProbeReport(o.signer!, reportText, run.report, run, o.tenantOf(request))));
      }
      const text = JSON.stringify(run.report, maskedReport);
      return reply.type('application/json; charset=utf-8').send(text);
    },
  );
};
