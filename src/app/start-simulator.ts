import { CommanderError } from 'commander';
import { logger } from './logger.js';
import { startCommand, type StartOptions } from './start.js';
import type {
  JournalMatch,
  JournalPage,
  Player,
  PlayerUpdate,
  Report,
  SignedReport,
  Tenant,
  TenantCreate,
  TenantCreated,
} from '../protocol/types.generated.js';
import { type Checked, checkOptions, listen, openServer, StartFailure, upstreamWarning } from './serve.js';
import { upstreamIsSelf } from './upstream-self.js';
import { hostTokenOf, openHostedServer } from './hosted.js';
import { closeGracefully } from '../http/shutdown.js';
import { API_NAMING } from '../text/option-naming.js';
import { MESSAGES } from '../text/messages.js';
import { apiError } from '../http/errors.js';

/**
 * The `start` options in camelCase (`--retain-transactions` → `retainTransactions`), all optional.
 * Defaults as `wallet-sim start`'s, except `port` (0: any free port) and `logLevel` ('silent').
 * `--workers` and `--watch` are the CLI's alone. Environment variables are not read. Hosted mode's
 * own options come the same way, e.g. `{ hosted: true, hostToken, allowPrivateTargets: true,
 * tenantProbeRuns: 5 }` (a probe of a wallet on 127.0.0.1, five runs a tenant an hour).
 */
export type StartSimulatorOptions = Partial<Omit<StartOptions, 'workers' | 'watch'>>;

/**
 * GET /admin/journal's filters (the journal's one filter language) and its paging. `event_type` is any
 * text, as in the route's query: a refused callback keeps the event_type it sent (`logout`, a typo).
 */
export interface JournalFilter extends Omit<JournalMatch, 'event_type'> {
  event_type?: string;
  /** Only entries with an id greater than this. */
  after?: number;
  /** Without `after`: the newest n entries; with `after`: the first n after it. */
  limit?: number;
}

/** A simulator started by startSimulator: its URLs and its admin API, each method one admin route's JSON. */
export interface RunningSimulator {
  /** Base URL, e.g. http://127.0.0.1:40123 (the admin API, /docs, /ui live under it). */
  url: string;
  /** Where the client under test sends its callbacks, e.g. http://127.0.0.1:40123/callback. */
  callbackUrl: string;
  /** GET /admin/report: the session's grading (optionally for one player). */
  /**
   * GET /admin/report; with `wait` (seconds), first polls until no check is pending or the time is
   * up, as `wallet-sim report --wait` does (right after a run a lost reply's window may be open).
   */
  report(filter?: { user_id?: string; wait?: number }): Promise<Report>;
  /** GET /admin/report?signed=true: the report signed with `signingKey` (rejects without one). */
  signedReport(filter?: { user_id?: string }): Promise<SignedReport>;
  /** POST /admin/reset: back to the scenario's initial state, journal and rule counters cleared. */
  reset(): Promise<{ ok: true }>;
  /** GET /admin/players. */
  players(): Promise<Player[]>;
  /** PUT /admin/players/:user_id: sets (or creates) a player's balance and currency. */
  setPlayer(userId: string, player: PlayerUpdate): Promise<Player>;
  /** GET /admin/journal: the callbacks received, oldest first. */
  journal(filter?: JournalFilter): Promise<JournalPage>;
  /** Stops listening (answering requests in flight first) and closes the store. Safe to call twice. */
  close(): Promise<void>;
}

/** A hosted wallet-sim started by startSimulator({ hosted: true, hostToken }): the host's routes, each method one route's JSON. */
export interface RunningHost {
  /** Base URL, e.g. http://127.0.0.1:40123 (the tenants live under /t/<id>/). */
  url: string;
  /** POST /tenants: a tenant with its URLs, credentials and token (shown this once). */
  createTenant(tenant: TenantCreate): Promise<TenantCreated>;
  /** GET /tenants. */
  tenants(): Promise<Tenant[]>;
  /** DELETE /tenants/:id: the tenant and all its data. */
  deleteTenant(id: string): Promise<void>;
  /** POST /tenants/:id/token: a new token (the old one stops working). */
  rotateTenantToken(id: string): Promise<TenantCreated>;
  close(): Promise<void>;
}

/** A method called once close() was: what to do, not Fastify's "already been closed". */
const CLOSED = (what: string) => `wallet-sim: this ${what} is closed: start a new one (startSimulator)`;

const API_DEFAULTS: StartSimulatorOptions = { port: 0, logLevel: 'silent' };
const CLI_ONLY = new Set(['workers', 'watch']);

/**
 * Starts a simulator in this process, as `wallet-sim start` would, and resolves once it listens.
 * Rejects with a StartFailure (its message says what to fix) when an option or the scenario is
 * wrong, the store cannot be opened or the port is taken.
 */
export async function startSimulator(options: StartSimulatorOptions & { hosted: true }): Promise<RunningHost>;
export async function startSimulator(options?: StartSimulatorOptions): Promise<RunningSimulator>;
export async function startSimulator(options: StartSimulatorOptions = {}): Promise<RunningSimulator | RunningHost> {
  // signingKey may be a KeyObject or PEM text, which no command line carries: it is checked with the other options below.
  const { signingKey, ...given } = options;
  // An option given as undefined (`port: process.env.PORT && …`) is one not given: the API's default, not the CLI's.
  const rest = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const o = { ...parseOptions({ ...API_DEFAULTS, ...rest }), signingKey };
  const checked = checkOptions(o, API_NAMING);
  for (const line of checked.warnings ?? []) process.emitWarning(`wallet-sim: ${line}`, { code: 'WALLET_SIM_RULE_NEVER_FIRES' });
  if (o.hosted) return startHost(o, checked);
  if (o.upstream !== undefined && (await upstreamIsSelf(o.upstream, o.host, o.port)))
    throw new StartFailure(MESSAGES.UPSTREAM_IS_SELF(o.upstream, o.host, o.port, API_NAMING));
  const { app, backend, sim } = await openServer(o, checked, o.logLevel === 'silent' ? false : logger(o));
  // The wallet may come up later: a warning (process 'warning' event, printed on stderr by default), not a failure.
  const unreached = await upstreamWarning(sim);
  if (unreached)
    process.emitWarning(unreached.replace('wallet-sim: warning: ', 'wallet-sim: '), { code: 'WALLET_SIM_UPSTREAM_UNREACHABLE' });
  let url: string;
  try {
    url = await listen(app, { ...o, naming: API_NAMING });
  } catch (e) {
    await app.close();
    await backend.close();
    throw e;
  }

  const headers = o.adminToken ? { authorization: `Bearer ${o.adminToken}` } : {};
  let closing: Promise<void> | undefined;
  // In-process requests to the admin routes: exactly their JSON, their checks and their errors.
  const admin = async <T>(method: 'GET' | 'POST' | 'PUT', route: string, payload?: object): Promise<T> => {
    if (closing) throw new Error(CLOSED('simulator'));
    const reply = await app.inject({ method, url: `/admin${route}`, headers, ...(payload ? { payload } : {}) });
    const body = reply.json() as { message?: string };
    if (reply.statusCode >= 400) throw new Error(`wallet-sim: ${method} /admin${route} answered ${reply.statusCode}: ${body.message}`);
    return body as T;
  };
  const query = (filter: object = {}) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(filter)) if (value !== undefined) params.set(name, String(value));
    return params.size ? `?${params}` : '';
  };
  return {
    url,
    callbackUrl: `${url}${o.path}`,
    report: async ({ wait, ...filter } = {}) => {
      const until = Date.now() + (wait ?? 0) * 1000;
      for (;;) {
        const report = await admin<Report>('GET', `/report${query(filter)}`);
        // A user_id with no callback in the session (a typo) grades nothing: said, as report --user says it.
        if (filter.user_id !== undefined && report.checks.every((c) => c.status === 'not_exercised')) {
          const seen = await admin<{ count: number }>('GET', `/journal${query({ user_id: filter.user_id, limit: 1 })}`);
          // Its callbacks may have left a bounded journal (journalSize): a player the wallet holds is no typo.
          const held =
            !seen.count && (await app.inject({ method: 'GET', url: `/admin/players/${encodeURIComponent(filter.user_id)}`, headers }));
          if (held && held.statusCode === 404)
            throw new Error(
              `wallet-sim: report({ user_id: ${JSON.stringify(filter.user_id)} }): the session has no callback of that player, so there is nothing to grade; give the user_id of a player who played, or leave it out`,
            );
        }
        if (report.summary.pending === 0 || Date.now() >= until) return report;
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, until - Date.now())));
      }
    },
    // Without a key the route's 404 names --signing-key; this caller gave (or not) the signingKey option.
    signedReport: async (filter) => {
      if (!checked.signer) throw new Error(`wallet-sim: ${apiError('SIGNING_NOT_ENABLED', API_NAMING, 'call report()').body.message}`);
      return admin('GET', `/report${query({ ...filter, signed: true })}`);
    },
    reset: () => admin('POST', '/reset'),
    players: () => admin('GET', '/players'),
    setPlayer: (userId, player) => admin('PUT', `/players/${encodeURIComponent(userId)}`, player),
    journal: (filter) => admin('GET', `/journal${query(filter)}`),
    close: () =>
      (closing ??= (async () => {
        await closeGracefully(app, o.shutdownGraceMs);
        await backend.close();
      })()),
  };
}

/**
 * Reads the options through `start`'s own definitions (defaults, parsers, choices), so the API
 * takes exactly what the CLI takes, an option added there included, and refuses the same way.
 */
function parseOptions(given: StartSimulatorOptions): StartOptions {
  const command = startCommand();
  const byName = new Map(command.options.filter((opt) => !CLI_ONLY.has(opt.attributeName())).map((opt) => [opt.attributeName(), opt]));
  const argv: string[] = [];
  for (const [name, value] of Object.entries(given) as [string, unknown][]) {
    const option = byName.get(name);
    if (option === undefined)
      throw new StartFailure(
        `wallet-sim: startSimulator has no option "${name}"; it takes these (start's options in camelCase): ${[...byName.keys()].join(', ')}`,
      );
    if (value === undefined || value === false) continue;
    if (typeof value === 'object' && !Array.isArray(value))
      throw new StartFailure(
        `wallet-sim: startSimulator's ${name} takes ${name === 'scenario' ? 'a file path or a bundled scenario name' : 'a value as start takes it'}, ` +
          `not an object${name === 'scenario' ? ': write the document to a file (writeFileSync) and give its path' : ''}`,
      );
    argv.push(value === true ? option.long! : `${option.long}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  }
  // Tests should not change with the shell they run in: no WALLET_SIM_* here.
  for (const option of command.options) option.envVar = undefined;
  let parsed: StartOptions | undefined;
  command
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .action((opts: StartOptions) => {
      parsed = opts;
    });
  try {
    command.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) throw new StartFailure(`wallet-sim: startSimulator: ${apiWording(e.message)}`);
    throw e;
  }
  return parsed!;
}

/** Commander's "option '--retain-transactions <n>' argument '0' is invalid." as the API's caller wrote it. */
const apiWording = (message: string): string =>
  message
    .replace(/^error: /, '')
    .replace(/option '--([\w-]+)[^']*'/g, (_, flag: string) =>
      API_NAMING.option(flag.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase())),
    );

/** startSimulator({ hosted: true }): the host, its methods the host routes (in-process requests with the host token). */
async function startHost(o: StartOptions, checked: Checked): Promise<RunningHost> {
  const { app, close } = await openHostedServer(o, checked, o.logLevel === 'silent' ? false : logger(o), API_NAMING);
  let url: string;
  try {
    url = await listen(app, { ...o, naming: API_NAMING });
  } catch (e) {
    await app.close();
    await close();
    throw e;
  }
  const headers = { authorization: `Bearer ${hostTokenOf(o, API_NAMING)}` };
  let closing: Promise<void> | undefined;
  const host = async <T>(method: 'GET' | 'POST' | 'DELETE', route: string, payload?: object): Promise<T> => {
    if (closing) throw new Error(CLOSED('hosted wallet-sim'));
    const reply = await app.inject({ method, url: route, headers, ...(payload ? { payload } : {}) });
    const body = reply.body ? (reply.json() as { message?: string }) : undefined;
    if (reply.statusCode >= 400) throw new Error(`wallet-sim: ${method} ${route} answered ${reply.statusCode}: ${body?.message}`);
    return body as T;
  };
  // The URLs handed out name the listening address (an in-process request has no Host of its own).
  const located = (t: TenantCreated): TenantCreated => ({
    ...t,
    callback_url: `${url}/t/${t.id}/callback`,
    dashboard_url: `${url}/t/${t.id}/ui`,
  });
  return {
    url,
    createTenant: async (tenant) => located(await host<TenantCreated>('POST', '/tenants', tenant)),
    tenants: () => host('GET', '/tenants'),
    deleteTenant: (id) => host('DELETE', `/tenants/${encodeURIComponent(id)}`),
    rotateTenantToken: async (id) => located(await host<TenantCreated>('POST', `/tenants/${encodeURIComponent(id)}/token`)),
    close: () =>
      (closing ??= (async () => {
        await closeGracefully(app, o.shutdownGraceMs);
        await close();
      })()),
  };
}
