import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HostedTenant } from '../routes/tenant-directory.js';
import type { TenantRegistry } from './tenants.js';

/*
 * GET /metrics (hosted mode, the host's token): Prometheus' text format through prom-client, the
 * client the Prometheus project lists for Node. What is counted as it happens (callbacks by
 * tenant, event and code; their latency) is fed by the tenant scope and the tenants' journals;
 * what a tenant already counts (its 429s) and the number of tenants are read when scraped.
 */

export class HostMetrics {
  readonly registry = new Registry();
  private readonly callbacks: Counter<'tenant' | 'event' | 'code'>;
  private readonly latency: Histogram;
  private readonly probeRuns: Counter<'tenant' | 'outcome'>;
  /** The label sets each tenant used, removed with it (a deleted tenant leaves no series behind). */
  private readonly seen = new Map<string, Set<string>>();

  constructor(tenants: () => TenantRegistry) {
    const registers = [this.registry];
    this.callbacks = new Counter({
      name: 'wallet_sim_callbacks_total',
      help: 'Callbacks answered, by tenant, event and reply code (a callback refused before it was read: event and code empty).',
      labelNames: ['tenant', 'event', 'code'],
      registers,
    });
    this.latency = new Histogram({
      name: 'wallet_sim_callback_duration_seconds',
      help: "Time from a tenant's callback arriving to its reply written (a rule's delay_ms included).",
      buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.probeRuns = new Counter({
      name: 'wallet_sim_probe_runs_total',
      help: 'Probe runs ended (POST /t/<id>/probe), by tenant and outcome: PASS, FAIL, NOT_CHECKED, or failed (the probe itself).',
      labelNames: ['tenant', 'outcome'],
      registers,
    });
    new Counter({
      name: 'wallet_sim_rate_limited_total',
      help: 'Requests answered 429, by tenant and kind (callback: past --tenant-callbacks-per-second; admin: past --tenant-admin-per-minute).',
      labelNames: ['tenant', 'kind'],
      registers,
      collect() {
        this.reset();
        for (const t of tenants().all()) {
          if (t.callbackLimit.refused) this.inc({ tenant: t.id, kind: 'callback' }, t.callbackLimit.refused);
          if (t.adminLimit.refused) this.inc({ tenant: t.id, kind: 'admin' }, t.adminLimit.refused);
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
    const labels = new Set<string>();
    this.seen.set(tenant.id, labels);
    // The entries this process kept (with several processes on Redis, each counts its own callbacks).
    const { journal } = tenant.sim;
    const unsubscribe = (journal.tap ?? journal.subscribe).call(journal, (entry) => {
      const event = entry.event_type ?? '';
      const code = entry.code ?? '';
      labels.add(`${event}\u0000${code}`);
      this.callbacks.inc({ tenant: tenant.id, event, code });
    });
    return () => {
      unsubscribe();
      for (const pair of labels) {
        const [event, code] = pair.split('\u0000');
        this.callbacks.remove({ tenant: tenant.id, event: event!, code: code! });
      }
      this.seen.delete(tenant.id);
    };
  };

  /** A tenant's probe run ended. */
  probeEnded = (tenant: string, outcome: string): void => {
    this.probeRuns.inc({ tenant, outcome });
  };

  /** A tenant's callback answered after `seconds`. */
  answered = (seconds: number): void => {
    this.latency.observe(seconds);
  };
}
