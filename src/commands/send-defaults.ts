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

/**
 * --user and --currency when not given: from the simulator's active scenario (GET /admin/scenario
 * beside the callback URL), else player-1 and KRW.
 */
export async function sendDefaults(callbackUrl: string, given: { user?: string; currency?: string }, timeoutMs: number): Promise<Picked> {
  let scenario: Scenario | undefined;
  const url = new URL('/admin/scenario', callbackUrl);
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.ok) scenario = (await res.json()) as Scenario;
  } catch {
    /* not a wallet-sim (or not running: the callback itself will say so) */
  }
  if (scenario === undefined || !Array.isArray(scenario.players ?? []))
    return { user: given.user ?? FALLBACK.user, currency: given.currency ?? FALLBACK.currency, from: 'defaults' };
  const picked = pickPlayer(scenario, given.user);
  return { user: picked.user, currency: given.currency ?? picked.currency, from: `scenario "${scenario.name}"` };
}
