import { FAILED, INVALID, SUCCESS, UNAUTHORIZED } from '../protocol/seed/codes.js';
import { FIELD } from '../protocol/seed/wire.js';
import { loginRequest } from '../protocol/seed/callbacks.js';
import { type Money, money } from '../kernel/money.js';
import { latencyOf, withLatency } from './latency.js';
import { refusalChecks } from './refusal-checks.js';
import { topLevelNumberTexts } from '../kernel/raw-json.js';
import { Check, type CheckResult, Session } from './session.js';
import { lastChecks, standardChecks } from './standard-checks.js';
import type { ProbeReport, ProbeTarget, Stopped } from './types.js';
import { readCode } from './wire.js';

/**
 * The battery: the provider's side of the protocol played against any wallet, as a certified
 * provider plays it (same transaction_id on every resend, back-off, waits out its time-out, settles
 * every round it opened and nothing it did not). Its active checks assert what a wallet must answer;
 * the six wallet checks (src/grading/wallet/, the same as proxy mode's) grade every exchange.
 */

export { CHECKS, type ProbeReport } from './types.js';

/** The one line a probe with wrong credentials prints, instead of every check failing with R2. */
export const CREDENTIALS_REFUSED = 'credentials refused (R2): check --api-id/--api-key';

/** Runs the battery: the opening login (or why it cannot go on), the checks, the clean-up, the wallet checks. */
export async function runProbe(target: ProbeTarget, onCheck?: (c: CheckResult) => void): Promise<ProbeReport> {
  const s = new Session(target, onCheck);
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const { before, stopped } = await openingLogin(s);
  if (!stopped) {
    for (const check of [...standardChecks(s), ...refusalChecks(), ...lastChecks()])
      await s.check(check.name, check.description, check.fix, check.run);
    await settleLeftovers(s);
  }
  const after = stopped ? undefined : await finalBalance(s);
  const latency = latencyOf(s.wire.samples);
  return {
    target: withoutKey(target),
    stopped,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    checks: s.checks,
    walletChecks: stopped ? [] : withLatency(s.wire.grader.checks(), latency, target),
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
async function openingLogin(s: Session): Promise<{ before?: Money; stopped?: Stopped }> {
  let before: Money | undefined;
  let stopped: Stopped | undefined;
  const t = s.target;
  await s.check('login', 'the wallet answers a login with R0 and the balance', 'Answer login with R0 and latest_balance.', async (c) => {
    const reply = await c.send('login', loginRequest(s.env()), { expect: [SUCCESS] });
    const x = c.exchanges[reply.index]!;
    stopped = whyStop(x, reply.code, t);
    if (stopped) {
      c.assertions.length = 0;
      c.assert('stopped', false, stopped.message, reply.index);
      return;
    }
    before = reply.code === SUCCESS ? reply.balance : undefined;
    const need = s.amount(40);
    if (before !== undefined && before.lt(need)) {
      stopped = {
        reason: 'funds',
        message: `${t.user} has ${before.toFixed()} ${t.currency}; the battery needs at least ${need.toFixed()}: fund the player, then probe again`,
      };
      c.assert('stopped', false, stopped.message, reply.index);
    }
  });
  return { before, stopped };
}

function whyStop(x: ProbeReport['exchanges'][number], code: string | undefined, t: ProbeTarget): Stopped | undefined {
  if (!x.reply) {
    const refused = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ECONNRESET|getaddrinfo/i.test(x.error ?? '');
    return refused
      ? { reason: 'unreachable', message: `cannot reach ${t.url} (${x.error}): is the wallet running, and is --url right?` }
      : {
          reason: 'no-reply',
          message: `no reply from ${t.url} to a login (${x.error}): is the wallet up? A slow wallet needs a longer --timeout`,
        };
  }
  if (x.reply.status === 404 || x.reply.status === 405)
    return {
      reason: 'wrong-path',
      message: `HTTP ${x.reply.status} from ${t.url}: nothing answers callbacks at this path; check --url (the wallet's callback URL, path included)`,
    };
  if (code === UNAUTHORIZED) return { reason: 'credentials', message: CREDENTIALS_REFUSED };
  if (code === INVALID || code === FAILED)
    return {
      reason: 'unknown-user',
      message: `the wallet refused a login of ${t.user} (${code}): is --user a player of this wallet (and --currency its currency)?`,
    };
  return undefined;
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

const withoutKey = ({ apiKey: _hidden, ...shown }: ProbeTarget): Omit<ProbeTarget, 'apiKey'> => shown;
