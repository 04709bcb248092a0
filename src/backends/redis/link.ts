import { type Cluster, type Redis, ReplyError } from 'ioredis';
import { isCluster } from './cluster.js';
import { redact } from './connection.js';
import { StoreUnavailable } from '../../ledger/store-error.js';

/** A cluster's masters (as its slot map names them) this process has no ready connection to: which one is down. */
function downMasters(client: Redis): string {
  if (!isCluster(client)) return '';
  const cluster = client as unknown as Cluster;
  const ready = new Set(
    cluster.nodes('master').flatMap((node) => (node.status === 'ready' ? [`${node.options.host}:${node.options.port}`] : [])),
  );
  const down = [...new Set(cluster.slots.map((owners) => owners[0]))].filter((key): key is string => key !== undefined && !ready.has(key));
  return down.length ? `; no connection to master ${down.sort().join(', ')}` : '';
}

/** ioredis's message when a command got no reply within `commandTimeout`. */
const TIMED_OUT = 'Command timed out';

/** A cluster that serves no slot answers every command with this. */
const CLUSTER_DOWN = 'CLUSTERDOWN';

/** ioredis's errors for a command that got no reply: connection down or closed, no reply in time, no cluster to route to. */
const UNAVAILABLE =
  /^(Command timed out|Stream isn't writeable|Connection is closed|Reached the max retries|Failed to refresh slots cache|None of startup nodes|Cluster isn't ready|Too many Cluster redirections)/;

/** How often a Redis that stopped answering is asked again (a PING) until it answers. */
const PROBE_EVERY_MS = 100;

/**
 * The state of one Redis connection as the wallet sees it, shared by the store, the journal and
 * the scenario/counters (they use one connection). Two ways Redis cannot serve:
 * - unreachable: the connection is down (ioredis reconnects by itself);
 * - frozen: the connection is up but a command got no reply within --redis-timeout-ms (a Redis
 *   stopped with SIGSTOP, a host under swap). Once one command timed out, callbacks are refused at
 *   once (R1) instead of each waiting for its own time-out, and a PING is sent every 100 ms; its
 *   reply clears the state. (Commands are answered in order, so that reply means every earlier
 *   command was answered too.)
 */
export class RedisLink {
  private lastError?: string;
  private frozenSince?: number;
  private probing = false;
  private closed = false;

  constructor(
    readonly client: Redis,
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    client.on('error', (e: Error) => {
      this.lastError = e.message;
    });
    // A new connection has no command left unanswered.
    client.on('ready', () => {
      this.frozenSince = undefined;
    });
  }

  /** Why nothing can be acknowledged now, or undefined. Clears by itself once Redis answers. */
  get failure(): string | undefined {
    if (this.client.status !== 'ready') return this.unreachable(this.lastError ?? this.client.status);
    if (this.frozenSince !== undefined) return this.frozen();
    return undefined;
  }

  /** A cluster's masters this process has no connection to (the others' players are served), or undefined. */
  get degraded(): string | undefined {
    const down = downMasters(this.client);
    return down
      ? `Redis at ${redact(this.url)}: ${down.slice(2)}: its players' callbacks get R1 until it is back, the others are served`
      : undefined;
  }

  unreachable(why: string): string {
    return `Redis at ${redact(this.url)} is unreachable (${why}${downMasters(this.client)}); wallet-sim reconnects by itself`;
  }

  private frozen(): string {
    return (
      `Redis at ${redact(this.url)} does not answer (no reply within --redis-timeout-ms ${this.timeoutMs} ms, ` +
      `for ${Math.round((Date.now() - this.frozenSince!) / 1000)} s: stopped or overloaded?); callbacks get R1 until it answers again`
    );
  }

  /**
   * Why `e`, the error of a command on this connection (whoever sent it: a callback, an admin read,
   * the journal's, the report's), means Redis cannot serve now: the reason, naming Redis and what
   * happens next. Undefined for anything else: an answer Redis gave (a ReplyError, but CLUSTERDOWN),
   * or an error that is not Redis's (a bug is not reported as Redis away).
   */
  unavailable(e: unknown): string | undefined {
    if (e instanceof StoreUnavailable) return e.message;
    if (!(e instanceof Error)) return undefined;
    if (e instanceof ReplyError) return e.message.startsWith(CLUSTER_DOWN) ? this.clusterDown(e.message) : undefined;
    return UNAVAILABLE.test(e.message) ? this.lost(e.message) : undefined;
  }

  /**
   * A Redis exchange: a connection lost under a command (ioredis rejects with "Stream isn't
   * writeable" or "Connection is closed") or a command without a reply in time is Redis being
   * unavailable, and the error says so. An error Redis itself answered (a ReplyError) is passed on,
   * but CLUSTERDOWN (the cluster serves no slot).
   */
  exchange<T>(sent: Promise<T>): Promise<T> {
    return sent.catch((e: unknown) => {
      if (e instanceof StoreUnavailable) throw e;
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof ReplyError && !message.startsWith(CLUSTER_DOWN)) throw e;
      throw new StoreUnavailable(e instanceof ReplyError ? this.clusterDown(message) : this.lost(message), { cause: e });
    });
  }

  /** The reason for a command that got no reply (`message`: ioredis's). */
  private lost(message: string): string {
    // (on a cluster one master's silence says nothing of the others': each command waits for its own time-out)
    if (message === TIMED_OUT && !isCluster(this.client)) this.freeze();
    return this.failure ?? this.unreachable(message);
  }

  private clusterDown(message: string): string {
    return (
      `Redis at ${redact(this.url)} answers "${message}" (the node of this player's slot serves it not now: its master lost or ` +
      'rejoining, which stops only its own slots under cluster-require-full-coverage no and every slot under yes, or slots ' +
      "not all assigned); this player's callbacks get R1 until its slot is served again"
    );
  }

  private freeze(): void {
    if (this.frozenSince === undefined) this.frozenSince = Date.now();
    this.probe();
  }

  /** PINGs until Redis answers one (each PING has the same time-out). */
  private probe(): void {
    if (this.probing || this.closed) return;
    this.probing = true;
    this.client.ping().then(
      () => {
        this.probing = false;
        this.frozenSince = undefined;
      },
      () => {
        this.probing = false;
        if (this.frozenSince !== undefined) setTimeout(() => this.probe(), PROBE_EVERY_MS).unref();
      },
    );
  }

  close(): void {
    this.closed = true;
  }
}
