import type { JournalEntry } from '../journal/journal.js';
import type { Thresholds } from './thresholds.js';

/**
 * What the provider learnt from one attempt:
 * - `R0`…`R4`: it read a reply with that code, in time;
 * - `failed`: it read a reply in time, but one without a protocol code (another HTTP status, a raw
 *   body): as indeterminate as R1;
 * - `lost`: no reply reached it (connection dropped, it had gone, or the reply came after its
 *   time-out);
 * - `waiting`: still being answered and younger than its time-out: no outcome yet.
 */
export type Outcome = 'R0' | 'R1' | 'R2' | 'R3' | 'R4' | 'failed' | 'lost' | 'waiting';

/** One journal entry seen as one attempt of a transaction. Times are epoch milliseconds. */
export interface Attempt {
  id: number;
  user?: string;
  event?: string;
  tx?: string;
  game?: string;
  /** data.total_bet_amount of a bet or bet_result. */
  total?: number;
  /** The request body, for comparing resends. */
  body: unknown;
  at: number;
  /** When the wallet wrote the reply or closed the connection; undefined while it is being answered. */
  end?: number;
  /** The wallet applied it or replayed it (its code was R0), whatever the provider saw. */
  applied: boolean;
  outcome: Outcome;
  /** When the provider knew the outcome (reply read, connection closed, its time-out ran out). */
  knownAt?: number;
  /** latest_balance of a reply the provider read. */
  balance?: number;
  /** 0 for the first attempt of its transaction, 1 for the first resend… */
  nth: number;
}

/** A round: one player's game_no. */
export interface Round {
  user: string;
  game: string;
  bets: Attempt[];
  results: Attempt[];
}

/** Everything the checks share, derived once from the journal. */
export interface Facts {
  now: number;
  t: Thresholds;
  /** Oldest first. */
  attempts: Attempt[];
  /** transaction_id → its attempts, oldest first. */
  byTx: Map<string, Attempt[]>;
  /** `${user}\u0000${game}` → the round's bets and bet_results, oldest first. */
  rounds: Map<string, Round>;
  /** user_id → the player's attempts, oldest first. */
  byUser: Map<string, Attempt[]>;
}

export const DEFINITE = new Set<Outcome>(['R2', 'R3', 'R4']);
/** Outcomes after which the provider does not know whether the wallet applied the callback. */
export const UNCERTAIN = new Set<Outcome>(['R1', 'failed', 'lost']);
/** Outcomes the provider actually read. */
export const READ = new Set<Outcome>(['R0', 'R1', 'R2', 'R3', 'R4', 'failed']);
const CODES = new Set(['R0', 'R1', 'R2', 'R3', 'R4']);

export const roundKey = (user: string, game: string) => `${user}\u0000${game}`;

const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** One entry as an attempt; `now` decides whether an unanswered one has outlived the time-out. */
export function toAttempt(e: JournalEntry, t: Thresholds, now: number): Attempt {
  const body = record(e.request.body);
  const data = record(body?.data);
  const at = Date.parse(e.received_at);
  const end = e.replied_at === undefined ? undefined : Date.parse(e.replied_at);
  const timeoutAt = at + t.client_timeout_s * 1000;
  const reply = record(e.reply.body);
  const code = typeof reply?.code === 'string' && CODES.has(reply.code) ? reply.code : undefined;
  let outcome: Outcome;
  let knownAt: number | undefined;
  if (e.reply.dropped) [outcome, knownAt] = ['lost', end];
  else if (e.reply.client_gone) [outcome, knownAt] = ['lost', Math.min(end ?? timeoutAt, timeoutAt)];
  else if (end === undefined) [outcome, knownAt] = now > timeoutAt ? ['lost', timeoutAt] : ['waiting', undefined];
  else if (end > timeoutAt) [outcome, knownAt] = ['lost', timeoutAt];
  else [outcome, knownAt] = [e.reply.status === 200 && code ? (code as Outcome) : 'failed', end];
  const balance = READ.has(outcome) && typeof reply?.latest_balance === 'number' ? reply.latest_balance : undefined;
  return {
    id: e.id,
    user: e.user_id,
    event: e.event_type,
    tx: e.transaction_id,
    game: typeof data?.game_no === 'string' ? data.game_no : undefined,
    total: typeof data?.total_bet_amount === 'number' ? data.total_bet_amount : undefined,
    body: e.request.body,
    at,
    end,
    applied: e.code === 'R0',
    outcome,
    knownAt,
    balance,
    nth: 0,
  };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function deriveFacts(entries: readonly JournalEntry[], t: Thresholds, now: number): Facts {
  const attempts = entries.map((e) => toAttempt(e, t, now)).sort((a, b) => a.at - b.at || a.id - b.id);
  const byTx = new Map<string, Attempt[]>();
  const rounds = new Map<string, Round>();
  const byUser = new Map<string, Attempt[]>();
  for (const a of attempts) {
    if (a.tx !== undefined) {
      a.nth = byTx.get(a.tx)?.length ?? 0;
      push(byTx, a.tx, a);
    }
    if (a.user === undefined) continue;
    push(byUser, a.user, a);
    if (a.game === undefined || (a.event !== 'bet' && a.event !== 'bet_result')) continue;
    const key = roundKey(a.user, a.game);
    let round = rounds.get(key);
    if (!round) rounds.set(key, (round = { user: a.user, game: a.game, bets: [], results: [] }));
    (a.event === 'bet' ? round.bets : round.results).push(a);
  }
  return { now, t, attempts, byTx, rounds, byUser };
}

/** The attempts of `a`'s transaction after it. */
export const laterAttempts = (f: Facts, a: Attempt): Attempt[] => (a.tx === undefined ? [] : f.byTx.get(a.tx)!.slice(a.nth + 1));

/** Bets and settlements: the callbacks that move money. */
export const movesMoney = (a: Attempt) => a.event === 'bet' || a.event === 'bet_result';

export const seconds = (ms: number) => `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
