import { SUCCESS } from '../protocol/seed/codes.js';
import { FIELD } from '../protocol/seed/wire.js';
import { loginRequest } from '../protocol/seed/callbacks.js';
import { type Money, money } from '../kernel/money.js';
import { latencyOf, withLatency } from './latency.js';
import { refusalChecks } from './refusal-checks.js';
import { leaveToOwners } from './root-cause.js';
import { topLevelNumberTexts } from '../kernel/raw-json.js';
import { Check, type CheckResult, Session } from './session.js';
import { lastChecks, standardChecks } from './standard-checks.js';
import { loginStop } from './stops.js';
import type { ProbeReport, ProbeTarget } from './types.js';
import { readCode } from './wire.js';

/**
 * The battery: the provider's side of the protocol played against any wallet, as a certified
 * provider plays it (same transaction_id on every resend, back-off, waits out its time-out, settles
 * every round it opened and nothing it did not). Its active checks assert what a wallet must answer;
 * the eight wallet checks (src/grading/wallet/, the same as proxy mode's) grade every exchange.
 */

export { CHECKS, type ProbeReport } from './types.js';

export { CREDENTIALS_REFUSED } from './stops.js';

/** Runs the battery: the opening login (or why it cannot go on), the checks, the clean-up, the wallet checks. */
export async function runProbe(target: ProbeTarget, onCheck?: (c: CheckResult) => void): Promise<ProbeReport> {
  const s = new Session(target, onCheck);
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const { before } = await openingLogin(s);
  if (!s.stopped) {
    for (const check of [...standardChecks(s), ...refusalChecks(), ...lastChecks()]) {
      await s.check(check.name, check.description, check.fix, check.run);
      if (s.stopped) break; // the first bet said the rest cannot be checked
    }
    await settleLeftovers(s);
  }
  const stopped = s.stopped;
  const after = stopped ? undefined : await finalBalance(s);
  const latency = latencyOf(s.wire.samples);
  return {
    target: withoutKey(target),
    stopped,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    checks: s.checks,
    walletChecks: stopped ? [] : leaveToOwners(withLatency(s.wire.grader.checks(), latency, target), s.checks),
    latency,
    unsettled: [
      ...s.unknown,
      ...[...s.open.values()].map((o) => ({ game_no: o.round.game_no, why: o.why ?? 'the wallet did not settle it' })),
    ],
    exchanges: s.wire.exchanges,
    balance: { before, after },
  };
}

/**
 * The first check: the wallet answers, takes the credentials, knows the player, and the player has
 * the funds the battery needs. When one of these fails, nothing else can be checked: one line says
 * which, and what to do.
 */
async function openingLogin(s: Session): Promise<{ before?: Money }> {
  let before: Money | undefined;
  const t = s.target;
  await s.check('login', 'the wallet answers a login with R0 and the balance', 'Answer login with R0 and latest_balance.', async (c) => {
    const reply = await c.send('login', loginRequest(s.env()), { expect: [SUCCESS] });
    const stopped = loginStop(c.exchanges[reply.index]!, reply.code, t);
    if (stopped) return c.stop(stopped, reply.index);
    before = reply.code === SUCCESS ? reply.balance : undefined;
    const need = s.amount(40);
    if (before !== undefined && before.lt(need))
      c.stop(
        {
          reason: 'funds',
          message: `${t.user} has ${before.toFixed()} ${t.currency}; the battery needs at least ${need.toFixed()}: fund the player, then probe again`,
        },
        reply.index,
      );
  });
  return { before };
}

/** Rounds the wallet acknowledged and no check settled are settled now (pushes, or the settlement already sent). */
async function settleLeftovers(s: Session): Promise<void> {
  const open = [...s.open.entries()].filter(([, o]) => o.why === undefined);
  if (!open.length) return;
  const c = new Check(s, 'cleanup');
  for (const [gameNo, round] of open) {
    const reply = await c.push(gameNo);
    if (reply?.code !== undefined && reply.code !== SUCCESS)
      round.why = `its settlement (a push: the stake back) was answered ${reply.code}`;
  }
}

async function finalBalance(s: Session): Promise<Money | undefined> {
  const x = (await s.wire.deliver('final login', loginRequest(s.env())))[0]!;
  const read = readCode(x);
  if (read.code !== SUCCESS || !x.reply) return undefined;
  const text = topLevelNumberTexts(x.reply.body).get(FIELD.latestBalance);
  return text === undefined ? undefined : money(text);
}

const withoutKey = ({ apiKey: _hidden, transport: _connections, ...shown }: ProbeTarget): Omit<ProbeTarget, 'apiKey' | 'transport'> =>
  shown;
