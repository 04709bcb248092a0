import type { Counter, Registry } from 'prom-client';
import { lazyPackage } from '../kernel/lazy-package.js';
import { LatencyHistogram } from './latency-histogram.js';
import type { HostedTenant } from '../routes/tenant-directory.js';
import type { UpstreamErrorKind } from '../probe/upstream-errors.js';
import type { TenantRegistry } from './tenants.js';
import { eventTypes } from '../protocol/schemas.js';

const EVENTS: ReadonlySet<string> = new Set(eventTypes);

/*
 * GET /metrics (hosted mode, the host's token): Prometheus' text format through prom-client, the
 * client the Prometheus project lists for Node. What is counted as it happens (callbacks by
 * tenant, event and code; their latency) is fed by the tenant scope and the tenants' journals;
 * what a tenant already counts (its 429s) and the number of tenants are read when scraped. A
 * callback's own counting is a few plain steps (a count in a map, a bucket in an array): the
 * registry reads them when scraped, so no prom-client label hash is built per callback.
 */

/** Callbacks answered, by event and then code, of one tenant. */
type CallbackCounts = Map<string, Map<string, { n: number }>>;

/** Loaded when a host is made, not by every start that might make one. */
const promClient = lazyPackage<typeof import('prom-client')>('prom-client');

export class HostMetrics {
  readonly registry: Registry;
  private readonly latency: LatencyHistogram;
  private readonly probeRuns: Counter<'tenant' | 'outcome'>;
  private readonly upstreamErrors: Counter<'tenant' | 'kind'>;
  /** Each followed tenant's callback counts, removed with it (a deleted tenant leaves no series behind). */
  private readonly seen = new Map<string, CallbackCounts>();

  constructor(tenants: () => TenantRegistry) {
    const { Counter, Gauge, Registry } = promClient();
    this.registry = new Registry();
    const registers = [this.registry];
    const seen = this.seen;
    new Counter({
      name: 'wallet_sim_callbacks_total',
      help: 'Callbacks answered, by tenant, event and reply code (a callback refused before it was read: event and code empty).',
      labelNames: ['tenant', 'event', 'code'],
      registers,
      collect() {
        this.reset();
        for (const [tenant, byEvent] of seen)
          for (const [event, byCode] of byEvent) for (const [code, { n }] of byCode) this.inc({ tenant, event, code }, n);
      },
    });
    this.latency = new LatencyHistogram(
      'wallet_sim_callback_duration_seconds',
      "Time from a tenant's callback arriving to its reply written (a rule's delay_ms included).",
      [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    );
    this.probeRuns = new Counter({
      name: 'wallet_sim_probe_runs_total',
      help: 'Probe runs ended (POST /t/<id>/probe), by tenant and outcome: PASS, FAIL, NOT_CHECKED, or failed (the probe itself).',
      labelNames: ['tenant', 'outcome'],
      registers,
    });
    this.upstreamErrors = new Counter({
      name: 'wallet_sim_upstream_errors_total',
      help:
        'Probe runs that could not check their target, by tenant and kind: unreachable, no-reply, wrong-path, not-a-wallet ' +
        '(something answered, not a protocol reply), address-refused (resolved to a refused address at connect time).',
      labelNames: ['tenant', 'kind'],
      registers,
    });
    new Counter({
      name: 'wallet_sim_rate_limited_total',
      help: 'Requests answered 429, by tenant and kind (callback: past --tenant-callbacks-per-second; in_flight: past --tenant-callbacks-in-flight; admin: past --tenant-admin-per-minute).',
      labelNames: ['tenant', 'kind'],
      registers,
      collect() {
        this.reset();
        for (const t of tenants().all()) {
          if (t.callbackLimit.refused) this.inc({ tenant: t.id, kind: 'callback' }, t.callbackLimit.refused);
          if (t.adminLimit.refused) this.inc({ tenant: t.id, kind: 'admin' }, t.adminLimit.refused);
          if (t.inFlight.refused) this.inc({ tenant: t.id, kind: 'in_flight' }, t.inFlight.refused);
        }
      },
    });
    new Gauge({
      name: 'wallet_sim_tenants',
      help: 'Tenants this host holds.',
      registers,
      collect() {
        this.set(tenants().size);
      },
    });
  }

  /**
   * Follows a tenant's journal (its callbacks by event and code, answered by this process); the
   * returned function stops, forgetting its series.
   */
  watch = (tenant: HostedTenant): (() => void) => {
    // A count per event and code, found by the entry's own strings: no key made per callback.
    const byEvent: CallbackCounts = new Map();
    this.seen.set(tenant.id, byEvent);
    // The entries this process kept (with several processes on Redis, each counts its own callbacks).
    const { journal } = tenant.sim;
    const unsubscribe = (journal.tap ?? journal.subscribe).call(journal, (entry) => {
      // A label from the caller's body: only the protocol's events are its own values (any other
      // string, of any length, would make a series of its own for as long as the tenant lives).
      const event = entry.event_type === undefined ? '' : EVENTS.has(entry.event_type) ? entry.event_type : 'other';
      const code = entry.code ?? '';
      let byCode = byEvent.get(event);
      if (!byCode) byEvent.set(event, (byCode = new Map()));
      const count = byCode.get(code);
      if (count) count.n++;
      else byCode.set(code, { n: 1 });
    });
    return () => {
      unsubscribe();
      this.seen.delete(tenant.id);
    };
  };

  /** A tenant's probe run ended. */
  probeEnded = (tenant: string, outcome: string): void => {
    this.probeRuns.inc({ tenant, outcome });
  };

  /** A tenant's probe run could not check its target (src/probe/upstream-errors.ts). */
  upstreamError = (tenant: string, kind: UpstreamErrorKind): void => {
    this.upstreamErrors.inc({ tenant, kind });
  };

  /** A tenant's callback answered after `seconds`. */
  answered = (seconds: number): void => {
    this.latency.observe(seconds);
  };
}
