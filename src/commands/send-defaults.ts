import type { Scenario } from '../protocol/types.generated.js';

/** What `send` falls back on when the URL is not a wallet-sim that says (another wallet, an old build). */
export const FALLBACK = { user: 'player-1', currency: 'KRW' } as const;

export interface Picked {
  user: string;
  currency: string;
  /** Where it came from, for the one line `send` prints on stderr. */
  from: string;
}

/**
 * The player `send` plays when --user is not given: the first player of the scenario that no rule
 * singles out (a rule for one player drops or refuses on purpose), else a fresh player-1 when the
 * scenario creates players, else its first player. The currency is that player's.
 */
export function pickPlayer(scenario: Scenario, user?: string): { user: string; currency: string } {
  const targeted = new Set((scenario.rules ?? []).map((r) => (r.when as { user_id?: string } | undefined)?.user_id));
  const players = scenario.players ?? [];
  const defaultCurrency = scenario.defaults?.currency ?? Object.keys(scenario.currencies ?? {})[0] ?? FALLBACK.currency;
  const chosen = (user !== undefined ? players.find((p) => p.user_id === user) : undefined) ??
    (user !== undefined ? { user_id: user } : undefined) ??
    players.find((p) => !targeted.has(p.user_id)) ??
    (scenario.defaults?.auto_create_players !== false && !targeted.has(FALLBACK.user) ? { user_id: FALLBACK.user } : players[0]) ?? {
      user_id: FALLBACK.user,
    };
  return { user: chosen.user_id, currency: ('currency' in chosen && chosen.currency) || defaultCurrency };
}

/** GET /admin/scenario of the simulator the callback URL belongs to: a hosted tenant's under its /t/<id>/. */
export function scenarioUrlOf(callbackUrl: string): URL {
  const tenant = /^\/t\/[^/]+\//.exec(new URL(callbackUrl).pathname);
  return new URL(`${tenant ? tenant[0] : '/'}admin/scenario`, callbackUrl);
}

/** Why the scenario could not be read, and the token option that would read it (when one would). */
export interface Unread {
  why: string;
  tokenOption?: string;
}

function unreadable(url: URL, status: number | undefined, token: string | undefined): Unread {
  const get = `GET ${url.href}`;
  const tokenOption = url.pathname.startsWith('/t/') ? "--token-file <the tenant's token file>" : '--admin-token';
  if (status === undefined) return { why: `${get} answered nothing` };
  if ((status === 401 || status === 403) && token)
    return { why: `${get} answered ${status}: the token given was refused (wrong, or rotated since: ask for the current one)` };
  if (status === 401) return { why: `${get} answered 401: it wants a token`, tokenOption };
  return { why: `${get} answered ${status === 200 ? 'no scenario' : `HTTP ${status}`}: not a wallet-sim?` };
}

/**
 * --user and --currency when not given: from the simulator's active scenario (GET /admin/scenario
 * beside the callback URL, with the admin token when given), else player-1 and KRW, saying why.
 */
export async function sendDefaults(
  callbackUrl: string,
  given: { user?: string; currency?: string },
  timeoutMs: number,
  token?: string,
): Promise<Picked & { unread?: Unread }> {
  let scenario: Scenario | undefined;
  let status: number | undefined;
  const url = scenarioUrlOf(callbackUrl);
  try {
    const res = await fetch(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.status;
    if (res.ok) scenario = (await res.json()) as Scenario;
  } catch {
    /* not a wallet-sim (or not running: the callback itself will say so) */
  }
  if (scenario === undefined || !Array.isArray(scenario.players ?? []))
    return {
      user: given.user ?? FALLBACK.user,
      currency: given.currency ?? FALLBACK.currency,
      from: 'defaults',
      unread: unreadable(url, status, token),
    };
  const picked = pickPlayer(scenario, given.user);
  return { user: picked.user, currency: given.currency ?? picked.currency, from: `scenario "${scenario.name}"` };
}
