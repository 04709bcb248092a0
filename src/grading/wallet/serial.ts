import { type Money, money } from '../../kernel/money.js';
import type { WalletExchange } from '../../core/exchange.js';
import { NOT_ENOUGH_BALANCE, SUCCESS } from '../../protocol/seed/codes.js';
import type { ReadReply } from '../../protocol/seed/reply-read.js';
import type { CallbackRequest } from '../../protocol/types.generated.js';
import type { WalletCheckId } from './exchange.js';
import { SETTLEMENT_REFUSED } from './checks.js';
import type { Overlapped } from './overlap.js';
import type { ReferenceAnswer, ReferenceLedger } from './reference.js';
import type { WalletTally } from './tally.js';

/**
 * One callback no other of its player overlapped, judged at once against the reference: where the
 * wallet answered R0 and the reference would not, the check that owns that kind of refusal fails
 * (WALLET_REFUSES_SHORT_BET, WALLET_ROUND_RULES, WALLET_REFUSES_INVALID), citing the rule; where
 * both applied it, the balances must agree (WALLET_BALANCE_EXACT). The reference then follows the
 * wallet: its balance is what the wallet reported, or unknown after an answer nobody can read.
 */
/** A callback no other of its player overlapped: judged against the reference at once. */
export function judgeSerial(
  op: Overlapped,
  reference: ReferenceLedger,
  tally: (id: WalletCheckId) => WalletTally,
  reapplies: (user: string) => boolean,
): void {
  const { x, reply } = op;
  const a = op.answer!;
  const user = x.user!;
  const graded = x.valid && x.credentialsOk && x.body !== undefined;
  const verdict = reply?.verdict ?? 'invalid';
  if (op.untrusted) return;
  if (!graded || op.resend) {
    // A replay may report its first reply's balance, which other callbacks have moved since: that is
    // no balance to follow (WALLET_IDEMPOTENT judged the replay). Only the current one is taken.
    const now = reference.candidates(user);
    if (op.resend && op.first && reply?.balance?.eq(op.first) && !now?.every((b) => reply.balance!.eq(b))) return;
    // Not the reference's to decide: its balance is taken as reported (an R0's or R4's), or unknown.
    if (reply && (reply.code === SUCCESS || reply.code === NOT_ENOUGH_BALANCE) && reply.balance && a.kind === 'reply' && a.status === 200)
      reference.report(user, reply.balance);
    else if (verdict === 'invalid' || verdict === 'unknown') reference.forget(user);
    return;
  }
  const req = x.body as CallbackRequest;
  let ref: ReferenceAnswer;
  try {
    if (reference.isTainted(req)) throw new Error('a round the reference no longer follows');
    ref = reference.decide(req);
  } catch {
    return followWallet(reference, req, reply);
  }
  const before = reference.balance(user);
  // A wallet that applied an identical resend again keeps no transaction_ids at all: a reused one
  // is that root cause, WALLET_IDEMPOTENT's, and is neither judged nor counted here. (A wallet that
  // refused an identical resend does keep them: answering R0 to a reused one is a fault of its own.)
  const leftToIdempotent = ref.kind === 'round' && ref.rule?.startsWith('TRANSACTION_REUSED') === true && reapplies(user);
  if (ref.kind === 'round' && !leftToIdempotent) tally('WALLET_ROUND_RULES').exercise(user);
  if (ref.kind === 'invalid') tally('WALLET_REFUSES_INVALID').exercise(user);
  if (ref.kind === 'short' && before) tally('WALLET_REFUSES_SHORT_BET').exercise(user);

  if (verdict === 'applied') {
    if (ref.code === SUCCESS) {
      reference.apply(ref.changes);
      let misreported: Money | undefined;
      if (op.appliedUnseen && before && reply!.balance && !ref.replayed) {
        // Its first attempt got no readable answer, and a balance reported since showed it applied: a replay moves nothing.
        const exact = tally('WALLET_BALANCE_EXACT');
        exact.exercise(user);
        if (!reply!.balance.eq(before))
          exact.violate(
            `${what(x)}: the balance went from ${before} to ${reply!.balance}; its transaction was already applied (an attempt without a readable answer, as the balance reported since showed), so a resend moves nothing and leaves it at ${before}`,
            x,
            a,
          );
      } else if (before && reply!.balance && !ref.replayed) {
        const exact = tally('WALLET_BALANCE_EXACT');
        exact.exercise(user);
        // After a misreported balance: the move from the reference's own figure is right too (one lie, one violation).
        const own = reference.disputed(user)?.plus(ref.balance.minus(before));
        if (!reply!.balance.eq(ref.balance) && !own?.eq(reply!.balance)) {
          exact.violate(
            `${what(x)}: the balance went from ${before} to ${reply!.balance}; ${describeMove(before, ref.balance, x.event)} (off by ${reply!.balance.minus(ref.balance)})`,
            x,
            a,
          );
          misreported = ref.balance;
        }
      }
      if (reply!.balance) reference.report(user, reply!.balance);
      else reference.forget(user);
      if (misreported) reference.dispute(user, misreported);
      return;
    }
    const answered = `answered R0 where the wallet rules answer ${ref.code}`;
    if (ref.kind === 'short' && before)
      tally('WALLET_REFUSES_SHORT_BET').violate(
        `${what(x)}: a bet of ${stakeOf(req)} above the balance of ${before} it last reported was answered R0 (${NOT_ENOUGH_BALANCE} expected)`,
        x,
        a,
      );
    else if (leftToIdempotent) void 0;
    else if (ref.kind === 'round') tally('WALLET_ROUND_RULES').violate(`${what(x)}: ${answered} (${ref.rule})`, x, a);
    else if (ref.kind === 'invalid') tally('WALLET_REFUSES_INVALID').violate(`${what(x)}: ${answered} (${ref.rule})`, x, a);
    reference.follow(req, reply!.balance);
    return;
  }
  if (verdict === 'refused') {
    if (reply!.code === NOT_ENOUGH_BALANCE && reply!.balance && a.kind === 'reply' && a.status === 200)
      reference.report(user, reply!.balance);
    // A settlement the wallet rules apply is of a round whose bets the wallet answered R0 in this
    // session (one the reference never saw bet, or whose stake differs, it refuses): refused, the
    // stake stays with the wallet and the round open for good. (An R1 may be retried: not refused.)
    // Not judged: a wallet that applied a resend again holds other stakes than its bets (WALLET_IDEMPOTENT's
    // root cause); another settlement than the round's first (that one may have settled it unseen); a
    // currency whose scale the reference only guesses (a 0-digit currency's wallet refusing 0.5 is right).
    if (op.firstSettlement && ref.code === SUCCESS && !ref.replayed && !reapplies(user) && reference.declaresScale(req)) {
      const rules = tally('WALLET_ROUND_RULES');
      rules.exercise(user);
      rules.violate(
        `${what(x)}: ${SETTLEMENT_REFUSED} (answered ${reply!.code}): its bets were answered ${SUCCESS} and it settles them`,
        x,
        a,
      );
    }
    return;
  }
  // No readable answer (R1, a reply that is not one, none): it may have been applied (the next balance reported may say).
  if (ref.code === SUCCESS && !ref.replayed) {
    reference.forget(user);
    reference.unsureOf(user, x.tx!, ref);
  }
}

/** A callback the reference cannot decide: the wallet's balance is taken as it reports it. */
function followWallet(reference: ReferenceLedger, req: CallbackRequest, reply: ReadReply | undefined): void {
  if (reply?.verdict === 'applied') reference.follow(req, reply.balance);
  else if (reply?.code === NOT_ENOUGH_BALANCE && reply.balance) reference.report(req.user_id, reply.balance);
  else if (reply?.verdict !== 'refused') reference.forget(req.user_id);
}

export const what = (x: WalletExchange) =>
  `${x.event ?? 'callback'} ${x.tx ?? ''} of ${x.user ?? '(no user_id)'} (#${x.id})`.replace('  ', ' ');

/** A bet's total stake, as the request wrote it. */
const stakeOf = (req: CallbackRequest): string => {
  const stake = (req as { data?: { total_bet_amount?: unknown } }).data?.total_bet_amount;
  return typeof stake === 'number' ? money(stake).toFixed() : '?';
};

/** What the wallet rules make of the balance: "a debit of 10 makes it 90". */
function describeMove(before: Money, after: Money, event: string | undefined): string {
  const delta = after.minus(before);
  if (event === 'login') return `a login moves nothing, which makes it ${after}`;
  return delta.isNeg() ? `a debit of ${delta.neg()} makes it ${after}` : `a credit of ${delta} (stake + winloss) makes it ${after}`;
}
