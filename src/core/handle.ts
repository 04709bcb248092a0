import { andThen, type Awaitable } from '../kernel/awaitable.js';
import type { CallbackInput, Intake, OwnReply, Protocol } from '../protocol/port.js';
import type { CallbackOutput, WalletAnswer, WalletExchange, WalletFeed } from './exchange.js';
import { provisionalId } from './exchange.js';
import { hasErrors } from '../protocol/findings.js';
import { first } from '../http/headers.js';
import type { Fired } from './scenario/rules.js';
import { MaskedHeaders } from '../kernel/secrets.js';
import type { Simulator } from './simulator.js';
import type { Outcome } from './ports.js';
import type { Seal } from '../ledger/store.js';
import type { RuleThen } from '../protocol/types.generated.js';
import { matches } from '../kernel/secrets.js';
import { interned, internedHeaders } from '../kernel/interned.js';
import type { Finding } from '../protocol/findings.js';

export type { CallbackInput } from '../protocol/port.js';
export type { CallbackOutput } from './exchange.js';

/**
 * One callback, start to finish, without HTTP: read (authenticate → parse → validate) → rule (the
 * scenario's, for an authenticated, well-formed callback) → wallet (`sim.wallet`: the local ledger
 * or the operator's wallet behind --upstream, src/core/ports.ts) → respond (the reply and its
 * journal entry). Nothing here throws for bad input. Served from memory, it answers at once; a
 * shared store (Redis) or an upstream answers with a promise. (The pipeline, ./pipeline.ts, runs
 * these steps and then journals, grades and replies.)
 */
export function handleCallback(sim: Simulator, input: CallbackInput): Awaitable<CallbackOutput> {
  const intake = sim.protocol.read(sim, input);
  return andThen(processCallback(sim, input, intake), (outcome) => respond(sim, input, intake, outcome));
}

/** What the wallet did, with the rule that fired and its effects (`then`, read once). */
export interface Applied {
  outcome: Outcome;
  rule?: Fired;
  then?: RuleThen;
  /** Proxy mode: the exchange told to the wallet-side grading when the callback went upstream. */
  sent?: WalletExchange;
}

/**
 * The scenario's rule, then the wallet. Only an authenticated, well-formed callback is counted
 * against the rules; any other goes to the wallet as it is (the local one refuses it, an upstream
 * gets it forwarded: it must refuse it itself). `walletFeed` (proxy mode) hears of each callback
 * going upstream as it goes, with when it arrived (`arrivedAt`).
 */
export function processCallback(
  sim: Simulator,
  input: CallbackInput,
  intake: Intake,
  walletFeed?: WalletFeed,
  seal?: (applied: Applied) => Seal | undefined,
  arrivedAt = Date.now(),
): Awaitable<Applied> {
  if (!intake.authenticated) return toWallet(sim, input, intake, walletFeed, arrivedAt, undefined);
  // Every authenticated callback of a player counts (the probability draws' input), refused ones too.
  const userId = intake.echo.user_id;
  const count = userId === undefined || sim.storeFailure ? undefined : sim.countCall(userId, !sim.rulesDraw);
  if (count instanceof Promise) count.catch(() => {}); // a Redis away: the store's own failure answers below
  const request = intake.request;
  if (!request || hasErrors(intake.findings)) return toWallet(sim, input, intake, walletFeed, arrivedAt, undefined);
  if (sim.storeFailure) return failed(sim, sim.storeFailure, undefined);
  // The count is only a probability draw's input: when no rule draws, nothing waits for it (with
  // Redis it still goes, with the journal id, in the write that carries the store's read: a round
  // trip less).
  const drawn = count instanceof Promise && !sim.rulesDraw ? 1 : count;
  // Served from memory every step answers at once: no closure, no promise (the usual case, at load).
  // Counted here, or in Redis across processes (which may fail like the store).
  let fired: ReturnType<Simulator['chooseRule']> = undefined;
  if (!(drawn instanceof Promise)) {
    try {
      fired = sim.chooseRule(request, drawn ?? 1);
      if (!(fired instanceof Promise)) {
        const rule = fired;
        const applied = toWallet(sim, input, intake, walletFeed, arrivedAt, rule, seal);
        return applied instanceof Promise ? applied.catch((e: unknown) => failedApply(sim, e, rule)) : applied;
      }
    } catch (e) {
      return failedApply(sim, e, fired instanceof Promise ? undefined : fired);
    }
  }
  let rule: Fired | undefined;
  const chosen = drawn instanceof Promise ? drawn.then((n) => sim.chooseRule(request, n ?? 1)) : fired!;
  return chosen
    .then((r) => {
      rule = r;
      return toWallet(sim, input, intake, walletFeed, arrivedAt, r, seal);
    })
    .catch((e: unknown) => failedApply(sim, e, rule));
}

/** The wallet's part, with the rule that fired (its `then` read once here). */
function toWallet(
  sim: Simulator,
  input: CallbackInput,
  intake: Intake,
  walletFeed: WalletFeed | undefined,
  arrivedAt: number,
  rule: Fired | undefined,
  seal?: (applied: Applied) => Seal | undefined,
): Awaitable<Applied> {
  const then = rule?.rule.then;
  // A forced code is answered without the wallet's part in it: an upstream never hears of it.
  const sent = walletFeed && !then?.code ? exchangeOf(sim.protocol, input, intake, sim.credentials.api_key) : undefined;
  if (sent) walletFeed!.sent(sent, arrivedAt);
  // (a shared store journals and grades the callback in its commit: `seal` builds what it writes)
  const outcome = sim.wallet.apply({ input, intake, rule, then, seal: seal && ((o) => seal({ outcome: o, rule, then, sent })) });
  if (!(outcome instanceof Promise)) return { outcome, rule, then, sent };
  return outcome.then((o) => ({ outcome: o, rule, then, sent }));
}

/** A store (or Redis) failure while choosing the rule or applying: R1, with the rule that fired if one had. */
function failedApply(sim: Simulator, e: unknown, rule: Fired | undefined): Applied {
  return failed(sim, sim.storeFailure ?? (e as Error).message, rule);
}

/** The protocol's failed code (R1), and why: no balance may then be claimed. */
function failed(sim: Simulator, why: string, rule: Fired | undefined): Applied {
  const code = sim.protocol.codes.failed;
  return { outcome: { code, failure: `${code}: ${why}` }, rule, then: rule?.rule.then };
}

/** A callback going upstream as the wallet-side checks read it; its id provisional until it is journalled. */
function exchangeOf({ headers }: Protocol, input: CallbackInput, intake: Intake, configuredKey: string): WalletExchange {
  const header = (name: string) => first(input.headers[name]);
  const body = intake.body;
  return {
    id: provisionalId(),
    user: intake.echo.user_id,
    event: intake.echo.event_type,
    tx: transactionIdOf(body),
    body: body !== null && typeof body === 'object' ? body : undefined,
    // wallet-sim's schemas accept it (its credentials are judged apart).
    valid: intake.request !== undefined && !intake.findings.some((f) => f.severity === 'error' && !f.code.startsWith('CREDENTIALS_')),
    credentialsOk: intake.authenticated,
    sentHeaders: { apiId: header(headers.apiId), callbackUrl: header(headers.callbackUrl) },
    sentConfiguredKey: matches(header(headers.apiKey) ?? '', configuredKey),
    sentAt: Date.now(),
  };
}

/** The exchange and its answer for the wallet-side checks, once the upstream answered (or gave up). */
function walletLeg(protocol: Protocol, sent: WalletExchange | undefined, outcome: Outcome, configuredKey: string) {
  const answer = sent && answerOf(protocol, outcome, configuredKey);
  return answer && { sent: sent!, answer };
}

/** What the upstream did with a forwarded callback, as the wallet-side checks read it. */
function answerOf(protocol: Protocol, outcome: Outcome, configuredKey: string): WalletAnswer | undefined {
  const { relayed, upstream } = outcome;
  if (!relayed || !upstream?.replied_at) return undefined;
  const at = Date.parse(upstream.replied_at);
  return relayed.kind === 'none'
    ? { kind: 'none', at, why: relayed.why, ...(relayed.cause && { cause: relayed.cause }) }
    : { kind: 'reply', at, status: relayed.status, ...protocol.maskKey(relayed.headers, configuredKey), text: relayed.text };
}

const NO_FINDINGS = Object.freeze([]) as unknown as Finding[];

export function respond(sim: Simulator, input: CallbackInput, intake: Intake, { outcome, rule, then, sent }: Applied): CallbackOutput {
  const decided = outcome.decision?.findings;
  // (none: one shared empty list, frozen, instead of one kept per journal entry)
  const findings = decided?.length ? [...intake.findings, ...decided] : intake.findings.length ? intake.findings : NO_FINDINGS;
  const { user_id, event_type } = intake.echo;
  const relayed = outcome.relayed;
  const { protocol } = sim;
  const { codes } = protocol;
  // No balance for an R2 (the caller is nobody to tell it to) nor after a store failure (it may not be durable).
  const balance = outcome.failure || outcome.code === codes.unauthorized ? undefined : outcome.balance;
  const latest = then?.latest_balance !== undefined ? then.latest_balance : balance;
  const code = outcome.code;
  const reason =
    relayed?.kind === 'none'
      ? `the upstream wallet did not answer (${relayed.why}): the connection was closed without a reply`
      : code === codes.applied || relayed
        ? undefined
        : (outcome.failure ??
          protocol.reason(code ?? codes.failed, findings, then?.code ? rule!.name : undefined, balance, intake.request));
  let headers: Record<string, string>;
  let reply: { text: string; body: unknown };
  let built: OwnReply | undefined;
  let bytes: Uint8Array | undefined;
  if (relayed) {
    // The upstream's reply as it came, unless a rule replaces its body or status.
    headers = relayed.kind === 'reply' ? relayed.headers : {};
    reply =
      then?.body !== undefined
        ? rawReply(then.body)
        : relayed.kind === 'reply'
          ? relayedReply(relayed.text, outcome)
          : { text: '', body: null };
    // Exactly as it came: the upstream's bytes, or a rule's body under the upstream's headers.
    if (relayed.kind === 'reply') bytes = then?.body === undefined && relayed.bytes ? relayed.bytes : Buffer.from(reply.text);
  } else {
    headers = protocol.replyHeaders(sim.scenario, input, event_type, reason);
    built = then?.body === undefined ? protocol.reply(code ?? codes.failed, event_type ?? '', user_id ?? '', latest) : undefined;
    reply = built ?? rawReply(then!.body);
  }
  const status = then?.http_status ?? (relayed?.kind === 'reply' ? relayed.status : relayed ? 0 : 200);
  const dropped = (then?.drop_connection ?? false) || relayed?.kind === 'none';
  return {
    status,
    headers,
    body: reply.text,
    bytes,
    delayMs: then?.delay_ms ?? 0,
    drop: dropped,
    code,
    forced: then?.code ?? (then?.http_status === undefined ? bodyForced(then?.body) : `HTTP ${then.http_status}`),
    reason,
    authenticated: intake.authenticated,
    wallet: walletLeg(protocol, sent, outcome, sim.credentials.api_key),
    entry: {
      received_at: undefined,
      transaction_id: transactionIdOf(intake.body),
      event_type,
      user_id,
      request: {
        method: input.method,
        // (the texts a caller sends every time are kept once: src/kernel/interned.ts)
        url: interned(' url', input.url),
        // Masked when written: most entries are never read.
        headers: new MaskedHeaders(internedHeaders(input.headers)),
        body: protocol.journalledBody(input.body, intake.body, intake.authenticated),
      },
      reply: { status, headers: MaskedHeaders.of(headers), body: reply.body, dropped },
      code,
      reason,
      rule: rule && { index: rule.index, name: rule.name },
      balance_before: outcome.decision?.balanceBefore?.toNumber(),
      // The reply's latest_balance when it is this balance: the same number, read once.
      balance_after: built && latest === balance ? built.balance : balance?.toNumber(),
      replayed: outcome.decision?.replayed ?? outcome.replayed ?? false,
      findings,
      // (no spread: one shape for every entry; an absent leg is undefined and never serialized)
      upstream: outcome.upstream,
    },
  };
}

/**
 * An R0 whose journal entry Redis did not keep (it died or froze between the ledger commit and the
 * journal write; the entry's id is then 0) is answered R1 instead: every R0 a caller gets is in the
 * journal, as every R0 change is in the ledger. The resend replays R0, and is journalled.
 */
export function unjournalled(sim: Simulator, out: CallbackOutput): CallbackOutput {
  const { protocol } = sim;
  const { failed, applied } = protocol.codes;
  const why = sim.storeFailure ?? 'Redis did not keep its journal entry';
  const reason = `${failed}: ${why}; the callback was decided but not journalled: resend it (the same transaction_id replays ${applied})`;
  const reply = protocol.reply(failed, out.entry.event_type ?? '', out.entry.user_id ?? '', undefined);
  const headers = { ...out.headers, [protocol.headers.reason]: protocol.headerSafe(reason) };
  return { ...out, status: 200, headers, body: reply.text, bytes: undefined, code: failed, reason };
}

/**
 * What a rule's `body` forced: the code it carries (a body saying R4 for a bet the wallet applied is
 * a refusal the provider read, as a rule's `code` is), else "a reply body"; undefined without one.
 */
function bodyForced(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  const code = (body as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^R\d+$/.test(code) ? code : 'a reply body';
}

const rawReply = (raw: unknown) => ({ text: typeof raw === 'string' ? raw : JSON.stringify(raw), body: raw });

/** An upstream's reply text, and for the journal its body as the upstream adapter read it (once). */
function relayedReply(text: string, outcome: Outcome): { text: string; body: unknown } {
  const leg = outcome.upstream;
  return leg && 'body' in leg ? { text, body: leg.body } : parsedReply(text);
}

/** An upstream's reply text, and for the journal its JSON when it is JSON, else the text. */
function parsedReply(text: string): { text: string; body: unknown } {
  try {
    return { text, body: JSON.parse(text) as unknown };
  } catch {
    return { text, body: text };
  }
}

const transactionIdOf = (body: unknown): string | undefined => {
  const id = (body as { transaction_id?: unknown } | undefined)?.transaction_id;
  return typeof id === 'string' ? id : undefined;
};
