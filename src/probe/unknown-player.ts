import { FAILED, INVALID, NOT_ENOUGH_BALANCE, SUCCESS, UNAUTHORIZED } from '../protocol/seed/codes.js';
import { betRequest, betResultRequest, loginRequest, newTransactionId } from '../protocol/seed/callbacks.js';
import { ZERO } from '../kernel/money.js';
import { line, newRound } from './moves.js';
import type { Check } from './session.js';

/**
 * A player the wallet never saw: refused (any of R1-R3) is right; so is creating it, as a sandbox
 * does, provided the wallet then holds it to the balance it reported. What fails is R0 on money that
 * is not there: a bet above the balance it just gave the stranger. Where that balance was a real one
 * (above zero), such an R0 is a short bet like any other, WALLET_REFUSES_SHORT_BET's to name: this
 * check then says "see" it. A balance of zero or less is no account at all, and stays this check's.
 */
export async function unknownPlayer(c: Check): Promise<void> {
  const stranger = `${c.target.user}-unknown-${newTransactionId('p')}`;
  const env = () => c.session.env({ user_id: stranger });
  // The stranger is this check's alone: what its exchanges break is this check's root cause, named once.
  c.ownsExchanges = true;
  const login = await c.send(`login of ${stranger}, a player the wallet never saw`, loginRequest(env()));
  if (login.unusable || login.code !== SUCCESS) return; // refused: right
  c.warn(
    `the wallet answered ${login.code} to a login of ${stranger}, a player it never saw` +
      `${login.balanceText === undefined ? '' : ` (balance ${login.balanceText})`}: it creates unknown players. ` +
      `A sandbox may; a production wallet should refuse a player it does not know (${INVALID}), never open an account on sight`,
  );
  if (login.balance === undefined) return c.notJudged('WALLET_REPLY_VALID', `the wallet answered ${SUCCESS} without a balance`);
  // Created: it must then hold the player to the balance it reported.
  const over = login.balance.toDecimalPlaces(c.target.scale, 0).plus(c.session.unit);
  const r = newRound(c.target);
  const bets = [line('1', 'P', over)];
  const bet = betRequest(c.session.env({ user_id: stranger, transaction_id: newTransactionId('provoke-unknown') }), r, bets);
  const created = login.balance.gt(0);
  const reply = await c.send(`bet of ${over.toFixed()} for ${stranger} (balance ${login.balance.toFixed()})`, bet, {
    expect: [NOT_ENOUGH_BALANCE, INVALID, UNAUTHORIZED, FAILED],
    why: `the wallet answered R0 for a player it did not know and then accepted a bet above the balance it gave it: money that is not there`,
    ownedBy: created
      ? {
          id: 'WALLET_REFUSES_SHORT_BET',
          why: `the wallet created ${stranger} with a balance of ${login.balance.toFixed()}, then answered R0 to a bet of ${over.toFixed()} above it: a short bet accepted`,
        }
      : undefined,
  });
  if (reply.code === SUCCESS) {
    const push = betResultRequest(env(), r, [{ ...bets[0]!, winloss: ZERO }]);
    await c.send(`settle ${r.game_no} of ${stranger} (push)`, push);
  }
}
