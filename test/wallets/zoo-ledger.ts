import stringify from 'safe-stable-stringify';
import { type Money, money, sum, ZERO } from '../../src/kernel/money.js';
import type { Defect } from './zoo-defects.js';

/**
 * The zoo wallet's money: players, rounds, applied transactions, each decision made as a correct
 * operator wallet makes it, except where the one configured defect says otherwise. No HTTP here.
 */

export interface Player {
  balance: Money;
  currency: string;
}
interface Round {
  currency: string;
  bets: Map<string, Money>;
  settled: boolean;
}
interface Applied {
  key: string;
  before: Money;
  after: Money;
}

export interface Outcome {
  code: 'R0' | 'R1' | 'R2' | 'R3' | 'R4';
  balance?: Money;
  /** Why a refusal was given (sent as X-Zoo-Reason, for a reader of the test's evidence). */
  reason?: string;
}

export interface LedgerOptions {
  defect?: Defect;
  replay: 'current' | 'original';
  /** Create an unknown player with this balance (in its first callback's currency, else USD). */
  autoCreate?: Money;
  scales: Record<string, number>;
}

type Body = Record<string, unknown>;
type Data = Record<string, unknown>;

const LIMIT = money('1e15');
const refuse = (reason: string): Outcome => ({ code: 'R3', reason });
/** A simulated database round trip: where a missing per-player lock lets another callback in. */
const dbRoundTrip = (ms = 25) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/**
 * The round trip of the wallet without a lock: long enough that bets sent at once through a proxy on
 * a loaded machine all read the balance before any debits it (so the race shows every time).
 */
const RACE_MS = 300;

export class ZooLedger {
  readonly players = new Map<string, Player>();
  private readonly rounds = new Map<string, Round>();
  private readonly applied = new Map<string, Applied>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(readonly o: LedgerOptions) {}

  private has = (d: Defect) => this.o.defect === d;

  /** One authenticated callback, serialized per player (unless the defect says no lock). */
  decide(body: Body): Promise<Outcome> {
    const user = typeof body.user_id === 'string' ? body.user_id : '';
    if (this.has('no-player-lock')) return this.decideNow(body);
    const prev = this.locks.get(user) ?? Promise.resolve();
    const next = prev.then(() => this.decideNow(body));
    const settled = next.catch(() => undefined);
    this.locks.set(user, settled);
    void settled.then(() => this.locks.get(user) === settled && this.locks.delete(user));
    return next;
  }

  private async decideNow(body: Body): Promise<Outcome> {
    const invalid = this.envelopeProblem(body);
    if (invalid) return refuse(invalid);
    const user = body.user_id as string;
    const event = body.event_type as string;
    let player = this.players.get(user);
    if (!player) {
      if (this.has('unknown-player-r0')) return { code: 'R0', balance: ZERO };
      if (!this.o.autoCreate) return refuse(`unknown player ${user}`);
      const data = body.data as Data | undefined;
      player = { balance: this.o.autoCreate, currency: typeof data?.currency === 'string' ? data.currency : 'USD' };
      this.players.set(user, player);
    }
    if (event === 'login') return { code: 'R0', balance: player.balance };

    const txid = body.transaction_id as string;
    const key = stringify({ ...body, timestamp: undefined }) ?? '';
    const seen = this.applied.get(txid);
    if (seen && !this.has('double-debit-resend')) {
      if (seen.key !== key) return refuse(`transaction ${txid} was applied with another body`);
      if (this.has('r3-on-resend')) return refuse(`duplicate transaction ${txid}`);
      if (this.has('replay-stale-balance')) return { code: 'R0', balance: seen.before };
      return { code: 'R0', balance: this.o.replay === 'original' ? seen.after : player.balance };
    }
    const before = player.balance;
    const out = event === 'bet' ? await this.bet(player, user, body.data as Data) : this.settle(player, user, body.data as Data);
    if (out.code === 'R0') this.applied.set(txid, { key, before, after: player.balance });
    return out;
  }

  /** A balance change: exact, or (the float-money defect) through binary floats, 102.1 - 0.7 = 101.39999999999999. */
  private move(p: Player, delta: Money): void {
    p.balance = this.has('float-money') ? money(p.balance.toNumber() + delta.toNumber()) : p.balance.plus(delta);
  }

  private envelopeProblem(b: Body): string | undefined {
    if (typeof b.transaction_id !== 'string' || !b.transaction_id) return 'transaction_id must be a non-empty string';
    if (!['login', 'bet', 'bet_result'].includes(b.event_type as string)) return 'unknown event_type';
    if (typeof b.user_id !== 'string' || !b.user_id) return 'user_id must be a non-empty string';
    if (typeof b.feedback_data !== 'string') return 'feedback_data must be a string';
    const ts = b.timestamp;
    if (!(ts === undefined && this.has('accepts-missing-timestamp')) && !Number.isInteger(ts)) return 'timestamp must be an integer';
    if (b.event_type !== 'login') {
      const d = b.data as Data | undefined;
      if (!d || typeof d !== 'object' || Array.isArray(d)) return 'data must be an object';
      for (const f of ['currency', 'game_type', 'table_no', 'game_no']) if (typeof d[f] !== 'string') return `data.${f} must be a string`;
    }
    return undefined;
  }

  /** An amount as an exact decimal, or why it is not one. */
  private amount(v: unknown, currency: string, what: string, positive: boolean): Money | string {
    let m: Money;
    if (typeof v === 'number' && Number.isFinite(v)) m = money(v);
    else if (this.has('accepts-wrong-types') && typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) m = money(v);
    else return `${what} must be a number`;
    if (positive && !m.gt(0) && !this.has('accepts-nonpositive-amount')) return `${what} must be > 0`;
    const scale = this.o.scales[currency] ?? 2;
    if (m.decimalPlaces() > scale && !this.has('accepts-excess-digits')) return `${what} has more than ${scale} fraction digits`;
    if (m.abs().gte(LIMIT)) return `${what} is too large`;
    return m;
  }

  private lines(d: Data, field: string, withWinloss: boolean): { index: string; amount: Money; winloss: Money }[] | string {
    const list = d[field];
    if (!Array.isArray(list) || list.length === 0) return `data.${field} must be a non-empty array`;
    const out: { index: string; amount: Money; winloss: Money }[] = [];
    for (const [i, l] of (list as Data[]).entries()) {
      if (!l || typeof l !== 'object' || typeof l.bet_index !== 'string' || typeof l.bet_type !== 'string')
        return `${field}[${i}] needs bet_index and bet_type strings`;
      const amount = this.amount(l.bet_amount, d.currency as string, `${field}[${i}].bet_amount`, true);
      if (typeof amount === 'string') return amount;
      const winloss = withWinloss ? this.amount(l.winloss, d.currency as string, `${field}[${i}].winloss`, false) : ZERO;
      if (typeof winloss === 'string') return winloss;
      if (out.some((o) => o.index === l.bet_index)) return `bet_index ${l.bet_index} repeats`;
      out.push({ index: l.bet_index, amount, winloss });
    }
    return out;
  }

  private async bet(p: Player, user: string, d: Data): Promise<Outcome> {
    const cur = d.currency as string;
    const total = this.amount(d.total_bet_amount, cur, 'total_bet_amount', true);
    if (typeof total === 'string') return refuse(total);
    const bets = this.lines(d, 'bets', false);
    if (typeof bets === 'string') return refuse(bets);
    if (!total.eq(sum(bets.map((b) => b.amount))) && !this.has('accepts-bad-totals')) return refuse('total_bet_amount is not the sum');
    if (cur !== p.currency && !this.has('any-currency')) return refuse(`currency ${cur} is not the player's ${p.currency}`);
    const id = `${user}\u0000${d.game_no as string}`;
    let round = this.rounds.get(id);
    if (round?.settled) {
      if (!this.has('accepts-bet-on-settled-round')) return refuse(`round ${d.game_no as string} is settled`);
      round = undefined;
    }
    let short = false;
    if (this.has('no-player-lock')) {
      const seen = p.balance;
      await dbRoundTrip(RACE_MS);
      if (seen.lt(total)) return { code: 'R4', balance: p.balance };
    } else {
      await dbRoundTrip();
      short = p.balance.lt(total);
      if (short && !this.has('r0-short-bet') && !this.has('r0-short-clamp')) return { code: 'R4', balance: p.balance };
    }
    // The clamp forgives the shortfall: the balance never goes negative, so only the sum of the bets shows it.
    if (short && this.has('r0-short-clamp')) p.balance = ZERO;
    else this.move(p, total.neg());
    round ??= { currency: cur, bets: new Map(), settled: false };
    for (const b of bets) round.bets.set(b.index, (round.bets.get(b.index) ?? ZERO).plus(b.amount));
    this.rounds.set(id, round);
    return { code: 'R0', balance: p.balance };
  }

  private settle(p: Player, user: string, d: Data): Outcome {
    const cur = d.currency as string;
    const total = this.amount(d.total_bet_amount, cur, 'total_bet_amount', true);
    if (typeof total === 'string') return refuse(total);
    const winloss = this.amount(d.total_winloss, cur, 'total_winloss', false);
    if (typeof winloss === 'string') return refuse(winloss);
    if (typeof d.result !== 'string' || typeof d.result_detail !== 'string') return refuse('result and result_detail must be strings');
    const lines = this.lines(d, 'bet_results', true);
    if (typeof lines === 'string') return refuse(lines);
    if (!this.has('accepts-bad-totals')) {
      if (!total.eq(sum(lines.map((l) => l.amount)))) return refuse('total_bet_amount is not the sum');
      if (!winloss.eq(sum(lines.map((l) => l.winloss)))) return refuse('total_winloss is not the sum');
    }
    if (!this.has('accepts-bad-result-detail') && !isJsonObject(d.result_detail)) return refuse('result_detail is not a JSON object');
    const round = this.rounds.get(`${user}\u0000${d.game_no as string}`);
    if (!round && !this.has('settle-unknown-round')) return refuse(`no round ${d.game_no as string}`);
    if (round?.settled && !this.has('resettle-new-txid')) return refuse(`round ${d.game_no as string} is settled`);
    if (round) {
      const stake = sum(round.bets.values());
      if (!total.eq(stake) && !this.has('accepts-stake-mismatch'))
        return refuse(`total_bet_amount is not the round's stake ${stake.toFixed()}`);
      for (const l of lines) {
        const bet = round.bets.get(l.index);
        if (!bet && !this.has('accepts-unknown-bet-index')) return refuse(`bet_index ${l.index} was never bet`);
        if (l.winloss.lt(l.amount.neg()) && !this.has('accepts-winloss-below-stake')) return refuse(`winloss below -bet_amount`);
      }
      round.settled = true;
    } else if (lines.some((l) => l.winloss.lt(l.amount.neg())) && !this.has('accepts-winloss-below-stake'))
      return refuse('winloss below -bet_amount');
    const credit = this.has('settle-winloss-only') ? winloss : total.plus(winloss);
    this.move(p, credit);
    return { code: 'R0', balance: p.balance };
  }
}

function isJsonObject(text: unknown): boolean {
  try {
    const v: unknown = JSON.parse(text as string);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}
