import { HEADER } from '../protocol/seed/wire.js';
import { blockedPortText, portOf } from './blocked-ports.js';
/**
 * Sends one callback the way the protocol says (spec section 4): POST, JSON body, Content-Type,
 * Callback-URL, Api-Id and Api-Key. Keeps the raw text both ways, so a reply can be judged as
 * written (a balance like 0.30000000000000004 must not be rounded away by JSON.parse).
 */

export interface Credentials {
  apiId: string;
  apiKey: string;
}

export interface SendOptions extends Credentials {
  /** Sent as Callback-URL; default: the URL posted to. */
  callbackUrl?: string;
  /** Extra or replacing headers (lower-case names). */
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** The connection's agent (an undici Dispatcher: the hosted probe's checks the address connected to). */
  dispatcher?: unknown;
  /** 'manual': a redirect is the reply, not followed (the hosted probe). Default: followed, as fetch does. */
  redirect?: 'follow' | 'manual';
}

export interface Exchange {
  request: { method: 'POST'; url: string; headers: Record<string, string>; body: string };
  /** Absent when no reply came (refused, reset, timed out). */
  reply?: { status: number; headers: Record<string, string>; body: string };
  error?: string;
  durationMs: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

export async function postCallback(url: string, body: object | string, o: SendOptions): Promise<Exchange> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [HEADER.callbackUrl]: o.callbackUrl ?? url,
    [HEADER.apiId]: o.apiId,
    [HEADER.apiKey]: o.apiKey,
    ...o.headers,
  };
  const request = { method: 'POST' as const, url, headers, body: text };
  const started = performance.now();
  try {
    const init: RequestInit & { dispatcher?: unknown } = {
      method: 'POST',
      headers,
      body: text,
      signal: AbortSignal.timeout(o.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    };
    if (o.redirect) init.redirect = o.redirect;
    if (o.dispatcher) init.dispatcher = o.dispatcher;
    const res = await fetch(url, init);
    const replyBody = await res.text();
    const replyHeaders: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      replyHeaders[name] = value;
    });
    return {
      request,
      reply: { status: res.status, headers: replyHeaders, body: replyBody },
      durationMs: Math.round(performance.now() - started),
    };
  } catch (e) {
    return {
      request,
      error: describeFetchError(e, o.timeoutMs ?? DEFAULT_TIMEOUT_MS, url),
      durationMs: Math.round(performance.now() - started),
    };
  }
}

/** TLS alerts and record errors that mean the other end does not speak TLS at all (a plain-HTTP port). */
export const NOT_TLS = /WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST|UNKNOWN_PROTOCOL|RECORD_LAYER|wrong version number/i;

/**
 * "connect ECONNREFUSED 127.0.0.1:9" rather than fetch's bare "fetch failed"; a port fetch refuses
 * (undici's "bad port") named as such, with `url` the one called. The one describer of send, probe,
 * report, tail, reconcile, verify and tenant.
 */
export function describeFetchError(e: unknown, timeoutMs: number, url?: string | URL): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return `no reply within ${timeoutMs} ms`;
  if (isBadPort(err)) return blockedPortText(url === undefined ? undefined : portOf(url));
  // Never an OpenSSL string alone ("ssl3_get_record:wrong version number"): what it means.
  const https = url !== undefined && new URL(url).protocol === 'https:';
  if (https && NOT_TLS.test(`${err.cause?.code ?? ''} ${err.cause?.message ?? ''}`))
    return `TLS refused: ${new URL(url).host} does not speak TLS (a plain-HTTP server?): http or https? try http://`;
  // undici quotes the refused value, which may be a token: name the fault, never the value.
  if (/is an invalid header value/.test(err.message))
    return 'a header value holds a character HTTP does not carry (a line break or another control character): check the token and credentials given';
  return err.cause?.message ?? err.cause?.code ?? err.message;
}

/** undici refuses a blocked port before connecting: a network error whose cause says "bad port". */
export const isBadPort = (e: unknown) => (e as { cause?: { message?: string } } | null)?.cause?.message === 'bad port';
