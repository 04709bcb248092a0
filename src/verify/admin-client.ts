import { describeFetchError, isBadPort } from '../client/http.js';
import { houseError, refusalOf } from '../client/refusals.js';
import { apiError } from '../http/errors.js';
import { CLI_NAMING } from '../text/option-naming.js';
import type { JournalEntry } from '../journal/journal.js';
import { type Money, money } from '../kernel/money.js';
import { topLevelNumberTexts } from '../kernel/raw-json.js';
import type { DsseEnvelope, Report, SignedReport } from '../protocol/types.generated.js';

/** A player as GET /admin/players/:id gives it, the balance read exactly from the reply text. */
export interface PlayerView {
  user_id: string;
  balance: Money;
  currency: string;
}

/** What verify reads from a running simulator. Tests may pass any object with these two methods. */
export interface JournalSource {
  journal(): Promise<JournalEntry[]>;
  /** undefined when the simulator does not know the player. */
  player(userId: string): Promise<PlayerView | undefined>;
  /** The certification report (GET /admin/report), for expectations on check statuses. */
  report?(userId?: string): Promise<Report>;
}

/** A 404 from the admin API where the URL tells nothing more. */
export const BASE_URL_WANTED = "--url wants the simulator's base URL (e.g. http://127.0.0.1:8080), not the callback path";

/**
 * What a 404 from the admin API almost always means, for the --url given: a callback URL (the base
 * is that URL without /callback), or at a bare origin, a server that is no wallet-sim (the wallet
 * behind a proxy, given instead of the proxy).
 */
export function baseUrlWanted(base: string): string {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    return BASE_URL_WANTED;
  }
  const path = u.pathname.replace(/\/+$/, '');
  if (path.endsWith('/callback'))
    return `--url wants the simulator's base URL, not its callback URL: --url ${u.origin}${path.slice(0, -9)}`;
  if (path === '')
    return `no wallet-sim admin API at ${u.origin} (another wallet, or the upstream of a proxy?): --url wants wallet-sim's base URL, e.g. http://127.0.0.1:8080`;
  return BASE_URL_WANTED;
}

/**
 * A 404 of the admin API: the server's own reason when it gives one (an unknown tenant, no signing
 * key, a hosted host's own routes), else the usual cause, a callback URL given as --url.
 */
function notFound(url: string, body: string): AdminError {
  const { error, message } = houseError(body);
  // The route's own wording asks for its query; this reader is the command line.
  if (error === 'SIGNING_NOT_ENABLED')
    return new AdminError(`GET ${url}: HTTP 404; ${apiError('SIGNING_NOT_ENABLED', CLI_NAMING, 'leave out --signed').body.message}`);
  return new AdminError(
    `GET ${url}: HTTP 404; ${error !== 'NOT_FOUND' && message !== undefined ? message : baseUrlWanted(url.replace(/\/admin\/.*$/, ''))}`,
  );
}

/** A reply's JSON, or undefined when it is not JSON (then not a wallet-sim's answer). */
function jsonOr<T>(body: string): T | undefined {
  try {
    return JSON.parse(body) as T;
  } catch {
    return undefined;
  }
}

/** Its message ends "is wallet-sim running there?" only when no server answered (refused, timed out). */
export class AdminError extends Error {
  override name = 'AdminError';
}

/** The admin API over HTTP (fetch), with the optional Bearer token of --admin-token. */
export class AdminClient implements JournalSource {
  readonly base: string;

  constructor(
    url: string,
    private readonly token?: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  /** `query`: the journal's filters and paging (user_id=…&limit=1), as GET /admin/journal takes them. */
  async journal(query?: URLSearchParams): Promise<JournalEntry[]> {
    const { status, body } = await this.get(`/admin/journal${query?.size ? `?${query}` : ''}`, [404]);
    // The usual cause: the callback URL given where the simulator's own address belongs.
    if (status === 404) throw notFound(`${this.base}/admin/journal`, body);
    const doc = jsonOr<{ entries?: JournalEntry[] }>(body);
    if (!Array.isArray(doc?.entries))
      throw new AdminError(`GET ${this.base}/admin/journal: no "entries" array in the reply; is ${this.base} a wallet-sim?`);
    return doc!.entries!;
  }

  async report(userId?: string): Promise<Report> {
    const { status, body } = await this.get(`/admin/report${userId === undefined ? '' : `?user_id=${encodeURIComponent(userId)}`}`, [404]);
    if (status === 404) throw notFound(`${this.base}/admin/report`, body);
    const doc = jsonOr<Report>(body);
    if (!Array.isArray(doc?.checks))
      throw new AdminError(`GET ${this.base}/admin/report: no "checks" array in the reply; is ${this.base} a wallet-sim?`);
    return doc!;
  }

  /** GET /admin/report?signed=true: the envelope, the report's exact text and the report read from it. */
  async signedReport(userId?: string): Promise<{ envelope: DsseEnvelope; text: string; report: Report }> {
    const query = `?signed=true${userId === undefined ? '' : `&user_id=${encodeURIComponent(userId)}`}`;
    const { status, body } = await this.get(`/admin/report${query}`, [404]);
    if (status === 404) throw notFound(`${this.base}/admin/report${query}`, body);
    const doc = JSON.parse(body) as Partial<SignedReport>;
    if (typeof doc.report !== 'string' || typeof doc.envelope !== 'object')
      throw new AdminError(`GET ${this.base}/admin/report${query}: no envelope and report in the reply; is ${this.base} a wallet-sim?`);
    return { envelope: doc.envelope, text: doc.report, report: JSON.parse(doc.report) as Report };
  }

  async player(userId: string): Promise<PlayerView | undefined> {
    const { status, body } = await this.get(`/admin/players/${encodeURIComponent(userId)}`, [404]);
    if (status === 404) return undefined;
    const doc = JSON.parse(body) as { user_id: string; currency: string };
    const text = topLevelNumberTexts(body).get('balance');
    if (text === undefined) throw new AdminError(`GET /admin/players/${userId}: no balance in the reply`);
    return { user_id: doc.user_id, currency: doc.currency, balance: money(text) };
  }

  /** The user_ids of every player the wallet holds (GET /admin/players), in its order. */
  async playerIds(): Promise<string[]> {
    const { status, body } = await this.get('/admin/players', [404]);
    if (status === 404) throw notFound(`${this.base}/admin/players`, body);
    const doc = JSON.parse(body) as { user_id?: unknown }[];
    if (!Array.isArray(doc)) throw new AdminError(`GET ${this.base}/admin/players: not an array of players; is ${this.base} a wallet-sim?`);
    return doc.flatMap((p) => (typeof p.user_id === 'string' ? [p.user_id] : []));
  }

  /** The ledger as CSV (exact amounts); `userId`: that player's rows only. */
  async ledgerCsv(userId?: string): Promise<{ csv: string; complete: boolean; completeFrom?: number }> {
    let got;
    try {
      got = await this.get(`/admin/ledger?format=csv${userId === undefined ? '' : `&user_id=${encodeURIComponent(userId)}`}`, [404]);
    } catch (e) {
      if (e instanceof AdminError && / cut off /.test(e.message))
        throw new AdminError(
          `${e.message.replace(/; run it again$/, '')}: was the wallet reset (POST /admin/reset) while its ledger was read? Run it again`,
        );
      throw e;
    }
    const { status, body, headers } = got;
    if (status === 404) throw notFound(`${this.base}/admin/ledger`, body);
    const from = headers.get('x-ledger-complete-from');
    return { csv: body, complete: headers.get('x-ledger-complete') !== 'false', completeFrom: from ? Date.parse(from) : undefined };
  }

  /** What an unexpected answer says: the server's own message, else that it may be no wallet-sim (never an HTML page dumped). */
  private unexpected(body: string): string {
    const { error, message } = houseError(body);
    if (message !== undefined) return error === undefined ? message : `${error}: ${message}`;
    return `not an answer of wallet-sim's admin API: is ${this.base} the simulator's base URL (e.g. http://127.0.0.1:8080)?`;
  }

  /**
   * The time-out covers waiting for the reply to begin (its headers) and each stall after that (no
   * byte for timeoutMs), never the whole body: a ledger of a million rows streams for longer than
   * any fixed bound, and is fine as long as it keeps coming.
   */
  private async get(path: string, allowed: number[] = []): Promise<{ status: number; body: string; headers: Headers }> {
    const url = `${this.base}${path}`;
    const ac = new AbortController();
    let stalled = false;
    let timer = setTimeout(() => ac.abort(new DOMException('no reply', 'TimeoutError')), this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, { headers: this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }, signal: ac.signal });
    } catch (e) {
      clearTimeout(timer);
      // A blocked port is not a wallet-sim down: the line says what to do instead.
      const running = isBadPort(e) ? '' : '; is wallet-sim running there?';
      throw new AdminError(`GET ${url}: ${describeFetchError(e, this.timeoutMs, url)}${running}`);
    }
    let body = '';
    let bytes = 0;
    try {
      const decoder = new TextDecoder();
      const stall = () => {
        clearTimeout(timer);
        timer = setTimeout(() => ((stalled = true), ac.abort(new DOMException('stalled', 'TimeoutError'))), this.timeoutMs);
      };
      stall();
      for await (const chunk of res.body ?? []) {
        stall();
        bytes += (chunk as Uint8Array).byteLength;
        body += decoder.decode(chunk as Uint8Array, { stream: true });
      }
      body += decoder.decode();
    } catch (e) {
      if (stalled)
        throw new AdminError(
          `GET ${url}: the reply stalled: no byte of it for ${this.timeoutMs} ms after ${bytes} byte(s); ` +
            'is the simulator overloaded or stopped? Run it again, or wait longer with --timeout <ms>',
        );
      // The connection ended before the reply did (a ledger read a reset overtook, a wallet-sim stopped).
      throw new AdminError(`GET ${url}: the reply was cut off before its end (${describeFetchError(e, this.timeoutMs)}); run it again`);
    } finally {
      clearTimeout(timer);
    }
    // (an empty token, WALLET_SIM_ADMIN_TOKEN="", is none given)
    const refused = refusalOf(res.status, body, !!this.token);
    if (refused) throw new AdminError(`GET ${url}: ${refused}`);
    if (res.status !== 200 && !allowed.includes(res.status))
      throw new AdminError(`GET ${url}: HTTP ${res.status}; ${this.unexpected(body)}`);
    return { status: res.status, body, headers: res.headers };
  }
}
