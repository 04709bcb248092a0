import { FAILED, INVALID, NOT_ENOUGH_BALANCE, SUCCESS, UNAUTHORIZED } from '../protocol/seed/codes.js';
import { FIELD, HEADER_NAME } from '../protocol/seed/wire.js';
import { betRequest, betResultRequest, loginRequest, newTransactionId } from '../protocol/seed/callbacks.js';
import { ZERO } from '../kernel/money.js';
import { concurrentBets, concurrentOverdraw } from './concurrent-checks.js';
import { line, newRound, placeBet, settle } from './moves.js';
import { firstBetStop } from './stops.js';
import type { Check, Session } from './session.js';
import type { CheckName, OpenRound } from './types.js';

/**
 * The checks of the normal play and of the provider's mistakes a wallet must survive: each opens its
 * own rounds and settles them (bet and settle-win share one). A check asserts the codes; the money
 * after each serial reply is graded by the wallet checks, which see every exchange.
 */

/** A check of the battery: its name in the report, what it shows, what to fix when it fails, how it plays. */
export interface ProbeCheck {
  name: CheckName;
  description: string;
  fix: string;
  run: (c: Check) => Promise<void>;
}

const IDEMPOTENT = 'WALLET_IDEMPOTENT';
const APPLY = 'Apply a valid callback: debit the bet (or credit stake + winloss on bet_result) and answer R0 with latest_balance.';

/** The standard checks, in the order they run. */
export function standardChecks(s: Session): ProbeCheck[] {
  // Opened by the bet check, settled by settle-win.
  const win: OpenRound = { round: newRound(s.target), bets: [line('1', 'P', s.amount(1)), line('2', 'PP', s.amount(2))] };
  return [
    { name: 'bet', description: 'a valid bet of two lines is applied (R0)', fix: APPLY, run: (c) => betTwoLines(c, win) },
    { name: 'settle-win', description: 'a winning settlement is applied (R0)', fix: APPLY, run: (c) => settleWin(c, win) },
    { name: 'settle-loss', description: 'a lost round is settled (R0)', fix: APPLY, run: settleLoss },
    { name: 'settle-push', description: 'a push is settled (R0)', fix: APPLY, run: settlePush },
    {
      name: 'insufficient-funds',
      description: 'a bet over the balance is played (WALLET_REFUSES_SHORT_BET grades the answer)',
      fix: 'Answer R4 with latest_balance to a bet the balance cannot cover, and debit nothing.',
      run: insufficientFunds,
    },
    {
      name: 'bad-credentials',
      description: 'a login and a bet with a wrong Api-Key get R2',
      fix: 'Compare Api-Id and Api-Key with the values you gave the provider on every callback; answer R2 and change nothing when they differ.',
      run: badCredentials,
    },
    {
      name: 'wrong-api-id',
      description: 'a login and a bet with a wrong Api-Id (right Api-Key) get R2',
      fix: 'Check Api-Id too, not only Api-Key: answer R2 when it is not the one you gave the provider.',
      run: wrongApiId,
    },
    {
      name: 'bad-credentials-settlement',
      description: 'a bet_result with a wrong Api-Key gets R2 and settles nothing',
      fix: 'Authenticate bet_result like login and bet: a settlement with wrong credentials gets R2 and credits nothing.',
      run: badCredentialsSettlement,
    },
    {
      name: 'duplicate-replay',
      description: 'a bet and a settlement sent twice (WALLET_IDEMPOTENT grades the resends)',
      fix: 'Key every transaction on its transaction_id: an identical resend is answered R0 again and changes nothing.',
      run: duplicateReplay,
    },
    {
      name: 'conflicting-reuse',
      description: 'a transaction_id reused with another body is refused',
      fix: 'When a transaction_id you applied arrives with another body, refuse it (R3) and change nothing.',
      run: conflictingReuse,
    },
    {
      name: 'concurrent-bets',
      description: 'simultaneous bets and settlements on one player all count, exactly once',
      fix: "Serialize each player's read-modify-write (a row lock, a per-player queue, or a compare-and-set): concurrent callbacks must not lose updates.",
      run: concurrentBets,
    },
    {
      name: 'malformed-body',
      description: 'a body that is not JSON gets R3 (HTTP 200)',
      fix: 'Read the body defensively: a body that does not parse is answered HTTP 200 with R3, never a 4xx/5xx or a crash.',
      run: malformedBody,
    },
  ];
}

/**
 * Run last: a wallet that lets simultaneous bets overdraw, or settles without giving the stake back,
 * may leave the player without the funds the other checks need.
 */
export function lastChecks(): ProbeCheck[] {
  return [
    {
      name: 'concurrent-overdraw',
      description: 'simultaneous bets worth more than the balance: the wallet never accepts more than it has',
      fix: 'Check the balance and debit under one per-player lock (or an atomic conditional update): a check, then an await, then the debit lets concurrent bets overdraw.',
      run: concurrentOverdraw,
    },
  ];
}

async function betTwoLines(c: Check, win: OpenRound): Promise<void> {
  await c.login();
  const reply = await placeBet(c, 'bet', win.round, win.bets);
  // The battery's first bet, a valid one: refused, nothing else can run (often --currency is not the player's).
  const stake = win.bets.reduce((a, b) => a.plus(b.bet_amount), ZERO);
  const what = `a valid bet of ${stake.toFixed()} ${c.target.currency}`;
  const logins = [c.session.wire.exchanges[0]!, ...c.exchanges.slice(0, -1)];
  const stopped = reply.code && firstBetStop(c.exchanges[reply.index]!, reply.code, logins, c.target, what);
  if (stopped) c.stop(stopped, reply.index);
}

async function settleWin(c: Check, win: OpenRound): Promise<void> {
  if (!c.session.open.has(win.round.game_no)) return c.notJudged('bet', 'the bet check opened no round to settle');
  await c.login();
  // P pays 1:1, the player pair 11:1.
  await settle(c, 'bet_result (win)', win.round, [
    { ...win.bets[0]!, winloss: c.amount(1) },
    { ...win.bets[1]!, winloss: c.amount(22) },
  ]);
}

async function settleLoss(c: Check): Promise<void> {
  await c.login();
  const r = newRound(c.target);
  const bets = [line('1', 'B', c.amount(2))];
  if ((await placeBet(c, 'bet', r, bets)).code !== SUCCESS) return;
  await settle(c, 'bet_result (loss)', r, [{ ...bets[0]!, winloss: c.amount(2).neg() }]);
}

async function settlePush(c: Check): Promise<void> {
  await c.login();
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(7))];
  if ((await placeBet(c, 'bet', r, bets)).code !== SUCCESS) return;
  await settle(c, 'bet_result (push)', r, [{ ...bets[0]!, winloss: ZERO }]);
}

async function insufficientFunds(c: Check): Promise<void> {
  const balance = await c.login();
  if (balance === undefined) return c.skip('the login gave no balance to bet over');
  const r = newRound(c.target);
  const over = balance.toDecimalPlaces(c.target.scale, 0 /* ROUND_UP */).plus(c.session.unit);
  // The provocation: graded by WALLET_REFUSES_SHORT_BET, not here (one failure per root cause).
  await placeBet(c, `bet of ${over.toFixed()} (balance ${balance.toFixed()})`, r, [line('1', 'P', over)], {
    transaction_id: newTransactionId('provoke-short-bet'),
    expect: [NOT_ENOUGH_BALANCE, SUCCESS],
  });
  await c.login('login (balance check)');
}

const wrongKey = (c: Check) => ({ apiId: c.target.apiId, apiKey: `${c.target.apiKey}-wrong` });
const wrongId = (c: Check) => ({ apiId: `${c.target.apiId}-wrong`, apiKey: c.target.apiKey });

async function refusedCredentials(c: Check, credentials: { apiId: string; apiKey: string }, what: string): Promise<void> {
  await c.login();
  const why = `a callback with a wrong ${what} is unauthorized`;
  await c.send(`login with a wrong ${what}`, loginRequest(c.session.env()), { expect: [UNAUTHORIZED], credentials, why });
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(1))];
  const reply = await c.send(`bet with a wrong ${what}`, betRequest(c.session.env(), r, bets), {
    expect: [UNAUTHORIZED],
    credentials,
    why,
  });
  if (reply.code === SUCCESS) c.opened(r, bets);
  await c.login('login (balance check)');
}

const badCredentials = (c: Check) => refusedCredentials(c, wrongKey(c), HEADER_NAME.apiKey);
const wrongApiId = (c: Check) => refusedCredentials(c, wrongId(c), HEADER_NAME.apiId);

async function badCredentialsSettlement(c: Check): Promise<void> {
  await c.login();
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(3))];
  if ((await placeBet(c, 'bet', r, bets)).code !== SUCCESS) return;
  const results = [{ ...bets[0]!, winloss: c.amount(3) }];
  const forged = await c.send('bet_result (win) with a wrong Api-Key', betResultRequest(c.session.env(), r, results), {
    expect: [UNAUTHORIZED],
    credentials: wrongKey(c),
    why: 'a settlement with a wrong Api-Key is unauthorized',
  });
  if (forged.code === SUCCESS) return c.settled(r.game_no, c.amount(6));
  await c.login('login (balance check)');
  await c.push(r.game_no);
}

async function duplicateReplay(c: Check): Promise<void> {
  await c.login();
  const r = newRound(c.target);
  const bets = [line('1', 'P', c.amount(5))];
  const bet = betRequest(c.session.env(), r, bets);
  const first = await c.send('bet', bet, { expect: [SUCCESS] });
  if (first.code !== SUCCESS) return;
  c.opened(r, bets);
  // The resends' codes and balances are WALLET_IDEMPOTENT's to grade. Each is sent as a retry is:
  // after the back-off.
  await c.session.pause();
  const wire = c.session.wire;
  const seen = wire.violations(IDEMPOTENT);
  const resent = await c.send('the same bet again (same transaction_id and body)', bet);
  // A resend applied again changed the round's stake: the settlement's answer is then that root cause's, not this check's.
  const twice = wire.violations(IDEMPOTENT) > seen;
  const debitedAgain = first.balance?.minus(c.amount(5));
  if (twice && resent.code === SUCCESS && debitedAgain && resent.balance?.eq(debitedAgain)) c.session.appliedTwice = true;
  const result = betResultRequest(c.session.env(), r, [{ ...bets[0]!, winloss: c.amount(5) }]);
  const settled = await c.settleWith(r.game_no, 'bet_result (win)', result, c.amount(10), { expect: twice ? undefined : [SUCCESS] });
  if (twice && settled.code !== SUCCESS)
    c.notJudged(
      IDEMPOTENT,
      `the bet's resend was not taken as a resend, so the settlement answered ${settled.code ?? settled.unusable} is not judged`,
    );
  if (settled.code === SUCCESS) {
    await c.session.pause();
    await c.send('the same bet_result again', result);
  }
  await c.login('login (balance check)');
}

async function conflictingReuse(c: Check): Promise<void> {
  await c.login();
  const txid = newTransactionId('provoke-reuse');
  const r = newRound(c.target);
  if ((await placeBet(c, 'bet', r, [line('1', 'B', c.amount(4))], { transaction_id: txid })).code !== SUCCESS) return;
  const again = c.session.appliedTwice;
  const r2 = newRound(c.target);
  const reused = [line('1', 'P', c.amount(6))];
  await c.session.pause();
  const reply = await c.send(
    'another bet (other round, other amount) under the same transaction_id',
    betRequest(c.session.env({ transaction_id: txid }), r2, reused),
    // A wallet that already applied an identical resend again does not key on transaction_id: that root cause is WALLET_IDEMPOTENT's.
    { expect: again ? undefined : [INVALID, FAILED], why: 'a transaction_id names one transaction; another body under it is not a resend' },
  );
  if (again && reply.code === SUCCESS)
    c.notJudged(
      IDEMPOTENT,
      'the wallet applies an identical resend again (it does not key on transaction_id), so a reused one is not judged',
    );
  if (reply.code === SUCCESS) c.opened(r2, reused);
  await c.login('login (balance check)');
  await c.push(r.game_no);
}

async function malformedBody(c: Check): Promise<void> {
  await c.login();
  const text = `{"transaction_id":"${newTransactionId('bad')}","event_type":"bet","user_id":${JSON.stringify(c.target.user)},"data":{"${FIELD.totalBetAmount}":`;
  await c.send('a truncated JSON body', text, { expect: [INVALID, FAILED], valid: false });
  await c.login('login (balance check)');
}
