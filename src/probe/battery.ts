import { loginRequest } from '../client/callbacks.js';
import { type Money, sum } from '../money.js';
import { type CheckResult, type ProbeTarget, Session } from './session.js';
import { standardChecks } from './standard-checks.js';

/**
 * The standard battery: the provider's side of the protocol played against any wallet. Each check
 * opens its own rounds and settles them; anything left open (a wallet accepted what it should
 * have refused) is settled as a push at the end, so the player ends where the arithmetic says.
 */

export { CHECKS, type ProbeReport } from './types.js';
import type { ProbeReport } from './types.js';

/** The one line a probe with wrong credentials prints, instead of every check failing with R2. */
export const CREDENTIALS_REFUSED = 'credentials refused (R2): check --api-id/--api-key';

/** Runs the battery: the opening login, the standard checks, the cleanup, the balance reconciliation. */
export async function runProbe(target: ProbeTarget, onCheck?: (c: CheckResult) => void): Promise<ProbeReport> {
  const s = new Session(target, onCheck);
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const { initial, refused } = await openingLogin(s);
  // Every other check would fail with R2 too: say it once and stop.
  if (refused)
    return {
      target: withoutKey(target),
      stopped: CREDENTIALS_REFUSED,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      checks: s.checks,
      balance: { lines: [] },
    };

  for (const check of standardChecks(s)) await s.check(check.name, check.description, check.run);
  await settleLeftovers(s);
  const after = await reconcile(s, initial);

  return {
    target: withoutKey(target),
    startedAt,
    durationMs: Math.round(performance.now() - started),
    checks: s.checks,
    balance: { before: initial, after, lines: s.ledger, expected: initial?.plus(sum(s.ledger.map((l) => l.delta))) },
  };
}

/** The first check: the credentials are accepted and the player has the funds the battery needs. */
async function openingLogin(s: Session): Promise<{ initial: Money | undefined; refused: boolean }> {
  let initial: Money | undefined;
  let refused = false;
  await s.check('login', 'login replies R0 with the balance', async (c) => {
    const reply = await c.send('login', loginRequest(s.env()), { expect: ['R0'] });
    refused = reply.code === 'R2';
    if (refused) c.assert('credentials', false, CREDENTIALS_REFUSED, reply.index);
    initial = reply.code === 'R0' ? reply.balance : undefined;
    const need = s.amount(20);
    if (initial !== undefined)
      c.assert(
        'funds',
        initial.gte(need),
        `the player has ${initial.toFixed()} ${s.target.currency}; the battery needs at least ${need.toFixed()}: fund the player first`,
      );
  });
  return { initial, refused };
}

/** Rounds the wallet acknowledged but no check settled are settled as pushes. */
async function settleLeftovers(s: Session): Promise<void> {
  if (!s.open.size) return;
  await s.check('cleanup', 'rounds the wallet acknowledged but the battery did not settle are settled as pushes', async (c) => {
    for (const gameNo of [...s.open.keys()]) await c.push(gameNo);
    c.assert('rounds-settled', s.open.size === 0, `rounds still open: ${[...s.open.keys()].join(', ')}`);
  });
}

/** The last check: the final balance is the start plus every acknowledged change. Returns the final balance. */
async function reconcile(s: Session, initial: Money | undefined): Promise<Money | undefined> {
  let after: Money | undefined;
  await s.check('balance-reconciliation', "the player's final balance is the start plus every acknowledged change", async (c) => {
    after = await c.login('final login');
    if (initial === undefined || after === undefined) return c.skip('no balance from login to reconcile');
    const expected = initial.plus(sum(s.ledger.map((l) => l.delta)));
    c.assert(
      'balance-arithmetic',
      after.eq(expected),
      `final balance ${after.toFixed()}, expected ${expected.toFixed()} (start ${initial.toFixed()} ${signed(sum(s.ledger.map((l) => l.delta)))}); the wallet moved money it did not acknowledge`,
    );
  });
  return after;
}

const withoutKey = ({ apiKey: _hidden, ...shown }: ProbeTarget): Omit<ProbeTarget, 'apiKey'> => shown;

export const signed = (m: Money) => (m.isNeg() ? `- ${m.abs().toFixed()}` : `+ ${m.toFixed()}`);
