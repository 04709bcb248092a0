// Synthetic journal entries for the grading engine: times in ms after T0, no clock, no sleeps.
import type { JournalEntry } from '../../src/journal/journal.js';
import type { Finding } from '../../src/protocol/findings.js';

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');
export const iso = (ms: number) => new Date(T0 + ms).toISOString();

export interface Cb {
  event: 'login' | 'bet' | 'bet_result';
  user: string;
  tx: string;
  at: number;
  /** Reply written this many ms after arrival; null: still being answered (in flight). */
  ms?: number | null;
  game?: string;
  total?: number;
  /** The code of the reply (R0 by default). */
  code?: string;
  /** The wallet's own code when it differs from the reply's (a dropped reply still applied). */
  applied?: string;
  drop?: boolean;
  gone?: boolean;
  balance?: number;
  status?: number;
  /** Extra body fields (e.g. a changed timestamp). */
  extra?: Record<string, unknown>;
  data?: Record<string, unknown>;
  findings?: Finding[];
}

export function entry(id: number, c: Cb): JournalEntry {
  const data =
    c.event === 'login'
      ? undefined
      : { currency: 'USD', game_type: 'BAC', table_no: 'T1', game_no: c.game ?? 'G1', total_bet_amount: c.total ?? 10, ...c.data };
  const ms = c.ms === undefined ? 5 : c.ms;
  const code = c.code ?? 'R0';
  const e: JournalEntry = {
    id,
    received_at: iso(c.at),
    duration_ms: ms ?? 0,
    transaction_id: c.tx,
    event_type: c.event,
    user_id: c.user,
    request: {
      method: 'POST',
      url: '/callback',
      headers: {},
      body: {
        transaction_id: c.tx,
        event_type: c.event,
        timestamp: 1_767_225_600,
        feedback_data: 'fb',
        user_id: c.user,
        ...(data ? { data } : {}),
        ...c.extra,
      },
    },
    reply: {
      status: c.status ?? 200,
      headers: {},
      body: {
        code,
        event_type: c.event,
        timestamp: 1_767_225_600,
        user_id: c.user,
        ...(c.balance === undefined ? {} : { latest_balance: c.balance }),
      },
      dropped: c.drop ?? false,
      client_gone: c.gone ?? false,
    },
    code: c.applied ?? code,
    replayed: false,
    findings: c.findings ?? [],
  };
  if (ms !== null) e.replied_at = iso(c.at + ms);
  return e;
}

/** Entries with ids 1, 2, … in the order given. */
export const journal = (...cbs: Cb[]): JournalEntry[] => cbs.map((c, i) => entry(i + 1, c));

type Opt = Partial<Cb>;
export const login = (user: string, tx: string, at: number, o: Opt = {}): Cb => ({ event: 'login', user, tx, at, balance: 1000, ...o });
export const bet = (user: string, tx: string, at: number, o: Opt = {}): Cb => ({ event: 'bet', user, tx, at, ...o });
export const settle = (user: string, tx: string, at: number, o: Opt = {}): Cb => ({ event: 'bet_result', user, tx, at, ...o });
