import { WALLET_CHECKS } from './checks.js';
import { checkReports, type WalletCheckReport } from './check-reports.js';
import type { WalletAnswer, WalletExchange, WalletGradingOptions } from '../../core/exchange.js';
import type { WalletCheckId } from './exchange.js';
import { type ReadReply, readReply } from '../../protocol/seed/reply-read.js';
import { WalletTally } from './tally.js';
import { HeldCredentials } from './held-credentials.js';
import { INVALID, UNAUTHORIZED } from '../../protocol/seed/codes.js';
import { bodyDigest } from '../../kernel/digest.js';
import { FirstSettlements } from './settlements.js';
import { ReferenceLedger } from './reference.js';
import { judgeSerial, what } from './serial.js';
import { judgeHistory, type Overlapped } from './overlap.js';
import { DEFAULT_CONFIG, gameOf, MAX_TRANSACTIONS, type PlayerState, type TxState } from './grader-state.js';

/** What the wallet side is graded against: the provider's declared time-out, the credentials it was given, the wallet rules. */
export type WalletGraderOptions = WalletGradingOptions;

export type { WalletCheckReport } from './check-reports.js';

/** A wait this much short of the provider's time-out is this side's own, not the provider's (timers fire late, never early). */
const OWN_CUT_SLACK_MS = 100;

/**
 * The operator's wallet graded from what it answered: a fold over exchanges (`sent`, then
 * `answered`), one per session. Beside it runs the reference (./reference.ts): wallet-sim's own
 * wallet as a shadow ledger, which says what a correct wallet would have answered. A callback
 * answered while no other of its player was in flight is judged at once against it; callbacks of
 * one player that overlapped are judged together once the last is answered, as a history
 * (./overlap.ts). It never fails what it cannot judge.
 */
export class WalletGrader {
  private readonly players = new Map<string, PlayerState>();
  private readonly txs = new Map<string, TxState>();
  private readonly tallies = new Map<WalletCheckId, WalletTally>(WALLET_CHECKS.map((c) => [c.id, new WalletTally()]));
  /** Exchanges sent and not answered, for ANSWERS_IN_TIME's pending count: id → player. */
  private readonly waiting = new Map<number, string>();
  /** Players for whom the wallet applied an identical resend again (WALLET_IDEMPOTENT failed so). */
  private readonly reapplies = new Set<string>();
  private readonly settlements = new FirstSettlements(MAX_TRANSACTIONS);
  /** Histories of overlapping callbacks that could not be judged (past the search's bound), per player. */
  private readonly undecided = new Map<string, { n: number; why: Set<string> }>();
  private readonly reference: ReferenceLedger;
  /** Proxy mode: R0s to credentials other than the scenario's, held until the wallet accepts the scenario's. */
  private readonly held = new HeldCredentials();
  /** Sends and answers, numbered in the order they happened (a history's real-time order). */
  private seq = 0;
  /** Grows with every change (the dashboard's cue to refresh). */
  version = 0;

  constructor(private options: WalletGraderOptions) {
    this.reference = new ReferenceLedger(options.config ?? DEFAULT_CONFIG, options.closedWorld);
  }

  /** The thresholds or credentials changed without a new session. */
  use(options: WalletGraderOptions): void {
    this.options = options;
    this.reference.use(options.config ?? DEFAULT_CONFIG);
  }

  /** A callback went to the wallet. */
  sent(x: WalletExchange): void {
    this.version++;
    this.waiting.set(x.id, x.user ?? '');
    if (x.user === undefined) return;
    const p = this.player(x.user);
    if (p.inFlight.size === 0) {
      p.episode = [];
      p.opaque = false;
    }
    const op: Overlapped = { x, call: ++this.seq };
    p.inFlight.set(x.id, op);
    p.episode.push(op);
  }

  /** The exchange sent as `from` is `to` from now on (proxy mode cites its journal id, known once journalled). */
  rekey(from: number, to: number): void {
    const user = this.waiting.get(from);
    const flights = user === undefined ? undefined : this.players.get(user)?.inFlight;
    if (user === undefined || from === to || !this.waiting.delete(from)) return;
    this.waiting.set(to, user);
    const op = flights?.get(from);
    if (op && flights!.delete(from)) flights!.set(to, op);
  }

  /** The wallet answered it, or did not (`a.kind === 'none'`). A callback not `sent` first is taken as sent now. */
  answered(x: WalletExchange, a: WalletAnswer): void {
    if (!this.waiting.has(x.id)) this.sent(x);
    this.waiting.delete(x.id);
    this.version++;
    const user = x.user ?? '';
    const p = x.user === undefined ? undefined : this.player(x.user);
    const op = p?.inFlight.get(x.id);
    p?.inFlight.delete(x.id);
    if (op) Object.assign(op, { x, answer: a, ret: ++this.seq });

    const inTime = this.tally('WALLET_ANSWERS_IN_TIME');
    let reply: ReadReply | undefined;
    if (a.kind === 'none') {
      // This side's own wait (probe's --timeout, proxy mode's --upstream-timeout-ms) ran out before
      // the provider's time-out: the wallet may yet have answered in time. Not judged.
      if (!(a.cause === 'timeout' && a.at - x.sentAt + OWN_CUT_SLACK_MS < this.options.clientTimeoutMs)) {
        inTime.exercise(user);
        // A wallet not reached is not a slow one: the message (and the check's fix) says which it was.
        inTime.violate(a.cause === 'unreachable' ? `${what(x)}: ${a.why}` : `${what(x)}: no reply (${a.why})`, x, a);
      }
    } else {
      inTime.exercise(user);
      const ms = a.at - x.sentAt;
      if (ms > this.options.clientTimeoutMs)
        inTime.violate(
          `${what(x)}: answered after ${ms} ms, beyond the provider's time-out of ${this.options.clientTimeoutMs} ms (to the provider, a lost reply)`,
          x,
          a,
        );
      reply = readReply(x, a);
      const valid = this.tally('WALLET_REPLY_VALID');
      valid.exercise(user);
      if (reply.problems.length) valid.violate(`${what(x)}: ${reply.problems.join('; ')}`, x, a);
    }
    if (op) op.reply = reply;

    if (x.credentialsOk && reply?.code !== undefined && reply.code !== UNAUTHORIZED && !this.held.accepted)
      this.held.accept((hx, ha, hr) => this.refusesInvalid(hx, ha, hr), this.tally('WALLET_REFUSES_INVALID'));
    const graded = x.valid && x.credentialsOk && x.body !== undefined;
    if (!graded) {
      this.refusesInvalid(x, a, reply);
      // Applied (or perhaps): the round it names is the wallet's own from now on.
      const game = gameOf(x.body);
      if (x.user !== undefined && game !== undefined && reply?.verdict !== 'refused') this.reference.taint(x.user, game);
    }
    if (!p || !op) return;
    if (graded && x.tx !== undefined) this.idempotent(op, reply, p.episode.length === 1 && p.inFlight.size === 0);
    if (graded) op.firstSettlement = this.settlements.see(x, gameOf(x.body), () => bodyDigest(x.body));
    else if (!graded && reply?.verdict !== 'refused') p.opaque = true; // it may have moved money unseen

    if (p.inFlight.size > 0) return; // the episode goes on: judged once its last callback is answered
    if (p.episode.length === 1)
      judgeSerial(
        op,
        this.reference,
        (id) => this.tally(id),
        (u) => this.reapplies.has(u),
      );
    else this.history(x.user!, p);
  }

  /** A callback the schemas or the credentials refuse: never R0. */
  private refusesInvalid(x: WalletExchange, a: WalletAnswer, reply: ReadReply | undefined): void {
    if (!x.credentialsOk && reply?.verdict === 'applied' && !this.options.closedWorld && !this.held.accepted)
      return this.held.hold(x, a, reply);
    const invalid = this.tally('WALLET_REFUSES_INVALID');
    invalid.exercise(x.user ?? '');
    if (reply?.verdict === 'applied')
      invalid.violate(
        `${what(x)}: answered R0 to a callback ${x.credentialsOk ? 'that fails the schemas' : "with credentials other than the provider's"}; it should be refused (${x.credentialsOk ? INVALID : UNAUTHORIZED}) and change nothing`,
        x,
        a,
      );
  }

  /**
   * Idempotency: an identical resend of a transaction answered R0 is replayed (R0, nothing moved).
   * Marks `op` when it is such a resend. Its balance is judged here only when no other callback
   * of the player overlapped it (a history judges it otherwise).
   */
  private idempotent(op: Overlapped, reply: ReadReply | undefined, serial: boolean): void {
    const { x } = op;
    const a = op.answer!;
    const user = x.user!;
    const digest = bodyDigest(x.body);
    const known = this.txs.get(x.tx!);
    if (!known) this.remember(x.tx!, { digest });
    if (known?.applied && known.digest === digest) {
      op.resend = true;
      op.first = known.applied.balance;
      const idem = this.tally('WALLET_IDEMPOTENT');
      idem.exercise(user);
      if (reply?.verdict === 'refused')
        idem.violate(
          `${what(x)}: answered ${reply.code} to an identical resend of a transaction it applied (R0, #${known.applied.id}); replay R0 so the provider learns it was applied`,
          x,
          a,
        );
      // A player whose wallet already reported a wrong balance (WALLET_BALANCE_EXACT) is left to it:
      // the first reply's balance may be that wrong one, and a replay's then differs from it.
      else if (reply?.verdict === 'applied' && reply.balance && serial && !this.failed('WALLET_BALANCE_EXACT', user)) {
        const first = known.applied.balance;
        const before = this.reference.balance(user);
        // (the balance unknown: any it may be now, or any at all when nothing says)
        const now = this.reference.candidates(user);
        const fine = (first && reply.balance.eq(first)) || !now || now.some((b) => reply.balance!.eq(b));
        if (!fine) {
          idem.violate(
            `${what(x)}: the resend was answered with latest_balance ${reply.balance}, but the first reply (#${known.applied.id}) said ${first ?? 'nothing'} and the balance last reported was ${before ?? 'unknown'}: it was applied again, or the balance is wrong`,
            x,
            a,
          );
          this.reference.forget(user);
          this.reapplies.add(user);
          op.untrusted = true;
        }
      }
      return;
    }
    if (known && known.digest !== digest) return; // a reused id with another body: the reference judges it
    const state = this.txs.get(x.tx!)!;
    if (reply?.verdict === 'applied') {
      // An earlier attempt without a readable answer may have been applied then: this R0 may be its replay.
      if (state.uncertain && this.reference.appliedUnseen(x.tx!) === true) op.appliedUnseen = true;
      state.applied ??= { id: x.id, balance: reply.balance };
    } else if (reply?.verdict !== 'refused') state.uncertain = true;
  }

  /** The callbacks of one player that overlapped, judged together once the last was answered. */
  private history(user: string, p: PlayerState): void {
    const ops = p.episode;
    const safe = this.tally('WALLET_CONCURRENCY_SAFE');
    const start = this.reference.balance(user);
    // One root cause, one failure: a player whose serial arithmetic or balance check already failed is not judged again here.
    const rootCause = (['WALLET_BALANCE_EXACT', 'WALLET_REFUSES_SHORT_BET'] as const).find((id) => this.failed(id, user));
    const judged = judgeHistory(this.reference, ops, { start, opaque: p.opaque, rootCause });
    if (judged.verdict === 'ok') {
      safe.exercise(user);
      return;
    }
    if (judged.verdict === 'misapplied') {
      // R0s the rules refuse for the body or the round, not a race: each named by the check that owns it, as one at a time.
      safe.exercise(user);
      for (const { op, ref } of judged.faults) {
        if (ref.rule?.startsWith('TRANSACTION_REUSED') && this.reapplies.has(user)) continue; // WALLET_IDEMPOTENT's root cause
        const owner = this.tally(ref.kind === 'invalid' ? 'WALLET_REFUSES_INVALID' : 'WALLET_ROUND_RULES');
        owner.exercise(user);
        owner.violate(`${what(op.x)}: answered R0 where the wallet rules answer ${ref.code} (${ref.rule})`, op.x, op.answer!);
      }
      return;
    }
    if (judged.verdict === 'inexact') {
      // The wallet's arithmetic, not a race: named once, by the check that owns it.
      const exact = this.tally('WALLET_BALANCE_EXACT');
      exact.exercise(user);
      exact.violate(judged.message, judged.op.x, judged.op.answer!);
    }
    if (judged.verdict === 'unknown' || judged.verdict === 'inexact') {
      const u = this.undecided.get(user) ?? { n: 0, why: new Set<string>() };
      u.n++;
      u.why.add(judged.verdict === 'unknown' ? judged.why : 'see WALLET_BALANCE_EXACT');
      this.undecided.set(user, u);
      return;
    }
    safe.exercise(user);
    safe.violateAll(
      judged.message,
      ops.map((o) => [o.x, o.answer!] as const),
    );
  }

  /** The player already failed the check. */
  private failed(id: WalletCheckId, user: string): boolean {
    const v = this.tally(id).violationsOf(user);
    return v.list.length + v.more > 0;
  }

  private player(user: string): PlayerState {
    let p = this.players.get(user);
    if (!p) this.players.set(user, (p = { inFlight: new Map(), episode: [], opaque: false }));
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
    const mine = (u: string) => userId === undefined || u === userId;
    let pending = 0;
    for (const u of this.waiting.values()) if (mine(u)) pending++;
    let undecided = 0;
    const why = new Set<string>();
    for (const [u, d] of this.undecided)
      if (mine(u)) {
        undecided += d.n;
        for (const w of d.why) why.add(w);
      }
    return checkReports((id) => this.tally(id), userId, { pending, undecided, why: [...why], held: this.held.count(mine) });
  }
}
