import type { Scenario } from '../protocol/types.generated.js';
import { describeFetchError, isBadPort } from '../client/http.js';
import { refusalOf } from '../client/refusals.js';

/** What `send` falls back on when the URL is not a wallet-sim that says (another wallet, an old build). */
export const FALLBACK = { user: 'player-1', currency: 'KRW' } as const;

export interface Picked {
  user: string;
  currency: string;
  /** Where it came from, for the one line `send` prints on stderr. */
  from: string;
  /** Said on that line when the player picked is one a rule singles out. */
  note?: string;
  /** The credentials the simulator expects (its GET /admin/scenario shows those in effect), when read. */
  credentials?: { api_id: string; api_key: string };
}

/**
 * The player `send` plays when --user is not given: the first player of the scenario that no rule's
 * `when` names by user_id (a rule for one player drops or refuses on purpose). When a rule names
 * every one: player-1 if the scenario creates players and no rule names it, else (player-1 would
 * be refused R3, or a rule names it too) the listed player the fewest rules name, with a note
 * saying so. The currency is that player's. With `user` given, only the currency is picked.
 */
export function pickPlayer(scenario: Scenario, user?: string): { user: string; currency: string; note?: string } {
  const named = new Map<string, number>();
  for (const r of scenario.rules ?? []) {
    const id = (r.when as { user_id?: string } | undefined)?.user_id;
    if (id !== undefined) named.set(id, (named.get(id) ?? 0) + 1);
  }
  const players = scenario.players ?? [];
  const defaultCurrency = scenario.defaults?.currency ?? Object.keys(scenario.currencies ?? {})[0] ?? FALLBACK.currency;
  const currencyOf = (id: string) => players.find((p) => p.user_id === id)?.currency ?? defaultCurrency;
  if (user !== undefined) return { user, currency: currencyOf(user) };
  const free = players.find((p) => !named.has(p.user_id));
  if (free) return { user: free.user_id, currency: free.currency ?? defaultCurrency };
  if (players.length === 0 || (scenario.defaults?.auto_create_players !== false && !named.has(FALLBACK.user)))
    return { user: FALLBACK.user, currency: defaultCurrency };
  const least = players.reduce((a, b) => ((named.get(b.user_id) ?? 0) < (named.get(a.user_id) ?? 0) ? b : a));
  const rules = named.get(least.user_id) ?? 0;
  return {
    user: least.user_id,
    currency: least.currency ?? defaultCurrency,
    note: `a rule names every player of it, ${rules === 1 ? '1 rule names' : `${rules} rules name`} ${least.user_id}: pass --user to choose`,
  };
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

function unreadable(url: URL, status: number | undefined, token: string | undefined, failed?: unknown, body?: string): Unread {
  const get = `GET ${url.href}`;
  const tokenOption = url.pathname.startsWith('/t/') ? "--token-file <the tenant's token file>" : '--admin-token';
  if (isBadPort(failed)) return { why: `${get}: ${describeFetchError(failed, 0, url)}` };
  if (status === undefined) return { why: `${get} answered nothing` };
  if (status === 401 && !token) return { why: `${get} answered 401: it wants a token`, tokenOption };
  const refused = status === 401 || status === 403 ? refusalOf(status, body ?? '', !!token) : undefined;
  if (refused) return { why: `${get} answered ${refused}` };
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
  let failed: unknown;
  let body: string | undefined;
  const url = scenarioUrlOf(callbackUrl);
  try {
    const res = await fetch(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.status;
    body = await res.text();
    const read = res.ok ? (JSON.parse(body) as unknown) : undefined;
    if (read !== null && typeof read === 'object') scenario = read as Scenario;
  } catch (e) {
    failed = e; // not a wallet-sim (or not running: the callback itself will say so)
  }
  if (scenario === undefined || !Array.isArray(scenario.players ?? []))
    return {
      user: given.user ?? FALLBACK.user,
      currency: given.currency ?? FALLBACK.currency,
      from: 'defaults',
      unread: unreadable(url, status, token, failed, body),
    };
  const picked = pickPlayer(scenario, given.user);
  const { api_id, api_key } = (scenario.credentials ?? {}) as { api_id?: unknown; api_key?: unknown };
  const credentials = typeof api_id === 'string' && typeof api_key === 'string' ? { api_id, api_key } : undefined;
  return {
    user: picked.user,
    currency: given.currency ?? picked.currency,
    from: `scenario "${scenario.name}"`,
    note: picked.note,
    credentials,
  };
}
