import type { IncomingHttpHeaders } from 'node:http';
import type { Pool } from 'undici';
import { lazyPackage } from '../kernel/lazy-package.js';

const undici = lazyPackage<typeof import('undici')>('undici');
import type { Change } from '../ledger/change.js';
import type { Player } from '../ledger/state.js';
import type { Store, View } from '../ledger/store.js';
import { eventOf } from '../protocol/seed/index.js';
import { isoTime } from '../text/iso-time.js';
import { type Money, money, toJsonNumber } from '../kernel/money.js';
import { type Code, SUCCESS } from '../protocol/seed/codes.js';
import { parseReply } from '../protocol/seed/reply-read.js';
import { hasErrors } from '../protocol/findings.js';
import type { CallbackRequest } from '../protocol/types.generated.js';
import { maskedHeaders } from '../kernel/secrets.js';
import type { WalletConfig } from './decide.js';
import { noReplyOf, tryConnect, UpstreamReach, type UpstreamHealth } from './upstream-reach.js';
import type { Outcome, Relayed, UpstreamLeg, UpstreamOptions, Wallet, WalletCall } from '../core/ports.js';

/** What the proxy reads of the simulator: the store where it keeps what the upstream reported. */
export interface UpstreamRecords {
  readonly store: Store;
  readonly config: WalletConfig;
}

export type { UpstreamOptions } from '../core/ports.js';

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;

/**
 * Hop-by-hop headers (RFC 9110 7.6.1) and those the client library writes itself: never forwarded
 * nor relayed. `expect` is refused by undici; the body's length is the body's.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);

/** The headers to pass on: all but the hop-by-hop ones, and any the Connection header names. */
export function endToEnd(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const connection = headers.connection;
  const named = new Set(
    (Array.isArray(connection) ? connection.join(',') : (connection ?? ''))
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The request's headers as they go upstream: end to end ones only, and no `Accept-Encoding`: the
 * reply is read as text (graded, journalled) and relayed, so it must come as it is, not compressed.
 */
function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out = endToEnd(headers);
  delete out['accept-encoding'];
  return out;
}

/** The most of an upstream's reply read: a larger one is no reply (a wallet's reply is a few hundred bytes). */
export const MAX_REPLY_BYTES = 1024 * 1024;

/** The reply's body, refused past `limit` bytes (the upstream is not trusted to be small). */
async function boundedBody(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new Error(`the upstream's reply is over ${limit} bytes (a wallet's reply is a small JSON object)`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The operator's wallet behind `--upstream`: each callback is forwarded with its method, body and
 * headers (hop-by-hop aside) over a kept-alive connection pool, and the reply is read whole.
 * wallet-sim keeps no money here: what the upstream's replies report goes to the store (the
 * players' last reported balances, a ledger row per applied bet or settlement), so the admin
 * routes and `reconcile` read it as usual. A forced `code` is answered locally, not forwarded.
 */
export class UpstreamWallet implements Wallet {
  readonly upstream: string;
  private readonly pool: Pool;
  private readonly path: string;
  private readonly url: URL;
  /** Whether the upstream was reached when last tried (/health). */
  private readonly reach: UpstreamReach;
  /** The pool's open connections: a time-out without one is a wallet not reached, not a slow one. */
  private connections = 0;
  /** Whether the upstream has answered over HTTP: a connection it closes since is its own doing, not a TLS port's. */
  private answered = false;

  constructor(
    private readonly records: UpstreamRecords,
    private readonly options: UpstreamOptions,
  ) {
    const url = (this.url = new URL(options.url));
    this.upstream = options.url;
    this.reach = new UpstreamReach(options.url);
    this.path = `${url.pathname}${url.search}`;
    // Time-outs are ours (an exact timer over the whole exchange), not undici's coarse ones.
    this.pool = new (undici().Pool)(url.origin, { headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 4_000 });
    this.pool.on('connect', () => this.connections++);
    this.pool.on('disconnect', () => (this.connections = Math.max(0, this.connections - 1)));
  }

  get upstreamHealth(): UpstreamHealth {
    return this.reach.health;
  }

  /** One connection to the upstream (the TLS handshake too for https): undefined when made, else why not. */
  async checkReach(boundMs?: number): Promise<string | undefined> {
    const why = await tryConnect(this.url, boundMs);
    if (why === undefined) this.reach.reached();
    else this.reach.failed({ cause: 'unreachable', why });
    return why;
  }

  apply(call: WalletCall): Promise<Outcome> {
    const forced = call.then?.code;
    if (forced) return this.answeredHere(call, forced);
    return this.forward(call);
  }

  /** A rule's forced code: answered by wallet-sim with the balance the upstream last reported. */
  private async answeredHere({ intake }: WalletCall, code: Code): Promise<Outcome> {
    const user = intake.echo.user_id;
    const player = user === undefined ? undefined : await this.records.store.player(user).catch(() => undefined);
    return { code, balance: player?.balance, upstream: { url: this.upstream, forwarded: false } };
  }

  private async forward({ input, intake }: WalletCall): Promise<Outcome> {
    const sentAt = Date.now();
    const started = performance.now();
    const leg: UpstreamLeg = { url: this.upstream, forwarded: true, sent_at: isoTime(sentAt) };
    let relayed: Relayed;
    try {
      const res = await this.pool.request({
        path: this.path,
        method: input.method as 'POST',
        headers: forwardedHeaders(input.headers),
        body: input.body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const bytes = await boundedBody(res.body, MAX_REPLY_BYTES);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(endToEnd(res.headers))) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      relayed = { kind: 'reply', status: res.statusCode, headers, text: bytes.toString('utf8'), bytes };
      this.answered = true;
    } catch (e) {
      const no = noReplyOf(e, this.url, this.options.timeoutMs, this.connections > 0, this.answered);
      relayed = { kind: 'none', why: no.why, cause: no.cause };
    }
    const repliedAt = Date.now();
    leg.replied_at = isoTime(repliedAt);
    leg.duration_ms = Math.round(performance.now() - started);
    if (relayed.kind === 'none') {
      leg.error = relayed.why;
      this.reach.failed({ cause: relayed.cause!, why: relayed.why }, repliedAt);
      return { relayed, upstream: leg };
    }
    this.reach.reached(repliedAt);
    leg.status = relayed.status;
    leg.headers = maskedHeaders(relayed.headers);
    const reported = parseReply(relayed.text);
    leg.body = reported.body;
    const outcome: Outcome = { code: reported.code, balance: reported.balance, relayed, upstream: leg };
    const request = intake.authenticated && !hasErrors(intake.findings) ? intake.request : undefined;
    if (!request || reported.balance === undefined || relayed.status !== 200) return outcome;
    // What the upstream reported, kept for GET /admin/players, the ledger and a forced code's balance.
    // A store that fails here does not change what the provider gets: the upstream has answered.
    try {
      await this.records.store.transact(keysOf(request), (view) => {
        // An R0 to a transaction already answered R0 (its ledger row is there): a replay, as the journal says of wallet-sim's own.
        outcome.replayed = reported.code === SUCCESS && view.transaction !== undefined;
        return { changes: reportedChanges(view, request, reported.code, reported.balance!, this.records.config, repliedAt) };
      });
    } catch {
      // (the store's own failure is on /health)
    }
    return outcome;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

const keysOf = (req: CallbackRequest) => ({ user_id: req.user_id, transaction_id: req.transaction_id, game_no: eventOf(req).gameNo(req) });

/**
 * What an upstream reply tells the store: the player's balance as last reported, and for an R0 to
 * a bet or a settlement not seen before, its ledger row (the amount from the callback, the balance
 * after from the reply) and the round's state.
 */
export function reportedChanges(
  view: View,
  req: CallbackRequest,
  code: Code | undefined,
  balance: Money,
  config: WalletConfig,
  at: number,
): Change[] {
  const event = eventOf(req);
  const data = (req as { data?: { currency?: unknown; total_bet_amount?: unknown; total_winloss?: unknown } }).data;
  const currency = typeof data?.currency === 'string' ? data.currency : (view.player?.currency ?? config.defaultCurrency);
  const player: Player = { user_id: req.user_id, balance, currency };
  const changes: Change[] = [{ op: 'player', user_id: player.user_id, balance: toJsonNumber(balance), currency }];
  if (code !== SUCCESS || view.transaction || !event.round) return changes;
  const gameNo = event.gameNo(req)!;
  const stake = typeof data?.total_bet_amount === 'number' ? money(data.total_bet_amount) : undefined;
  if (stake === undefined) return changes;
  const settles = event.round === 'settles';
  const amount = settles && typeof data?.total_winloss === 'number' ? stake.plus(money(data.total_winloss)) : stake;
  changes.push({
    op: 'txn',
    transaction_id: req.transaction_id,
    user_id: req.user_id,
    event_type: event.type,
    fingerprint: '',
    game_no: gameNo,
    currency,
    amount: toJsonNumber(amount.abs()),
    balance_after: toJsonNumber(balance),
    applied_at: at,
  });
  if (settles)
    changes.push({ op: 'round', user_id: req.user_id, game_no: gameNo, currency, stake: toJsonNumber(stake), bets: [], settled: true });
  return changes;
}
