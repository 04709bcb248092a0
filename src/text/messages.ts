import { closest } from './did-you-mean.js';
import { count, noun } from './plural.js';
import { CLI_NAMING, type OptionNaming } from './option-naming.js';

/** The bundled scenario a mistyped name meant, `.json` or not ("certifcation.json" → certification). */
const meant = (given: string, bundled: string[]) => closest(given.replace(/\.json$/, ''), bundled);

/** Every message the CLI prints to a user, in one table (Mockoon's precedent). */
export const MESSAGES = {
  LISTENING: (url: string, callback: string, scenario: string, store: string, seed?: number) =>
    `wallet-sim listening on ${url} (callback ${callback}, scenario "${scenario}", store ${store}${seed === undefined ? '' : `, seed ${seed}`}; dashboard ${url}/, Swagger UI ${url}/docs)`,
  HOSTED_LISTENING: (url: string, tenants: number, store: string) =>
    `wallet-sim hosted sandbox listening on ${url} (${count(tenants, noun('tenant'))}, store ${store}; create one: POST ${url}/tenants with the host token; a tenant's dashboard ${url}/t/<id>/ui; Swagger UI ${url}/docs)`,
  PORT_IN_USE: (host: string, port: number, fromEnv = false, name: OptionNaming = CLI_NAMING) =>
    fromEnv
      ? `wallet-sim: port ${port} on ${host} (from WALLET_SIM_PORT) is already in use; set WALLET_SIM_PORT to another port (0 = any free port), or unset it and pass --port`
      : `wallet-sim: port ${port} on ${host} is already in use; pick another with ${name.option('port')} (0 = any free port)`,
  /** listen() refused the address: EADDRNOTAVAIL (not this machine's), ENOTFOUND (no such name), EACCES (a port below 1024). */
  CANNOT_LISTEN: (code: string, host: string, port: number, name: OptionNaming = CLI_NAMING) => {
    const where = `wallet-sim: cannot listen on ${host} port ${port}`;
    const hostFix = `give ${name.option('host')} an address of this machine (127.0.0.1: this machine only; 0.0.0.0: every interface); nothing started`;
    if (code === 'EADDRNOTAVAIL') return `${where}: ${host} is not an address of this machine; ${hostFix}`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${where}: the host name ${host} does not resolve; ${hostFix}`;
    if (code === 'EACCES' && port > 0 && port < 1024)
      return `${where}: ports below 1024 need privileges this user lacks; pick one from 1024 up with ${name.option('port')} (0 = any free port); nothing started`;
    return `${where} (${code}); check ${name.option('host')} and ${name.option('port')}, or pick another port (0 = any free port); nothing started`;
  },
  SCENARIO_INVALID: (detail: string) => `wallet-sim: invalid scenario, nothing started:\n${detail}`,
  /** `outcome`: what came of it ("; nothing started" for start; nothing for validate, which goes on to the next file). */
  SCENARIO_UNKNOWN: (given: string, bundled: string[], outcome = '; nothing started') =>
    `wallet-sim: no scenario file ${given}, and no bundled scenario of that name${outcome}.\n` +
    (meant(given, bundled) === undefined ? '' : `Did you mean ${meant(given, bundled)}?\n`) +
    `Give a path to a scenario file, or one of the bundled scenarios: ${bundled.join(', ')}`,
  SCENARIO_OK: (file: string, name: string) => `${file}: ok (scenario "${name}")`,
  STOPPING: (signal: string, graceMs: number) =>
    `wallet-sim: ${signal} received, closing: event streams (GET /admin/events) end now; requests in flight are answered for up to ${graceMs} ms`,
  STOPPED_STARTING: (signal: string) => `wallet-sim: ${signal} received while starting (opening the store), nothing started`,
  GRACE_EXPIRED: (cut: number, graceMs: number) =>
    `wallet-sim: ${count(cut, { one: 'connection still unanswered', other: 'connections still unanswered' })} after --shutdown-grace-ms ${graceMs} ${cut === 1 ? 'was' : 'were'} cut (requests in flight: a callback delayed by delay_ms, or an admin read still being sent); raise --shutdown-grace-ms above your longest delay_ms to let them finish`,
  IDLE_BELOW_DELAY: (idleMs: number, delayMs: number) =>
    `wallet-sim: warning: --idle-timeout-ms ${idleMs} is not above the scenario's longest delay_ms ${delayMs}: such a reply is cut before it is sent; raise --idle-timeout-ms (or 0 for none)`,
  UPSTREAM_TIMEOUT_SHORT: (upstreamMs: number, clientS: number) =>
    `wallet-sim: warning: --upstream-timeout-ms ${upstreamMs} is shorter than the scenario's grading.client_timeout_s ${clientS}: ` +
    'an upstream reply later than that is cut though in time for the provider, and WALLET_ANSWERS_IN_TIME does not judge it; ' +
    `raise --upstream-timeout-ms to at least ${clientS * 1000}`,
  UPSTREAM_NO_PATH: (url: string) =>
    `wallet-sim: warning: --upstream ${url} has no path, where a wallet's callback route usually has one (e.g. ${new URL(url).origin}/callback): ` +
    "if the wallet answers 404 there, every callback fails WALLET_REPLY_VALID; give the wallet's callback URL",
  UPSTREAM_IS_SELF: (url: string, host: string, port: number, name: OptionNaming = CLI_NAMING) =>
    `wallet-sim: ${name.option('upstream')} ${url} is this wallet-sim itself (it listens on ${host} port ${port}): ` +
    "each callback would be forwarded to itself, again and again; give the operator wallet's callback URL, " +
    `or change ${name.option('port')}; nothing started`,
  UPSTREAM_UNREACHABLE: (url: string, why: string) =>
    `wallet-sim: warning: the upstream wallet ${url} was ${why}; starting anyway ` +
    '(callbacks are forwarded once it answers; GET /health shows upstream.reachable)',
  BLOCKED_PORT: (port: number) =>
    `wallet-sim: warning: port ${port} is one fetch refuses to call (the Fetch standard's blocked ports): browsers and ` +
    "fetch-based clients, wallet-sim's own send, probe and report included, will refuse to call it; pick another with --port",
  OPTION_INVALID: (detail: string) => `wallet-sim: ${detail}; nothing started`,
  PRIVATE_TARGETS:
    "wallet-sim: warning: --allow-private-targets: a tenant's probe may call this host's own networks (loopback, private, link-local " +
    'addresses); for a host on a private network only: on a public host, leave it out',
  SIGNING: (keyid: string, hosted = false) =>
    `wallet-sim: signing reports (GET ${hosted ? '/t/<id>/admin/report?signed=true, each naming its tenant' : '/admin/report?signed=true'}) ` +
    `with the Ed25519 key whose keyid is ${keyid}; verify them with its public key`,
  WORKERS_NEED_SHARED_STORE: (workers: number, store: string) =>
    `wallet-sim: --workers ${workers} needs a store the processes share: add --store redis --redis-url redis://HOST:6379 ` +
    `(the ${store} store ${store === 'file' ? 'allows one process per data file' : 'would give each worker a wallet of its own'}); nothing started`,
  WORKER_FAILED_TO_START: (pid: number, why: number | string | null) =>
    `wallet-sim: worker ${pid} exited (${why}) before listening; all workers stopped, nothing started`,
  WORKER_REPLACED: (pid: number, why: number | string | null) => `wallet-sim: worker ${pid} exited (${why}); starting another`,
} as const;
