import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { apiError, type ApiErrorReply, sendApiErrorText } from '../http/errors.js';
import { depthProblem } from '../text/json-depth.js';
import { matches } from '../kernel/secrets.js';

export interface AdminGuardOptions {
  /** --admin-token: wants `Authorization: Bearer <token>` (scheme case-insensitive, RFC 7235). */
  token?: string;
  /** Host names answered besides localhost and IP addresses (--host, --allowed-hosts); `*` = any. */
  allowedHosts?: string[];
  /** Origins a page may call the admin API from (the explicit origins of --cors; never "any"). */
  corsOrigins?: string[];
  /** Hosted mode: who may call (a tenant's token or the host's: src/routes/tenant-scope.ts), in place of `token`. */
  authorize?: (request: FastifyRequest) => ApiErrorReply | undefined | Promise<ApiErrorReply | undefined>;
}

/**
 * Keeps the admin API out of reach of web pages the user happens to open (docs/limits.md):
 * - Host must be localhost, an IP address or an allowed name: DNS rebinding needs a name of the
 *   attacker's, so a page that rebinds its own name to 127.0.0.1 is refused.
 * - A request from another site's page (Origin, Sec-Fetch-Site) is refused, unless --cors names
 *   that origin. Following a link (a GET navigation) is allowed: the page cannot read the answer.
 * - A write with a body, or with any Content-Type, must be application/json: an HTML form cannot
 *   send that. A bodiless POST/DELETE (curl -X POST …/admin/reset) needs no Content-Type.
 * - With --admin-token, `Authorization: Bearer <token>`.
 * Added to the admin plugin's scope only: the callback route stays open to any caller.
 */
export function addAdminGuard(app: FastifyInstance, o: AdminGuardOptions): void {
  const hostAllowed = hostMatcher(o.allowedHosts);
  const origins = new Set((o.corsOrigins ?? []).map((s) => s.toLowerCase()));
  const expected = o.token;

  const { authorize } = o;
  app.addHook('onRequest', async (request, reply) => {
    const refusal = refuse(request) ?? (authorize && (await authorize(request))) ?? refuseWrite(request);
    if (refusal) return sendApiErrorText(reply, refusal);
  });
  // Before the schema: a body nested thousands deep would overflow every recursive walk after it.
  app.addHook('preValidation', async (request, reply) => {
    const tooDeep = depthProblem(request.body);
    if (!tooDeep) return;
    const { status, body } = apiError('BAD_REQUEST', `${tooDeep.pointer} ${tooDeep.message}`);
    return sendApiErrorText(reply, { status, body: { ...body, details: [tooDeep] } });
  });

  function refuse(request: FastifyRequest): ApiErrorReply | undefined {
    const host = request.headers.host;
    if (host !== undefined && !hostAllowed(host)) return apiError('HOST_NOT_ALLOWED', host);

    const origin = request.headers.origin;
    const listed = origin !== undefined && origins.has(origin.toLowerCase());
    if (!listed) {
      if (origin !== undefined && !sameOrigin(origin, host)) return apiError('CROSS_SITE_REFUSED', `Origin ${origin}`);
      const site = header(request, 'sec-fetch-site');
      const navigation = header(request, 'sec-fetch-mode') === 'navigate' && (request.method === 'GET' || request.method === 'HEAD');
      if ((site === 'cross-site' || site === 'same-site') && !navigation) return apiError('CROSS_SITE_REFUSED', `Sec-Fetch-Site: ${site}`);
    }

    if (expected !== undefined) {
      const given = bearerOf(request) ?? '';
      if (!matches(given, expected)) return apiError('UNAUTHORIZED');
    }
    return undefined;
  }

  /** A write's body must be JSON (after the caller is known: a hosted caller learns nothing before its token). */
  function refuseWrite(request: FastifyRequest): ApiErrorReply | undefined {
    if (WRITES.has(request.method)) {
      const type = request.headers['content-type'];
      const length = request.headers['content-length'];
      const hasBody = (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
      const json = mediaType(type) === 'application/json';
      if ((hasBody || type !== undefined) && !json) return apiError('CONTENT_TYPE_NOT_JSON', type ?? '(none)');
    }
    return undefined;
  }
}

/**
 * The Host check alone, for the pages that show the active credentials as examples (/docs,
 * /openapi.json): a DNS-rebinding page must not read the Api-Key there either.
 */
export function hostGuard(allowedHosts?: string[]): onRequestAsyncHookHandler {
  const hostAllowed = hostMatcher(allowedHosts);
  return async (request, reply) => {
    const host = request.headers.host;
    if (host === undefined || hostAllowed(host)) return;
    return sendApiErrorText(reply, apiError('HOST_NOT_ALLOWED', host));
  };
}

/** Whether a Host header names localhost, an IP address or an allowed name (`*` = any). */
function hostMatcher(allowedHosts: string[] = []): (host: string) => boolean {
  const names = new Set(allowedHosts.map(normalizeName));
  if (names.has('*')) return () => true;
  return (host) => {
    const name = hostName(host);
    if (name === undefined) return false;
    return name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0 || names.has(name);
  };
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 7235), if any. */
export const bearerOf = (request: FastifyRequest): string | undefined => /^bearer +(.+)$/i.exec(request.headers.authorization ?? '')?.[1];

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const header = (request: FastifyRequest, name: string): string | undefined => {
  const v = request.headers[name];
  return typeof v === 'string' ? v.toLowerCase() : undefined;
};

const mediaType = (type: string | undefined): string => (type ?? '').split(';')[0]!.trim().toLowerCase();

const normalizeName = (name: string): string => name.trim().toLowerCase().replace(/\.$/, '');

/** The host name of a Host header, without port or IPv6 brackets; undefined when it is not one. */
function hostName(host: string): string | undefined {
  try {
    const { hostname } = new URL(`http://${host}`);
    if (!hostname) return undefined;
    return normalizeName(hostname.startsWith('[') ? hostname.slice(1, -1) : hostname);
  } catch {
    return undefined;
  }
}

/** Whether a page of `origin` is this server itself (same host and port; the scheme may differ behind a TLS proxy). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    const page = new URL(origin);
    const target = new URL(`${page.protocol}//${host}`);
    return page.host === target.host;
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and anything unparsable
  }
}
