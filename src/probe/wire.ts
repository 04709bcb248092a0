import { FAILED, isCode } from '../protocol/seed/codes.js';
import { EVENT, HEADER } from '../protocol/seed/wire.js';
import { type Credentials, DEFAULT_TIMEOUT_MS, type Exchange, postCallback } from '../client/http.js';
import { maskKey, type WalletAnswer, type WalletCheckId, type WalletExchange } from '../grading/wallet/exchange.js';
import { WalletGrader } from '../grading/wallet/wallet-grader.js';
import { ZERO } from '../kernel/money.js';
import type { LabeledExchange, ProbeTarget } from './types.js';

/**
 * The probe's side of the wire, as a certified provider sends: one transaction, resent with the same
 * body (so the same transaction_id) while it has no definite answer, after waiting out the time-out,
 * with growing waits; never resent after a definite answer (R0, R2, R3, R4). Every exchange goes to
 * one WalletGrader (the eight WALLET_* checks, as proxy mode runs them) and into the latency samples.
 */

export const DEFAULT_CLIENT_TIMEOUT_MS = 3000;
export const DEFAULT_ATTEMPTS = 3;
export const DEFAULT_BACKOFF_MS = 500;

export interface WireOptions {
  credentials?: Credentials;
  /** The probe's own verdict: the body passes the schemas and its totals add up (WALLET_REFUSES_INVALID reads it). */
  valid?: boolean;
  /** Resend while there is no definite answer (default: for bet and bet_result objects). */
  resend?: boolean;
}

/** What one attempt came back with, as the probe reads it for its own logic. */
export interface Read {
  code?: string;
  /** Why there is no code: no reply, not HTTP 200, not a JSON object. */
  unusable?: string;
}

export class Wire {
  readonly grader: WalletGrader;
  readonly exchanges: LabeledExchange[] = [];
  /** Reply times per event_type, in ms (replies only: a lost one has no time). */
  readonly samples = new Map<string, number[]>();

  constructor(readonly target: ProbeTarget) {
    this.grader = new WalletGrader({
      clientTimeoutMs: target.clientTimeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS,
      credentials: { api_id: target.apiId, api_key: target.apiKey },
      // The wallet rules the reference judges by: the player's currency and its digits, as probe was told them.
      closedWorld: true,
      config: { scale: () => target.scale, defaultCurrency: target.currency, defaultBalance: ZERO, autoCreatePlayers: true },
    });
  }

  /** A wallet check already fails, for every player or for `user` (so a later check can leave that root cause to it). */
  failing(id: WalletCheckId, user?: string): boolean {
    return this.grader.checks(user).some((c) => c.id === id && c.status === 'fail');
  }

  /** How many violations a wallet check has so far (a move that adds one is that check's root cause). */
  violations(id: WalletCheckId): number {
    return this.grader.checks().find((c) => c.id === id)?.violations.length ?? 0;
  }

  /** Sends the body, resending it (unchanged) until a definite answer or the last attempt. Returns every attempt. */
  async deliver(label: string, body: object | string, o: WireOptions = {}): Promise<LabeledExchange[]> {
    const event = typeof body === 'object' ? (body as { event_type?: string }).event_type : undefined;
    const resend = o.resend ?? (event === EVENT.bet || event === EVENT.betResult);
    const attempts = resend ? (this.target.attempts ?? DEFAULT_ATTEMPTS) : 1;
    const out: LabeledExchange[] = [];
    let wait = this.target.backoffMs ?? DEFAULT_BACKOFF_MS;
    for (let n = 1; n <= attempts; n++) {
      if (n > 1) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait *= 2;
      }
      const x = await this.once(n === 1 ? label : `${label} (resend ${n - 1}, same transaction_id)`, body, o);
      out.push(x);
      const read = readCode(x);
      // R1 is "failed processing": not definite for a settlement (resend until R0), definite for a bet.
      if (read.code !== undefined && !(read.code === FAILED && event === EVENT.betResult)) break;
    }
    return out;
  }

  /** One attempt: sent, answered (or not), graded. */
  private async once(label: string, body: object | string, o: WireOptions): Promise<LabeledExchange> {
    const t = this.target;
    const credentials = o.credentials ?? t;
    const id = this.exchanges.length + 1;
    const parsed = typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
    const wx: WalletExchange = {
      id,
      user: typeof parsed?.user_id === 'string' ? parsed.user_id : undefined,
      event: typeof parsed?.event_type === 'string' ? parsed.event_type : undefined,
      tx: typeof parsed?.transaction_id === 'string' ? parsed.transaction_id : undefined,
      body: parsed,
      valid: (o.valid ?? true) && parsed !== undefined,
      credentialsOk: credentials.apiId === t.apiId && credentials.apiKey === t.apiKey,
      sentHeaders: { apiId: credentials.apiId, callbackUrl: t.url },
      sentConfiguredKey: credentials.apiKey === t.apiKey,
      sentAt: Date.now(),
    };
    const placeholder = { label, id } as LabeledExchange;
    this.exchanges.push(placeholder);
    this.grader.sent(wx);
    const x: Exchange = await postCallback(t.url, body, {
      ...credentials,
      timeoutMs: t.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...t.transport,
    });
    const at = Date.now();
    const answer: WalletAnswer = x.reply
      ? { kind: 'reply', at, status: x.reply.status, ...maskKey(x.reply.headers, t.apiKey), text: x.reply.body }
      : noReply(x.error ?? 'no reply', at);
    this.grader.answered(wx, answer);
    if (x.reply && wx.event) {
      const list = this.samples.get(wx.event) ?? [];
      list.push(x.durationMs);
      this.samples.set(wx.event, list);
    }
    const replied = x.reply?.headers[HEADER.apiKey];
    const keys = { request: credentials.apiKey === t.apiKey, reply: replied === undefined ? undefined : replied === t.apiKey };
    return Object.assign(placeholder, x, { keys });
  }
}

/** The code of a reply, read leniently ("r0" is R0 here: the case is WALLET_REPLY_VALID's to fail, once). */
export function readCode(x: Exchange): Read {
  if (!x.reply) return { unusable: `no reply (${x.error ?? 'connection closed'})` };
  if (x.reply.status !== 200) return { unusable: `HTTP ${x.reply.status}` };
  let json: unknown;
  try {
    json = JSON.parse(x.reply.body);
  } catch {
    return { unusable: 'a reply that is not JSON' };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { unusable: 'a reply that is not a JSON object' };
  const code = (json as { code?: unknown }).code;
  if (typeof code !== 'string' || !isCode(code.toUpperCase())) return { unusable: `code ${JSON.stringify(code)}` };
  return { code: code.toUpperCase() };
}

/** Fetch's failure (described by src/client/http.ts) as the wallet checks read it: not reached, no reply in time, or broken. */
function noReply(error: string, at: number): WalletAnswer {
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_NONAME|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|getaddrinfo|UND_ERR_CONNECT_TIMEOUT/i.test(error))
    return { kind: 'none', at, why: `not reached: ${error}`, cause: 'unreachable' };
  return { kind: 'none', at, why: error, cause: /^no reply within/.test(error) ? 'timeout' : 'broken' };
}
