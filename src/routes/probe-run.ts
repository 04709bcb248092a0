import type { FastifyRequest } from 'fastify';
import type { Signer } from '../evidence/signing-key.js';
import type { Clock } from '../http/rate-limit.js';
import { maskedHeaders } from '../kernel/secrets.js';
import type { CheckResult, ProbeReport } from '../probe/types.js';
import type { UpstreamErrorKind } from '../probe/upstream-errors.js';
import type { VERDICTS } from './probe-docs.js';

export type RunState = 'running' | 'done' | 'failed';
export type Verdict = (typeof VERDICTS)[number];

export interface CheckLine {
  name: string;
  status: CheckResult['status'];
  duration_ms: number;
}

/** A probe run as every process can see it: what GET /t/:id/probe/:run shows, and its report once done. */
export interface StoredRun {
  id: string;
  state: RunState;
  started_at: string;
  ended_at?: string;
  target: { url: string; user: string; currency: string };
  checks: CheckLine[];
  verdict?: Verdict;
  /** Why nothing (more) could be checked, or why the run failed. */
  message?: string;
  report?: ProbeReport;
}

/**
 * Where a host's processes share their tenants' probe runs (hosted mode on Redis: docs/hosted.md).
 * The process that runs a probe keeps it in memory and copies it here as it goes; any other
 * process answers for it from here, so a load balancer needs no sticky sessions. One process (the
 * memory and file stores) needs none.
 */
export interface RunShelf {
  /** Takes the tenant's one running slot for `run`: undefined, or the run already holding it. */
  claim(tenant: string, run: string): Promise<string | undefined>;
  /** Gives the slot back (the run ended). */
  release(tenant: string, run: string): Promise<void>;
  /** Keeps a copy of the run (at its start, after each check, at its end); the last `kept` runs stay listed. */
  put(tenant: string, run: StoredRun, kept: number): Promise<void>;
  get(tenant: string, run: string): Promise<StoredRun | undefined>;
  /** The tenant's runs, newest first. */
  list(tenant: string): Promise<StoredRun[]>;
}

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
  /** Several processes on one store (hosted mode on Redis): where they share the runs. */
  shelf?: RunShelf;
}

/** A run this process is running or ran: its shown fields, and who follows it here. */
export interface Run extends StoredRun {
  listeners: Set<(event: string, data: object) => void>;
}

/** A run as GET shows it (no report, no listeners). */
export function view(r: StoredRun) {
  const { listeners: _l, report: _r, id, ...shown } = r as Run;
  return { run: id, ...shown };
}

/** The tenant's key in a report's exchanges, masked: the shelf keeps no secret, and an answer masks it anyway. */
export const maskedReport = (key: string, value: unknown) =>
  key === 'headers' && value !== null && typeof value === 'object' ? maskedHeaders(value as Record<string, string>) : value;

/** A run as the shelf keeps it: everything but who follows it here, the key in its report masked. */
export const stored = ({ listeners: _l, report, ...run }: Run): StoredRun =>
  report ? { ...run, report: JSON.parse(JSON.stringify(report, maskedReport)) as ProbeReport } : run;
