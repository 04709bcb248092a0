import { csvField } from '../src/ledger/format.js';
import { money } from '../src/kernel/money.js';
import { mulberry32 } from './random.js';

/*
 * A scripted, well-behaved provider client (the soak of `npm run bench -- --soak` and the chaos
 * end-to-end test share it): each player logs in, bets, waits for the bet's reply, settles; a lost,
 * late or R1 reply is resent unchanged under the same transaction_id after a back-off that never
 * shrinks; an R2–R4 refusal is final (never resent). It keeps its own books, as a provider does, for
 * `wallet-sim reconcile`.
 */

export interface ProviderOptions {
  callbackUrl: string;
  players: string[];
  apiId?: string;
  apiKey?: string;
  currency?: string;
  /** The client's time-out: a reply slower than this is lost (the scenario's grading.client_timeout_s). */
  timeoutMs: number;
  /** The first back-off (>= the scenario's grading.min_retry_gap_ms); each next gap is 1.5 times the last. */
  backoffMs: number;
  /** Attempts of one transaction before it is left pending (<= grading.max_attempts). */
  maxAttempts?: number;
  /** Seed of the client's own choices (amounts, outcomes): a run is reproducible with the simulator's seed. */
  seed?: number;
  /** false: a settlement whose reply was lost is booked failed and never resent (the money bug reconcile finds). */
  retryLostSettlement?: boolean;
  /** Stop after this many rounds in all (else at stop()). */
  rounds?: number;
}

export interface Book {
  transaction_id: string;
  event_type: 'bet' | 'bet_result';
  user_id: string;
  game_no: string;
  amount: string;
  status: 'ok' | 'failed' | 'pending';
  round_status?: 'open' | 'settled';
}

type Outcome = { code: string; balance?: number } | { lost: 'dropped' | 'timeout' | 'gave-up' };

export class ScriptedProvider {
  /** Callbacks sent (every attempt), and what went wrong from the client's side. */
  readonly stats = { sent: 0, lost: 0, timeouts: 0, r1: 0, refused: 0, rounds: 0 };
  readonly books = new Map<string, Book>();
  private seq = 0;
  private stopping = false;

  constructor(private readonly o: ProviderOptions) {}

  /** Plays every player until `stop()`; each finishes the round it is in. */
  async run(): Promise<void> {
    await Promise.all(this.o.players.map((p) => this.play(p)));
  }

  stop(): void {
    this.stopping = true;
  }

  /** The provider's books as a reconcile file (CSV). */
  booksCsv(): string {
    const cols = ['transaction_id', 'event_type', 'user_id', 'game_no', 'amount', 'status', 'round_status'] as const;
    const lines = [...this.books.values()].map((b) => cols.map((c) => csvField(b[c] ?? '')).join(','));
    return [cols.join(','), ...lines].join('\n') + '\n';
  }

  private id(kind: string, player: string) {
    return `${kind}-${player}-${++this.seq}`;
  }

  private async play(player: string): Promise<void> {
    // Each player its own generator: its choices do not depend on how the others' replies interleave.
    const rand = mulberry32((this.o.seed ?? 1) + this.o.players.indexOf(player));
    const currency = this.o.currency ?? 'USD';
    let balance: number | undefined;
    let round = 0;
    while (!this.stopping) {
      if (balance === undefined) {
        const login = { transaction_id: this.id('login', player), event_type: 'login', feedback_data: 'soak', user_id: player };
        const r = await this.deliver(login, true);
        if ('code' in r && r.code === 'R0') balance = r.balance;
        continue; // refused (R2/R3) or given up: a new login, never a bet before R0
      }
      // Below and above 50 (the chaos scenario's line between lost / slow bets and R4), within the reported balance.
      const stake = Math.min(Math.floor(rand() * 9000 + 100) / 100, Math.floor(balance));
      if (stake <= 0) return;
      const game_no = `${player}-r${++round}`;
      const data = { currency, game_type: 'BAC', table_no: 'T1', game_no };
      const bet = {
        transaction_id: this.id('bet', player),
        event_type: 'bet',
        feedback_data: 'soak',
        user_id: player,
        data: { ...data, total_bet_amount: stake, bets: [{ bet_index: '1', bet_type: 'P', bet_amount: stake }] },
      };
      const placed = await this.deliver(bet, true);
      const book = (b: Omit<Book, 'user_id' | 'game_no'>) => this.books.set(b.transaction_id, { ...b, user_id: player, game_no });
      if (!('code' in placed) || placed.code !== 'R0') {
        // Refused (never resent, its round never settled), or given up after max attempts.
        book({
          transaction_id: bet.transaction_id,
          event_type: 'bet',
          amount: String(stake),
          status: 'code' in placed ? 'failed' : 'pending',
        });
        if ('code' in placed && placed.balance !== undefined) balance = placed.balance;
        if ('code' in placed && placed.code === 'R2') balance = undefined;
        continue;
      }
      balance = placed.balance;
      book({ transaction_id: bet.transaction_id, event_type: 'bet', amount: String(stake), status: 'ok', round_status: 'open' });
      const pick = rand();
      const winloss = pick < 0.45 ? -stake : pick < 0.55 ? 0 : Number(money(stake).times(0.95).toDecimalPlaces(2).toFixed());
      const credit = money(stake).plus(winloss).toFixed();
      const settlement = {
        transaction_id: this.id('res', player),
        event_type: 'bet_result',
        feedback_data: 'soak',
        user_id: player,
        data: {
          ...data,
          total_bet_amount: stake,
          total_winloss: winloss,
          result: winloss > 0 ? 'P' : 'B',
          result_detail: JSON.stringify({ pscore: 8, bscore: 3, pcards: ['H8', 'S13'], bcards: ['D2', 'C1'] }),
          bet_results: [{ bet_index: '1', bet_type: 'P', bet_amount: stake, winloss }],
        },
      };
      const settled = await this.deliver(settlement, this.o.retryLostSettlement !== false);
      const ok = 'code' in settled && settled.code === 'R0';
      book({ transaction_id: settlement.transaction_id, event_type: 'bet_result', amount: credit, status: ok ? 'ok' : 'failed' });
      this.books.get(bet.transaction_id)!.round_status = ok ? 'settled' : 'open';
      if (ok) balance = settled.balance;
      if (++this.stats.rounds >= (this.o.rounds ?? Infinity)) this.stop();
      if (round % 10 === 0) balance = undefined; // players come back: a new login every 10 rounds
    }
  }

  /**
   * Sends a callback until it gets a definite answer (R0, R2, R3, R4): a lost reply (dropped,
   * or slower than the time-out) and R1 are resent unchanged, each gap between two attempts at
   * least 1.5 times the one before (never shorter). `retryLost` false: a lost reply is final.
   */
  private async deliver(body: Record<string, unknown>, retryLost: boolean): Promise<Outcome> {
    const text = JSON.stringify({ ...body, timestamp: Math.floor(Date.now() / 1000) });
    let lastSend = 0;
    let lastGap = 0;
    for (let attempt = 1; attempt <= (this.o.maxAttempts ?? 8); attempt++) {
      if (attempt > 1) {
        // A growing back-off after the failure, and a gap from the last send never shorter than the one before.
        const backoff = this.o.backoffMs * 1.5 ** (attempt - 2);
        const wait = Math.max(backoff, lastSend + Math.max(backoff, lastGap * 1.5) - performance.now());
        await new Promise((r) => setTimeout(r, wait));
        lastGap = performance.now() - lastSend;
      }
      lastSend = performance.now();
      this.stats.sent++;
      const outcome = await this.send(text);
      if ('lost' in outcome) {
        this.stats[outcome.lost === 'timeout' ? 'timeouts' : 'lost']++;
        if (!retryLost) return outcome;
        continue;
      }
      if (outcome.code === 'R1') {
        this.stats.r1++;
        continue;
      }
      if (outcome.code !== 'R0') this.stats.refused++;
      return outcome;
    }
    return { lost: 'gave-up' };
  }

  private async send(text: string): Promise<Outcome> {
    try {
      const res = await fetch(this.o.callbackUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'api-id': this.o.apiId ?? 'sandbox',
          'api-key': this.o.apiKey ?? 'sandbox-key',
          'callback-url': this.o.callbackUrl,
        },
        body: text,
        signal: AbortSignal.timeout(this.o.timeoutMs),
      });
      const reply = (await res.json()) as { code: string; latest_balance?: number };
      return { code: reply.code, balance: reply.latest_balance };
    } catch (e) {
      const name = (e as Error).name;
      return { lost: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'dropped' };
    }
  }
}
