import { type Money, money } from '../../kernel/money.js';
import type { WalletAnswer, WalletExchange } from '../../core/exchange.js';
import { NOT_ENOUGH_BALANCE, SUCCESS } from '../../protocol/seed/codes.js';
import { EVENT } from '../../protocol/seed/wire.js';
import { eventOf } from '../../protocol/seed/index.js';
import type { ReadReply } from '../../protocol/seed/reply-read.js';
import type { CallbackRequest } from '../../protocol/types.generated.js';
import { type HistoryOp, linearize, MAX_OPS } from './history.js';
import type { ReferenceAnswer, ReferenceLedger, Scratch } from './reference.js';
import type { Change } from '../../ledger/change.js';

/**
 * Callbacks of one player that overlapped (each sent before another's reply came back), judged as
 * a history: the wallet passes when some serial order of them, keeping the real-time order, makes
 * the reference (./reference.ts) answer what the wallet answered: every R0 an R0 with the balance
 * the wallet reported, every R4's balance the balance as it stood. A callback without a readable
 * answer may or may not have been applied: both are tried. A negative balance fails in any order.
 */

/** One callback of an episode: sent (`call`), answered (`ret`), and how, in the grader's numbering. */
export interface Overlapped {
  x: WalletExchange;
  call: number;
  ret?: number;
  answer?: WalletAnswer;
  reply?: ReadReply;
  /** An identical resend of a transaction the wallet answered R0, with that first reply's balance. */
  resend?: boolean;
  first?: Money;
  firstSettlement?: boolean; // its round's first settlement sent, or an identical resend of it (./settlements.ts)
  /** Its balance failed WALLET_IDEMPOTENT: not taken as the player's. */
  untrusted?: boolean;
  /**
   * An identical resend of a transaction an earlier attempt of which got no readable answer, and a
   * balance reported since showed the wallet applied it then: a replay, which moves nothing.
   */
  appliedUnseen?: boolean;
}

export type HistoryVerdict =
  | { verdict: 'ok' }
  | { verdict: 'unknown'; why: string }
  | { verdict: 'illegal'; message: string }
  /** No order explains it, and one reported balance no interleaving could give: WALLET_BALANCE_EXACT's defect, not a race. */
  | { verdict: 'inexact'; op: Overlapped; message: string }
  /**
   * An order explains it once R0s the wallet rules refuse for the body or the round are taken as the
   * wallet answered them: those are the defects (each its owning check's, as one at a time), not a race.
   */
  | { verdict: 'misapplied'; faults: readonly Fault[] };

/** An R0 the reference refuses for its body or its round, in the order that explains a history. */
export interface Fault {
  op: Overlapped;
  ref: ReferenceAnswer;
  /** Its round can no longer be followed (the reference taints it). */
  lost: boolean;
}

/** A state of the search: the reference's changes along the order tried, the balance they leave, which callbacks they applied. */
interface Tried {
  path: readonly Change[];
  balance: Money;
  /** A bit per callback of the history that the order applied. */
  applied: number;
  /** The balance right after each transaction the order applied (a replay of it may report that one). */
  after: string;
  /** R0s the reference refuses for the body or the round, taken as the wallet answered them (a lenient search only). */
  faults: readonly Fault[];
}

/** Model steps one history may take (ten simultaneous bets that no order explains take about 10,000). */
const BUDGET = 50_000;

const graded = (o: Overlapped) => o.x.valid && o.x.credentialsOk && o.x.body !== undefined && o.x.tx !== undefined;
/** The reply's code when it is one the protocol knows and came with HTTP 200. */
const codeOf = (o: Overlapped) => (o.answer?.kind === 'reply' && o.answer.status === 200 ? o.reply?.code : undefined);

/**
 * Judges the episode `ops` of one player (every one answered), then brings the reference up to what
 * the wallet did: the order found, or (when none explains it, or it could not be judged) each R0
 * followed as the wallet answered it, with the balance unknown until the next callback reports one.
 */
export function judgeHistory(
  reference: ReferenceLedger,
  ops: readonly Overlapped[],
  o: { start: Money | undefined; opaque: boolean; rootCause?: string },
): HistoryVerdict {
  const judged = ops.filter(graded);
  const user = ops[0]!.x.user!;
  // A bet applied below zero from a balance that was not: whatever the order, an overdraft.
  const negative =
    o.start?.isNeg() === true
      ? undefined
      : ops.find((op) => op.x.event === EVENT.bet && codeOf(op) === SUCCESS && op.reply?.balance?.isNeg());
  let verdict: HistoryVerdict;
  if (o.rootCause) verdict = { verdict: 'unknown', why: `see ${o.rootCause}` };
  else if (negative) {
    verdict = {
      verdict: 'illegal',
      message: `${ops.length} overlapping callbacks of ${user}: ${describe(negative)} reported a negative balance (${negative.reply!.balance}): the wallet let simultaneous callbacks overdraw the balance (${replies(ops)})`,
    };
  } else if (o.opaque) verdict = { verdict: 'unknown', why: 'a callback among them may have moved money the wallet rules would not' };
  else if (o.start === undefined) verdict = { verdict: 'unknown', why: "the player's balance before them is not known" };
  else {
    const reqs = judged.map((op) => op.x.body as CallbackRequest);
    if (reqs.some((r) => reference.isTainted(r))) verdict = { verdict: 'unknown', why: 'a round among them is no longer followed' };
    else {
      const scratch = reference.scratch(reqs);
      const found = search(scratch, judged, o.start);
      if (found.verdict === 'ok') {
        reference.apply(found.state.path);
        // A callback without a readable answer leaves the balance open (applied or not).
        if (judged.every((op) => op.reply?.verdict === 'applied' || op.reply?.verdict === 'refused'))
          reference.report(user, found.state.balance);
        else reference.forget(user);
        return { verdict: 'ok' };
      }
      const inexact = found.verdict === 'illegal' ? arithmetic(reference, scratch, judged, o.start) : undefined;
      // Explained once the R0s the rules refuse for the body or the round are taken as answered: those are the defects.
      const lenient = found.verdict === 'illegal' && !inexact ? search(scratch, judged, o.start, true) : undefined;
      if (lenient?.verdict === 'ok') {
        reference.apply(lenient.state.path);
        for (const f of lenient.state.faults) {
          const game = f.lost ? eventOf(f.op.x.body as CallbackRequest).gameNo(f.op.x.body as CallbackRequest) : undefined;
          if (game !== undefined) reference.taint(user, game);
        }
        reference.forget(user);
        return { verdict: 'misapplied', faults: lenient.state.faults };
      }
      verdict = inexact
        ? { verdict: 'inexact', op: inexact.op, message: `${inexact.message}, among ${ops.length} overlapping callbacks (${replies(ops)})` }
        : found.verdict === 'unknown'
          ? {
              verdict: 'unknown',
              why: found.steps ? `past the search's bound of ${found.steps} steps` : `more than ${MAX_OPS} callbacks at once`,
            }
          : {
              verdict: 'illegal',
              message: `${ops.length} overlapping callbacks of ${user}: no serial order of them explains what the wallet answered, from the balance of ${o.start} (${replies(ops)}): ${raceOf(ops)}; the wallet rules answer them as if one after another`,
            };
    }
  }
  // Follow the wallet: each R0 as it answered, in the order it answered; the balance is then unknown.
  for (const op of [...judged].sort((a, b) => a.ret! - b.ret!)) {
    if (op.reply?.verdict !== 'applied' || op.resend) continue;
    const req = op.x.body as CallbackRequest;
    try {
      const ref = reference.decide(req);
      if (ref.code === SUCCESS) reference.apply(ref.changes);
      else reference.follow(req, undefined);
    } catch {
      reference.follow(req, undefined);
    }
  }
  reference.forget(user);
  return verdict;
}

/**
 * A reported balance no interleaving of the history could give, even one that loses an update: the
 * wallet's arithmetic, not its locking (one defect, named once, by WALLET_BALANCE_EXACT). An R0 to a
 * new transaction reports the balance before the history moved by its own amount and by those of
 * some of the others, each at most once: anything outside those bounds (a bet that reports the
 * balance from before its debit), or with more fraction digits than the currency has (a balance kept
 * in binary floats: 999.4000000000001), is no race. Not said when a callback among them is one the
 * reference refuses for its body (its amount is then not the one the wallet moved).
 */
function arithmetic(
  reference: ReferenceLedger,
  scratch: Scratch,
  ops: readonly Overlapped[],
  start: Money,
): { op: Overlapped; message: string } | undefined {
  const moves = ops.map((op) => moveOf(op.x.body as CallbackRequest));
  if (moves.some((m) => m === undefined)) return undefined;
  if (ops.some((op) => scratch.decide([], op.x.body as CallbackRequest).kind === 'invalid')) return undefined;
  for (const [i, op] of ops.entries()) {
    const reported = op.reply?.balance;
    if (codeOf(op) !== SUCCESS || !reported || op.resend) continue;
    const req = op.x.body as CallbackRequest;
    const { currency, scale } = reference.scaleOf(req);
    if (reported.decimalPlaces() > scale)
      return {
        op,
        message: `${describe(op)} of ${op.x.user}: answered R0 with latest_balance ${reported}, more fraction digits than ${currency} has (${scale}): not an exact decimal, from the balance of ${start}`,
      };
    let low = start.plus(moves[i]!);
    let high = low;
    for (const [j, m] of moves.entries())
      if (j !== i) {
        if (m!.isNeg()) low = low.plus(m!);
        else high = high.plus(m!);
      }
    if (reported.lt(low) || reported.gt(high))
      return {
        op,
        message: `${describe(op)} of ${op.x.user}: answered R0 with latest_balance ${reported}, from the balance of ${start}: its own move of ${moves[i]} and any of the others' make it between ${low} and ${high}`,
      };
  }
  return undefined;
}

/** How a callback moves the balance when applied, from its own amounts (unknown for an event the protocol does not name). */
function moveOf(req: CallbackRequest): Money | undefined {
  const d = (req as { data?: { total_bet_amount?: unknown; total_winloss?: unknown } }).data;
  const stake = typeof d?.total_bet_amount === 'number' ? money(d.total_bet_amount) : undefined;
  const winloss = typeof d?.total_winloss === 'number' ? money(d.total_winloss) : undefined;
  if (req.event_type === EVENT.login) return money(0);
  if (req.event_type === EVENT.bet) return stake?.neg();
  if (req.event_type === EVENT.betResult) return stake && winloss && stake.plus(winloss);
  return undefined;
}

/**
 * The orders the real-time order allows, tried until one explains every answer. An R0 the reference
 * refuses by a rule the checks never judge (a round that may have begun before the session) is
 * followed as the wallet answered it; `lenient`: one it refuses for the body or the round too, as
 * a fault of that order.
 */
function search(scratch: Scratch, ops: readonly Overlapped[], start: Money, lenient = false) {
  const history: HistoryOp<Overlapped>[] = ops.map((op) => ({ call: op.call, ret: op.ret!, input: op }));
  const bit = new Map(ops.map((op, i) => [op, 1 << i]));
  const step = (s: Tried, h: HistoryOp<Overlapped>): Tried[] => {
    const op = h.input;
    const ref = scratch.decide(s.path, op.x.body as CallbackRequest);
    const reported = op.reply?.balance;
    const code = codeOf(op);
    const apply = (): Tried => ({
      path: [...s.path, ...ref.changes],
      balance: ref.balance,
      applied: s.applied | bit.get(op)!,
      after: ref.replayed ? s.after : `${s.after}${JSON.stringify([op.x.tx, ref.balance.toFixed()])}`,
      faults: s.faults,
    });
    const firstHere = (m: Money) => s.after.includes(JSON.stringify([op.x.tx, m.toFixed()]));
    const taken = (changes: readonly Change[], balance: Money, faults = s.faults): Tried => ({
      path: [...s.path, ...changes],
      balance,
      applied: s.applied | bit.get(op)!,
      after: `${s.after}${JSON.stringify([op.x.tx, balance.toFixed()])}`,
      faults,
    });
    if (code === SUCCESS) {
      if (ref.code !== SUCCESS) {
        const judgedRule = ref.kind !== 'unjudged';
        if (ref.kind === 'short' || !reported || (judgedRule && !lenient)) return [];
        // Followed only at the balance its own move makes: a followed R0 never hides another callback's lost update.
        const move = moveOf(op.x.body as CallbackRequest);
        if (!move || !reported.eq(s.balance.plus(move))) return [];
        const followed = scratch.follow(s.path, op.x.body as CallbackRequest, reported);
        // (a rule never judged is followed only while its round can be: else the history is not judged)
        if (!followed || (followed.lost && !judgedRule)) return [];
        return [taken(followed.changes, reported, judgedRule ? [...s.faults, { op, ref, lost: followed.lost }] : s.faults)];
      }
      // A replay may report the first reply's balance or the current one (the protocol leaves the choice).
      const replayOk = (m: Money) => ref.replayed && ((op.first && m.eq(op.first)) || firstHere(m));
      // A resend of a transaction the wallet applied unseen (./reference.ts, appliedUnseen): a replay, the balance as it stood.
      if (op.appliedUnseen && !ref.replayed)
        return reported && !reported.eq(s.balance) ? [] : [taken([...ref.changes, ...balanceOf(ref.changes, s.balance)], s.balance)];
      if (reported && !reported.eq(ref.balance) && !replayOk(reported)) return [];
      return [apply()];
    }
    if (code === NOT_ENOUGH_BALANCE) return reported && !reported.eq(s.balance) ? [] : [s];
    if (op.reply?.verdict === 'refused') return [s];
    // No readable answer: applied or not.
    return ref.code === SUCCESS && !ref.replayed ? [apply(), s] : [s];
  };
  return linearize<Tried, Overlapped>(
    history,
    { path: [], balance: start, applied: 0, after: '', faults: [] },
    step,
    (s) => `${s.balance.toFixed()}|${s.applied}|${s.after}|${s.faults.map((f) => f.op.call).join(',')}`,
    BUDGET,
  );
}

/** The player's record in `changes` at the balance `balance` (a change that sets it so). */
function balanceOf(changes: readonly Change[], balance: Money): Change[] {
  const p = changes.find((c) => c.op === 'player');
  return p ? [{ ...p, balance: balance.toFixed() }] : [];
}

const describe = (op: Overlapped) => `${op.x.event ?? 'callback'} ${op.x.tx ?? ''} (#${op.x.id})`.replace('  ', ' ');

/** The race the answers show: two copies of one transaction in flight (its transaction_id twice), or callbacks of several. */
const raceOf = (ops: readonly Overlapped[], txs = ops.map((op) => op.x.tx), twice = txs.find((tx, i) => txs.indexOf(tx) !== i)) =>
  twice
    ? `two copies of transaction ${twice} in flight, applied twice (claim the transaction_id under the player's lock) or a lost update`
    : 'a lost update or a double debit';
/** What the wallet answered to each, in the order it answered: "bet t1 (#3) R0 20". */
function replies(ops: readonly Overlapped[]): string {
  return [...ops]
    .sort((a, b) => a.ret! - b.ret!)
    .map((op) => {
      const answer = op.reply?.code ?? (op.answer?.kind === 'none' ? 'no reply' : 'no readable code');
      return `${describe(op)} ${answer}${op.reply?.balance ? ` ${op.reply.balance}` : ''}`;
    })
    .join(', ');
}
