import type { FastifyRequest } from 'fastify';
import type { Signer } from '../evidence/signing-key.js';
import type { Clock } from '../http/rate-limit.js';
import { maskedHeaders } from '../kernel/secrets.js';
import { stoppedAt, walletFails } from '../probe/report.js';
import type { CheckResult, ProbeReport, ProbeWalletCheck } from '../probe/types.js';
import type { UpstreamErrorKind } from '../probe/upstream-errors.js';
import type { VERDICTS } from './probe-docs.js';
import type { ListenerSlots } from './listener-slots.js';

export type RunState = 'running' | 'done' | 'failed';
export type Verdict = (typeof VERDICTS)[number];

/**
 * One check of a run as the run lists it: the probe's own (as each finishes) and, at the end, the
 * wallet checks over every exchange, so the run counts what its report and signed report count.
 */
export interface CheckLine {
  name: string;
  /**
   * warn: a probe check passed with a warning, a wallet check failed as a warning, or one still
   * waiting for answers (the signed report's warned tests).
   */
  status: CheckResult['status'] | 'warn';
  /** probe: one of the probe's checks; wallet: a WALLET_* check, judged over the whole run. */
  side: 'probe' | 'wallet';
  /** The probe's checks only (a wallet check has no time of its own). */
  duration_ms?: number;
  /** What went wrong (failed, warned: one line each), why the probe stopped (its check), or why it was not judged (skipped). */
  message?: string;
  /** What to change in the wallet (failed, a wallet check warned; never where the probe stopped). */
  fix?: string;
}

/** Messages shown per check (the report has the rest). */
const SHOWN = 3;
/** One line each (a message may hold a semicolon of its own). */
const firstFew = (messages: string[]) =>
  [...messages.slice(0, SHOWN), ...(messages.length > SHOWN ? [`… and ${messages.length - SHOWN} more`] : [])].join('\n');
const seeing = (see: string | undefined, why: string | undefined) => (see ? `see ${see}: ${why ?? ''}` : why);

/**
 * A probe check as the run and its signed report count it: one that passed with a warning is
 * warned (the CLI's WARN, its verdict line's "1 warning"), not passed.
 */
export const countedStatus = (c: CheckResult): CheckLine['status'] => (c.status === 'pass' && c.warnings?.length ? 'warn' : c.status);

/** One of the probe's checks, as it finishes. */
export function probeLine(c: CheckResult): CheckLine {
  const line: CheckLine = { name: c.name, status: countedStatus(c), side: 'probe', duration_ms: c.durationMs };
  if (c.status === 'fail') {
    line.message = firstFew(c.assertions.filter((a) => !a.passed).map((a) => a.message));
    // (a stop's line says what to correct in the form: the check's fix is for a wallet that answered)
    if (c.fix && !stoppedAt(c)) line.fix = c.fix;
  } else if (c.status === 'skip') line.message = seeing(c.see, c.skipped);
  else if (c.warnings?.length) line.message = firstFew(c.warnings);
  return line;
}

/** One wallet check, once the run is over; counted as the signed report counts it (not exercised: skipped). */
export function walletLine(c: ProbeWalletCheck): CheckLine {
  const status = walletFails(c) ? 'fail' : c.status === 'fail' || c.status === 'pending' ? 'warn' : c.status === 'pass' ? 'pass' : 'skip';
  const line: CheckLine = { name: c.id, status, side: 'wallet' };
  if (status === 'skip') line.message = seeing(c.see, c.detail);
  else if (status !== 'pass') {
    line.message = c.violations.length ? firstFew(c.violations.map((v) => v.message)) : c.detail;
    line.fix = c.fix;
  }
  return line;
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
  /** Stops what the shelf does in the background (the host closes). */
  close?(): void;
}

/**
 * The tenant's runs as one list, oldest first, the last `kept` of them: the shelf's in its own order
 * (newest first, every process's: one run at a time per tenant, so that is the order they started
 * in) and this process's own, its copy winning (the freshest). A run of this process the shelf does
 * not hold (Redis was away, or it has dropped it since: other processes ran newer ones) goes where
 * its start time puts it among the shelf's; the list is then cut to `kept`, as one process's would
 * be, never cutting a run still running.
 */
export function listedRuns<R extends { id: string; started_at: string; state: string }>(
  shelved: readonly R[],
  here: ReadonlyMap<string, R>,
  kept: number,
): R[] {
  const listed = [...shelved].reverse().map((run) => here.get(run.id) ?? run);
  const onShelf = new Set(listed.map((r) => r.id));
  for (const run of here.values()) {
    if (onShelf.has(run.id)) continue;
    const after = listed.findIndex((r) => r.started_at > run.started_at);
    listed.splice(after < 0 ? listed.length : after, 0, run);
  }
  let cut = listed.length - kept;
  return listed.filter((r) => !(cut > 0 && r.state !== 'running' && cut-- > 0));
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
  /** The budget of every stream the server holds (--max-listeners), shared with the admin event streams. */
  listenerSlots?: ListenerSlots;
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
