import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { lazyPackage } from '../kernel/lazy-package.js';

const undici = lazyPackage<typeof import('undici')>('undici');
import type { Health } from '../protocol/types.generated.js';
import type { NoReplyCause } from '../core/wallet-leg.js';
import { isoTime } from '../text/iso-time.js';
import { NOT_TLS } from '../client/http.js';

/** Why a forward got no reply, in words, and the kind of failure (which decides the fix). */
export interface NoReply {
  cause: NoReplyCause;
  why: string;
}

/** /health's `upstream`: the URL, and whether the wallet was reached when last tried. */
export type UpstreamHealth = NonNullable<Health['upstream']>;

/** The most the check at start waits for a connection (a name that resolves slowly included). */
export const REACH_CHECK_MS = 3_000;

/** Certificate errors: the wallet speaks TLS with a certificate Node does not trust. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const where = (url: URL) => `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;

/**
 * A failure to reach the wallet in words, with what to do, or undefined when `e` is not one (the
 * connection was made). Never an OpenSSL string alone: a TLS failure says what it means.
 */
export function unreachable(e: unknown, url: URL): string | undefined {
  const err = e as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  const message = `${err.message ?? ''} ${err.cause?.message ?? ''}`;
  const at = where(url);
  if (code === 'ECONNREFUSED') return `not reached: connection refused by ${at} (is the wallet up, and listening on that port?)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME')
    return `not reached: the host name ${url.hostname} does not resolve (${code}); check the --upstream URL's host`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EHOSTDOWN')
    return `not reached: no route to ${at} (${code}); is the wallet's host up, and reachable from this machine?`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' || e instanceof undici().errors.ConnectTimeoutError)
    return `not reached: no connection to ${at} in time (is the wallet up? a firewall dropping the connection?)`;
  if (url.protocol === 'https:' && NOT_TLS.test(`${code} ${message}`))
    return `not reached: ${at} does not speak TLS (a plain-HTTP server?): http or https? use http:// in --upstream`;
  if (UNTRUSTED.has(code))
    return `not reached: the wallet's TLS certificate is not trusted (${code}); fix its certificate, or give Node its CA with NODE_EXTRA_CA_CERTS=<file>`;
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || /ssl|tls/i.test(code))
    return `not reached: the TLS handshake with ${at} failed (${code}); http or https? check the --upstream URL's scheme`;
  return undefined;
}

/**
 * Why a forward got no reply: not reached, no reply in time, or a connection closed or garbled.
 * `answered`: the upstream has answered over HTTP at this URL before, so a closed connection is its
 * own doing, not a TLS port refusing plain HTTP.
 */
export function noReplyOf(e: unknown, url: URL, timeoutMs: number, connected: boolean, answered = false): NoReply {
  const err = e as Error & { code?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code ?? '';
  if (err.name === 'TimeoutError' || err.name === 'AbortError')
    return connected
      ? { cause: 'timeout', why: `no reply within ${timeoutMs} ms` }
      : { cause: 'unreachable', why: `not reached: no connection to ${where(url)} within ${timeoutMs} ms (is the wallet up? a firewall?)` };
  const far = unreachable(e, url);
  if (far) return { cause: 'unreachable', why: far };
  if (e instanceof undici().errors.HTTPParserError || /^HPE_/.test(code))
    return {
      cause: 'broken',
      why: `the upstream answered bytes that are not HTTP (${err.message}); is --upstream the wallet's HTTP address?`,
    };
  if (e instanceof undici().errors.SocketError || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') {
    const hint =
      url.protocol === 'http:' && !answered ? ' (a TLS port closes a plain-HTTP connection so: http or https? try https://)' : '';
    return { cause: 'broken', why: `the upstream closed the connection without a reply${hint}` };
  }
  return { cause: 'broken', why: `${code ? `${code}: ` : ''}${err.message}` };
}

/**
 * One connection to the wallet (TCP; the TLS handshake too for https), closed at once: undefined
 * when it was made, else why not. Bounded by `boundMs`, a name's resolution included.
 */
export function tryConnect(url: URL, boundMs = REACH_CHECK_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let socket: Socket;
    const done = (why: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(
      () => done(`not reached: no connection to ${where(url)} within ${boundMs} ms (is the wallet up? a firewall? a slow DNS?)`),
      boundMs,
    );
    socket =
      url.protocol === 'https:'
        ? tlsConnect({ host, port, servername: /^[\d.:]+$/.test(host) ? undefined : host, ALPNProtocols: ['http/1.1'] }, () =>
            done(undefined),
          )
        : tcpConnect({ host, port }, () => done(undefined));
    socket.on('error', (e) => done(unreachable(e, url) ?? `not reached: ${(e as Error).message}`));
  });
}

/** What /health says of the upstream: kept up to date by the check at start and by every forward. */
export class UpstreamReach {
  private state: UpstreamHealth;

  constructor(url: string) {
    this.state = { url, reachable: null, last_error: null, checked_at: null };
  }

  get health(): UpstreamHealth {
    return this.state;
  }

  /** A reply came (or a connection was made): reachable. */
  reached(at = Date.now()): void {
    this.state = { url: this.state.url, reachable: true, last_error: null, checked_at: isoTime(at) };
  }

  /** No reply: not reachable when it was not reached; reached but silent (or garbled) otherwise. */
  failed(no: NoReply, at = Date.now()): void {
    this.state = { url: this.state.url, reachable: no.cause !== 'unreachable', last_error: no.why, checked_at: isoTime(at) };
  }
}
