import { andThen, type Awaitable } from '../awaitable.js';
import { type CallbackInput, type Intake, readCallback } from './read.js';
import { buildReply, headerSafe, journalledBody, reasonFor, replyHeadersFor } from './reply.js';
import type { NewEntry } from '../journal/journal.js';
import { type Money, money } from '../money.js';
import type { Code } from '../protocol/codes.js';
import { hasErrors } from '../protocol/findings.js';
import type { CallbackRequest } from '../protocol/types.generated.js';
import type { Fired } from '../scenario/rules.js';
import { MaskedHeaders } from '../secrets.js';
import type { Simulator } from '../simulator.js';
import { type Player, playerChange } from '../backends/state.js';
import type { View } from '../backends/store.js';
import { type Decision, decide, type WalletConfig } from '../wallet/decide.js';
import { eventOf } from '../events/index.js';

export type { CallbackInput } from './read.js';
export { buildReply, headerSafe } from './reply.js';

/** What to send back, and what to journal once it is sent. */
export interface CallbackOutput {
  status: number;
  headers: Record<string, string>;
  body: string;
  delayMs: number;
  drop: boolean;
  code?: Code;
  reason?: string;
  /** The caller's credentials were right: only such callbacks are graded. */
  authenticated: boolean;
  entry: Omit<NewEntry, 'id' | 'duration_ms' | 'received_at'>;
}

/** What was done with a callback: its code, the rule that fired, the wallet's decision. */
interface Outcome {
  code: Code;
  rule?: Fired;
  decision?: Decision;
  /** Why the store could not answer (R1): no balance may then be claimed. */
  failure?: string;
}

/**
 * One callback, start to finish, without HTTP: read (authenticate → parse → validate) → process
 * (a scenario rule, then the wallet's decision, committed by the store) → respond (the reply and
 * its journal entry). Nothing here throws for bad input. Served from memory, it answers at once;
 * a shared store (Redis) answers with a promise.
 */
export function handleCallback(sim: Simulator, input: CallbackInput): Awaitable<CallbackOutput> {
  const intake = readCallback(sim, input);
  return andThen(processCallback(sim, intake), (outcome) => {
    const user = intake.echo.user_id;
    // The balance of a callback the wallet did not decide (R3, a forced code): the player's, read
    // now. A store that cannot answer now (Redis away) leaves it out, as after a failed commit.
    if (outcome.code === 'R2' || user === undefined || outcome.decision || outcome.failure) return respond(sim, input, intake, outcome);
    return sim.store.player(user).then(
      (player) => respond(sim, input, intake, outcome, player),
      () => respond(sim, input, intake, outcome),
    );
  });
}

function respond(sim: Simulator, input: CallbackInput, intake: Intake, outcome: Outcome, player?: Player): CallbackOutput {
  const decided = outcome.decision?.findings;
  const findings = decided?.length ? [...intake.findings, ...decided] : intake.findings;
  const { user_id, event_type } = intake.echo;
  // No balance for an R2 (the caller is nobody to tell it to) nor after a store failure (it may not be durable).
  const balance = outcome.failure || outcome.code === 'R2' ? undefined : outcome.decision ? outcome.decision.balance : player?.balance;
  const then = outcome.rule?.rule.then;
  const latest = then && 'latest_balance' in then ? then.latest_balance : balance;
  const reason =
    outcome.code === 'R0' ? undefined : (outcome.failure ?? reasonFor(outcome.code, findings, outcome.rule, balance, intake.request));
  const headers = replyHeadersFor(sim, input, event_type, reason);
  const built = then?.body === undefined ? buildReply(outcome.code, event_type ?? '', user_id ?? '', latest) : undefined;
  const reply = built ?? rawReply(then!.body);
  const status = then?.http_status ?? 200;
  const dropped = then?.drop_connection ?? false;
  return {
    status,
    headers,
    body: reply.text,
    delayMs: then?.delay_ms ?? 0,
    drop: dropped,
    code: outcome.code,
    reason,
    authenticated: intake.authenticated,
    entry: {
      transaction_id: transactionIdOf(intake.body),
      event_type,
      user_id,
      request: {
        method: input.method,
        url: input.url,
        // Masked when written: most entries are never read.
        headers: new MaskedHeaders(input.headers),
        body: journalledBody(input.body, intake.body, intake.authenticated),
      },
      reply: { status, headers: new MaskedHeaders(headers), body: reply.body, dropped },
      code: outcome.code,
      reason,
      rule: outcome.rule && { index: outcome.rule.index, name: outcome.rule.name },
      balance_before: outcome.decision?.balanceBefore?.toNumber(),
      // The reply's latest_balance when it is this balance: the same number, read once.
      balance_after: built && latest === balance ? built.body.latest_balance : balance?.toNumber(),
      replayed: outcome.decision?.replayed ?? false,
      findings,
    },
  };
}

/**
 * An R0 whose journal entry Redis did not keep (it died or froze between the ledger commit and the
 * journal write; the entry's id is then 0) is answered R1 instead: every R0 a caller gets is in the
 * journal, as every R0 change is in the ledger. The resend replays R0, and is journalled.
 */
export function unjournalled(sim: Simulator, out: CallbackOutput): CallbackOutput {
  const why = sim.storeFailure ?? 'Redis did not keep its journal entry';
  const reason = `R1: ${why}; the callback was decided but not journalled: resend it (the same transaction_id replays R0)`;
  const reply = buildReply('R1', out.entry.event_type ?? '', out.entry.user_id ?? '', undefined);
  const headers = { ...out.headers, 'x-wallet-sim-reason': headerSafe(reason) };
  return { ...out, status: 200, headers, body: reply.text, code: 'R1', reason };
}

/** R2, R3 and R1 before anything is read; then the scenario's rule and the wallet, in one store transaction. */
function processCallback(sim: Simulator, intake: Intake): Awaitable<Outcome> {
  if (!intake.authenticated) return { code: 'R2' };
  // Every authenticated callback of a player counts (the probability draws' input), refused ones too.
  const userId = intake.echo.user_id;
  const count = userId === undefined || sim.storeFailure ? undefined : sim.countCall(userId);
  if (count instanceof Promise) count.catch(() => {}); // a Redis away: the store's own failure answers below
  const request = intake.request;
  if (!request || hasErrors(intake.findings)) return { code: 'R3' };
  if (sim.storeFailure) return { code: 'R1', failure: `R1: ${sim.storeFailure}` };
  const keys = { user_id: request.user_id, transaction_id: request.transaction_id, game_no: eventOf(request).gameNo(request) };
  let rule: Fired | undefined;
  const failed = (e: unknown): Outcome => ({ code: 'R1', rule, failure: `R1: ${sim.storeFailure ?? (e as Error).message}` });
  try {
    // Counted here, or in Redis across processes (which may fail like the store).
    const outcome = andThen(
      andThen(count, (n) => sim.chooseRule(request, n ?? 1)),
      (fired): Awaitable<Outcome> => {
        rule = fired;
        const decided = sim.store.transact(keys, (view) => decideWithRule(view, request, fired, sim.config));
        return andThen(decided, (decision) => ({ code: decision.code, rule: fired, decision }));
      },
    );
    return outcome instanceof Promise ? outcome.catch(failed) : outcome;
  } catch (e) {
    return failed(e);
  }
}

/**
 * The wallet's decision, with what a scenario rule adds: `set_balance` before processing (a change
 * like any other, committed with the decision), a forced `code` instead of the wallet's.
 */
export function decideWithRule(view: View, req: CallbackRequest, rule: Fired | undefined, config: WalletConfig): Decision {
  const then = rule?.rule.then;
  const forced =
    then?.set_balance === undefined
      ? undefined
      : { user_id: req.user_id, balance: money(then.set_balance), currency: view.player?.currency ?? config.defaultCurrency };
  const seen: View = forced ? { ...view, player: forced } : view;
  const before: Money | undefined = seen.player?.balance;
  const decision: Decision = then?.code
    ? { code: then.code, findings: [], balance: before, balanceBefore: before, replayed: false, changes: [] }
    : decide(seen, req, config);
  return forced ? { ...decision, changes: [playerChange(forced), ...decision.changes] } : decision;
}

const rawReply = (raw: unknown) => ({ text: typeof raw === 'string' ? raw : JSON.stringify(raw), body: raw });

const transactionIdOf = (body: unknown): string | undefined => {
  const id = (body as { transaction_id?: unknown } | undefined)?.transaction_id;
  return typeof id === 'string' ? id : undefined;
};
