// The admin API as the page uses it: same origin, the --admin-token kept for this tab only
// (sessionStorage), JSON bodies always labelled application/json (the admin guard wants it).

/**
 * Where the admin API is: `/admin` of this server, or, on a hosted tenant's dashboard
 * (`/t/<id>/ui`), that tenant's `/t/<id>/admin`. The page itself is the same for every tenant.
 */
export const TENANT_BASE = /^\/t\/[^/]+(?=\/ui$)/.exec(location.pathname)?.[0] ?? '';
export const tenantId = TENANT_BASE ? decodeURIComponent(TENANT_BASE.slice('/t/'.length)) : undefined;

/** One token per tenant dashboard (and one for a single-tenant wallet-sim). */
const TOKEN_KEY = `wallet-sim.admin-token${TENANT_BASE}`;

export const token = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (value: string) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

export function authHeaders(): Record<string, string> {
  const t = token.get();
  return t ? { authorization: `Bearer ${t}` } : {};
}

/** The admin API refused us: the page asks for the token. */
export class Unauthorized extends Error {
  override name = 'Unauthorized';
}

/** A 4xx with the admin API's error body (`details` name fields by JSON pointer; `code` its `error`; a 429's Retry-After). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly details: { pointer: string; message: string }[] = [],
    readonly code?: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

/**
 * A request body sent as written, not through JSON.stringify: a pasted scenario (the server says
 * where it goes wrong, line and column, and what it looks like instead), an amount whose digits
 * must arrive as typed (a JS number would round them first).
 */
export class JsonText {
  constructor(readonly text: string) {}
}

let onUnauthorized: () => void = () => {};
/** Who to tell when any call gets a 401 (the token prompt). */
export const whenUnauthorized = (f: () => void) => {
  onUnauthorized = f;
};

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const text = (await call(method, path, 'application/json', body)).text;
  return (text ? safeParse(text) : undefined) as T;
}

/** A GET whose answer is kept as sent (a report to save): its text and its type. */
export const apiText = (path: string) => call('GET', path, '*/*');

/** A tenant's admin and probe routes are its own; the rest (/health) is the server's. */
const urlOf = (path: string) => (/^\/(admin\/|probe)/.test(path) ? `${TENANT_BASE}${path}` : path);

/**
 * Why a token given in the prompt will not do (undefined: it does), asked of the API before the
 * page keeps it: a refused token is said in the prompt, not by the prompt coming back empty.
 */
export async function tokenRefusal(candidate: string): Promise<{ status: number; message: string } | undefined> {
  const res = await fetch(urlOf('/admin/scenario'), { headers: { accept: 'application/json', authorization: `Bearer ${candidate}` } });
  if (res.status !== 401 && res.status !== 403) return undefined;
  const body = safeParse(await res.text()) as { message?: unknown } | undefined;
  return { status: res.status, message: typeof body?.message === 'string' ? body.message : `HTTP ${res.status}` };
}

async function call(method: string, path: string, accept: string, body?: unknown): Promise<{ text: string; type: string }> {
  const given = authHeaders();
  const headers: Record<string, string> = { accept, ...given };
  if (body !== undefined) headers['content-type'] = 'application/json';
  // Errors name the route as called (a tenant's: /t/<id>/admin/…), not the page's shorthand.
  const url = urlOf(path);
  const sent = body === undefined ? undefined : body instanceof JsonText ? body.text : JSON.stringify(body);
  const res = await fetch(url, { method, headers, body: sent });
  if (res.status === 401) {
    // (a refusal of a call made without the token given since, answered late, asks for nothing)
    if (authHeaders().authorization === given.authorization) onUnauthorized();
    throw new Unauthorized(`${method} ${url}: the admin API wants its token`);
  }
  const text = await res.text();
  if (!res.ok) {
    const e = ((text ? safeParse(text) : undefined) ?? {}) as {
      error?: string;
      message?: string;
      details?: { pointer: string; message: string }[];
    };
    const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
    throw new ApiError(
      res.status,
      e.message ?? `${method} ${url}: HTTP ${res.status}`,
      e.details,
      e.error,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
    );
  }
  return { text, type: res.headers.get('content-type') ?? 'application/octet-stream' };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
