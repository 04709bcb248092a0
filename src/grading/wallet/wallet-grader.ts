import { type Money, money, ZERO } from '../../kernel/money.js';
import type { ReportViolation } from '../../protocol/types.generated.js';
import { type WalletCheck, WALLET_CHECKS } from './checks.js';
import type { WalletAnswer, WalletExchange, WalletGradingOptions } from '../../core/exchange.js';
import type { NoReplyCause, WalletCheckId } from './exchange.js';
import { type ReadReply, readReply } from '../../protocol/seed/reply-read.js';
import { WalletTally } from './tally.js';
import { count } from '../../text/plural.js';
import { listedViolations } from '../listed-violations.js';
import { INVALID, NOT_ENOUGH_BALANCE, SUCCESS, UNAUTHORIZED } from '../../protocol/seed/codes.js';
import { EVENT } from '../../protocol/seed/wire.js';
import { bodyDigest } from '../../kernel/digest.js';

/** What the wallet side is graded against: the provider's declared time-out, the credentials it was given. */
export type WalletGraderOptions = WalletGradingOptions;

/** A wallet-side check as a report lists it (the provider's checks have the same shape). */
export interface WalletCheckReport {
  id: WalletCheckId;
  side: 'wallet';
  title: string;
  severity: 'error' | 'warning';
  status: 'pass' | 'fail' | 'pending' | 'not_exercised';
  exercised: number;
  detail: string;
  fix: string;
  violations: ReportViolation[];
}

/** Transactions remembered for idempotency (the oldest are forgotten). */
const MAX_TRANSACTIONS = 50_000;
/** One player's balance as the wallet last reported it, and the callbacks of theirs in flight. */
interface PlayerState {
  /** The balance last reported; undefined when unknown (none yet, or a callback may have moved it unseen). */
  balance?: Money;
  /** Callbacks of this player sent and not yet answered, with whether another overlapped each. */
  inFlight: Map<number, Flight>;
}

interface Flight {
  /** Another callback of the same player was in flight at some moment while this one was. */
  overlapped: boolean;
  /** The player's balance when it was sent. */
  balanceAtSend?: Money;
}

interface TxState {
  /** Digest of the body without its timestamp: an identical resend has the same. */
  digest: string;
  /** The first R0 to it: its exchange id and the balance it reported. */
  applied?: { id: number; balance?: Money };
}

/**
 * The operator's wallet graded from what it answered: a fold over exchanges (`sent`, then
 * `answered`), one per session. It assumes what certification uses: dedicated test players whose
 * balances move only through these callbacks. It never fails what it cannot judge: a balance is
 * compared only for a callback that no other callback of the same player overlapped, against a
 * balance that no unanswered callback may have moved since.
 */
export class WalletGrader {
  private readonly players = new Map<string, PlayerState>();
  private readonly txs = new Map<string, TxState>();
  private readonly tallies = new Map<WalletCheckId, WalletTally>(WALLET_CHECKS.map((c) => [c.id, new WalletTally()]));
  /** Exchanges sent and not answered, for ANSWERS_IN_TIME's pending count: id → player. */
  private readonly waiting = new Map<number, string>();
  /** Grows with every change (the dashboard's cue to refresh). */
  version = 0;

  constructor(private options: WalletGraderOptions) {}

  /** The thresholds or credentials changed without a new session. */
  use(options: WalletGraderOptions): void {
    this.options = options;
  }

  /** A callback went to the wallet. */
  sent(x: WalletExchange): void {
    this.version++;
    this.waiting.set(x.id, x.user ?? '');
    if (x.user === undefined) return;
    const p = this.player(x.user);
    const overlapped = p.inFlight.size > 0;
    for (const f of p.inFlight.values()) f.overlapped = true;
    p.inFlight.set(x.id, { overlapped, balanceAtSend: p.balance });
  }

  /** The exchange sent as `from` is `to` from now on (proxy mode cites its journal id, known once journalled). */
  rekey(from: number, to: number): void {
    const user = this.waiting.get(from);
    const flights = user === undefined ? undefined : this.players.get(user)?.inFlight;
    if (user === undefined || from === to || !this.waiting.delete(from)) return;
    this.waiting.set(to, user);
    const flight = flights?.get(from);
    if (flight && flights!.delete(from)) flights!.set(to, flight);
  }

  /** The wallet answered it, or did not (`a.kind === 'none'`). A callback not `sent` first is taken as sent now. */
  answered(x: WalletExchange, a: WalletAnswer): void {
    if (!this.waiting.has(x.id)) this.sent(x);
    this.waiting.delete(x.id);
    this.version++;
    const user = x.user ?? '';
    const p = x.user === undefined ? undefined : this.player(x.user);
    const flight = p?.inFlight.get(x.id);
    p?.inFlight.delete(x.id);
    const serial = flight !== undefined && !flight.overlapped;

    const inTime = this.tally('WALLET_ANSWERS_IN_TIME');
    inTime.exercise(user);
    if (a.kind === 'none') {
      // A wallet not reached is not a slow one: the message (and the check's fix) says which it was.
      inTime.violate(a.cause === 'unreachable' ? `${what(x)}: ${a.why}` : `${what(x)}: no reply (${a.why})`, x, a);
      if (p) p.balance = undefined; // it may have been applied
      return;
    }
    const ms = a.at - x.sentAt;
    if (ms > this.options.clientTimeoutMs)
      inTime.violate(
        `${what(x)}: answered after ${ms} ms, beyond the provider's time-out of ${this.options.clientTimeoutMs} ms (to the provider, a lost reply)`,
        x,
        a,
      );

    const reply = readReply(x, a);
    const valid = this.tally('WALLET_REPLY_VALID');
    valid.exercise(user);
    if (reply.problems.length) valid.violate(`${what(x)}: ${reply.problems.join('; ')}`, x, a);

    const graded = x.valid && x.credentialsOk;
    if (!graded) {
      const invalid = this.tally('WALLET_REFUSES_INVALID');
      invalid.exercise(user);
      if (reply.verdict === 'applied')
        invalid.violate(
          `${what(x)}: answered R0 to a callback ${x.credentialsOk ? 'that fails the schemas' : "with credentials other than the provider's"}; it should be refused (${x.credentialsOk ? INVALID : UNAUTHORIZED}) and change nothing`,
          x,
          a,
        );
    } else if (p && x.tx !== undefined && !this.money(x, a, reply, p, flight, serial)) return void (p.balance = undefined);
    if (p) this.follow(p, reply, serial, a.status);
  }

  /** The money checks of a valid callback; false when its reply's balance cannot be trusted (a resend answered with another). */
  private money(
    x: WalletExchange,
    a: WalletAnswer,
    reply: ReadReply,
    p: PlayerState,
    flight: Flight | undefined,
    serial: boolean,
  ): boolean {
    const user = x.user!;
    const digest = bodyDigest(x.body);
    const known = this.txs.get(x.tx!);
    const before = serial ? flight?.balanceAtSend : undefined;
    if (known?.applied && known.digest === digest) {
      const idem = this.tally('WALLET_IDEMPOTENT');
      idem.exercise(user);
      if (reply.verdict === 'refused')
        idem.violate(
          `${what(x)}: answered ${reply.code} to an identical resend of a transaction it applied (R0, #${known.applied.id}); replay R0 so the provider learns it was applied`,
          x,
          a,
        );
      else if (reply.verdict === 'applied' && reply.balance && serial) {
        const first = known.applied.balance;
        const fine = (first && reply.balance.eq(first)) || (before && reply.balance.eq(before));
        if (!fine) {
          idem.violate(
            `${what(x)}: the resend was answered with latest_balance ${reply.balance}, but the first reply (#${known.applied.id}) said ${first ?? 'nothing'} and the balance last reported was ${before ?? 'unknown'}: it was applied again, or the balance is wrong`,
            x,
            a,
          );
          return false;
        }
      }
      return true;
    }
    if (!known) this.remember(x.tx!, { digest });
    else if (known.digest !== digest) return true; // another body under a used id: the provider's defect; the wallet should refuse it
    const delta = deltaOf(x);
    if (x.event === 'bet' && delta && before) {
      const stake = delta.neg();
      if (stake.gt(before)) {
        const short = this.tally('WALLET_REFUSES_SHORT_BET');
        short.exercise(user);
        if (reply.verdict === 'applied')
          short.violate(
            `${what(x)}: a bet of ${stake} above the balance of ${before} it last reported was answered R0 (R4 expected)`,
            x,
            a,
          );
      }
    }
    if (reply.verdict !== 'applied') return true;
    this.txs.get(x.tx!)!.applied = { id: x.id, balance: reply.balance };
    if (!delta || !before || !reply.balance) return true;
    const exact = this.tally('WALLET_BALANCE_EXACT');
    exact.exercise(user);
    const expected = before.plus(delta);
    if (!reply.balance.eq(expected))
      exact.violate(
        `${what(x)}: the balance went from ${before} to ${reply.balance}; ${describeDelta(x.event!, delta)} makes it ${expected} (off by ${reply.balance.minus(expected)})`,
        x,
        a,
      );
    return true;
  }

  /**
   * The player's balance after a reply: known again from a callback no other overlapped; unknown
   * after one that may have moved it unseen.
   */
  private follow(p: PlayerState, reply: ReadReply, serial: boolean, status: number): void {
    if (status !== 200 || reply.code === undefined)
      p.balance = undefined; // applied or not, nobody knows
    else if (reply.code === SUCCESS || reply.code === NOT_ENOUGH_BALANCE) p.balance = serial ? reply.balance : undefined;
    else if (!serial) p.balance = undefined;
  }

  private player(user: string): PlayerState {
    let p = this.players.get(user);
    if (!p) this.players.set(user, (p = { inFlight: new Map() }));
    return p;
  }

  private remember(tx: string, state: TxState): void {
    if (this.txs.size >= MAX_TRANSACTIONS) this.txs.delete(this.txs.keys().next().value!);
    this.txs.set(tx, state);
  }

  private tally(id: WalletCheckId): WalletTally {
    return this.tallies.get(id)!;
  }

  /** The wallet-side checks as a report lists them (`userId`: one player's). */
  checks(userId?: string): WalletCheckReport[] {
    return WALLET_CHECKS.map((c) => {
      const t = this.tally(c.id);
      const exercised = t.exercised(userId);
      const { list, more } = t.violationsOf(userId);
      let pending = 0;
      if (c.id === 'WALLET_ANSWERS_IN_TIME') for (const u of this.waiting.values()) if (userId === undefined || u === userId) pending++;
      const failed = list.length + more;
      const status = failed ? 'fail' : pending ? 'pending' : exercised ? 'pass' : 'not_exercised';
      const [one, other] = c.unit;
      const detail =
        status === 'not_exercised'
          ? c.idle
          : `${count(exercised, { one, other })}: ${Math.max(0, exercised - failed)} passed, ${failed} failed${pending ? `, ${pending} still unanswered` : ''}`;
      return {
        id: c.id,
        side: 'wallet',
        title: c.title,
        severity: c.severity,
        status,
        exercised,
        detail,
        fix: fixOf(c, t.causesOf(userId)),
        violations: listedViolations(list, more, c.id),
      };
    });
  }
}

/** The check's fix, or the fixes for the kinds of failure its violations were (in the order unreachable, broken, timeout). */
function fixOf(c: WalletCheck, causes: Set<NoReplyCause>): string {
  if (!c.fixFor || causes.size === 0) return c.fix;
  return (['unreachable', 'broken', 'timeout'] as const)
    .filter((cause) => causes.has(cause))
    .map((cause) => c.fixFor![cause])
    .join(' ');
}

const what = (x: WalletExchange) => `${x.event ?? 'callback'} ${x.tx ?? ''} of ${x.user ?? '(no user_id)'} (#${x.id})`.replace('  ', ' ');

/**
 * How a callback answered R0 moves the balance: −stake (bet), stake + winloss (bet_result), 0
 * (login); undefined when its amounts are not numbers.
 */
function deltaOf(x: WalletExchange): Money | undefined {
  if (x.event === 'login') return ZERO;
  const data = (x.body as { data?: { total_bet_amount?: unknown; total_winloss?: unknown } } | undefined)?.data;
  const stake = data?.total_bet_amount;
  if (typeof stake !== 'number') return undefined;
  if (x.event === 'bet') return money(stake).neg();
  if (x.event !== EVENT.betResult || typeof data?.total_winloss !== 'number') return undefined;
  return money(stake).plus(money(data.total_winloss));
}

const describeDelta = (event: string, delta: Money) =>
  event === 'login'
    ? 'a login moves nothing, which'
    : event === 'bet'
      ? `a debit of ${delta.neg()}`
      : `a credit of ${delta} (stake + winloss)`;
