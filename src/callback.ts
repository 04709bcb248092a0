import type { IncomingHttpHeaders } from 'node:http';
import sjson from 'secure-json-parse';
import type { JournalEntry } from './journal/journal.js';
import { type Money, money, toJsonNumber } from './money.js';
import type { Code } from './protocol/codes.js';
import { type Finding, finding, hasErrors } from './protocol/findings.js';
import type { CallbackReply, CallbackRequest } from './protocol/types.generated.js';
import type { Fired } from './scenario/rules.js';
import { describeErrors, validator } from './schemas.js';
import { maskedHeaders } from './secrets.js';
import type { Simulator } from './simulator.js';

const validateRequest = validator<CallbackRequest>('CallbackRequest');

export interface CallbackInput {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
}

/** What to send back, and what to journal once it is sent. */
export interface CallbackOutput {
  status: number;
  headers: Record<string, string>;
  body: string;
  delayMs: number;
  drop: boolean;
  code?: Code;
  reason?: string;
  entry: Omit<JournalEntry, 'id' | 'duration_ms' | 'received_at'>;
}

/**
 * One callback, start to finish, without HTTP: parse → authenticate → validate → match a scenario
 * rule → apply to the wallet (durably) → build the reply. Every defect of the request becomes a
 * finding; nothing here throws for bad input.
 */
export async function handleCallback(sim: Simulator, input: CallbackInput): Promise<CallbackOutput> {
  const findings: Finding[] = [];
  const header = (name: string) => first(input.headers[name]);

  const credentialFindings = authenticate(sim, header('api-id'), header('api-key'));
  const authenticated = credentialFindings.length === 0;
  // An unauthenticated caller gets its R2 for the price of a small body at most: a larger one is
  // neither parsed nor validated, and only an excerpt of it is journalled.
  const readable = authenticated || input.body.length <= UNAUTHENTICATED_READ_LIMIT;
  const parsed = readable ? parseBody(input, findings) : undefined;
  const echo = echoFields(parsed);
  // No request nests this deep; a body that does would overflow the stack of every recursive walk
  // after this one (fingerprint, journal serialisation), so it is refused here and journalled as text.
  const tooDeep = parsed !== undefined && nestsDeeperThan(parsed, MAX_DEPTH);
  if (tooDeep) findings.push(finding('SCHEMA', `the body nests deeper than ${MAX_DEPTH} levels`, '/'));
  const body = tooDeep ? undefined : parsed;
  if (header('callback-url') === undefined) findings.push(finding('CALLBACK_URL_MISSING', undefined, 'header:Callback-URL'));
  findings.push(...credentialFindings);
  const request = body !== undefined && validateRequest(body) ? body : undefined;
  if (body !== undefined && !request) findings.push(...schemaFindings());
  if (request) findings.push(...timestampFindings(request.timestamp, sim.scenario.timestampSkewS));

  let code: Code;
  let rule: Fired | undefined;
  let balanceBefore: Money | undefined;
  // The balance the wallet decided with, right after this callback's own change. Read again after
  // the store's await it could already hold later callbacks' changes, not yet durable.
  let decided: { balance?: Money } | undefined;
  let replayed = false;
  let failure: string | undefined;
  if (!authenticated) code = 'R2';
  else if (!request || hasErrors(findings)) code = 'R3';
  else if (sim.storeFailure) {
    code = 'R1';
    failure = `R1: ${sim.storeFailure}`;
  } else {
    rule = sim.rules.choose(request);
    // set_balance applies before processing. setPlayer and decide change memory synchronously and
    // nothing is awaited in between, so no other callback can slip in between the two.
    const forced = rule?.rule.then.set_balance !== undefined ? sim.setPlayer(request.user_id, money(rule.rule.then.set_balance)) : undefined;
    balanceBefore = sim.player(request.user_id)?.balance;
    const decision = rule?.rule.then.code ? undefined : sim.wallet.decide(request, findings);
    code = rule?.rule.then.code ?? decision!.code;
    if (decision) {
      replayed = decision.replayed;
      decided = { balance: decision.balance };
      balanceBefore = decision.balanceBefore ?? balanceBefore;
    }
    try {
      await forced;
      await decision?.durable;
    } catch (e) {
      code = 'R1';
      decided = {}; // the change is not durable: report no balance
      failure = `R1: ${sim.storeFailure ?? (e as Error).message}`;
    }
  }

  const player = code !== 'R2' && echo.user_id !== undefined ? sim.player(echo.user_id) : undefined;
  const then = rule?.rule.then;
  const balance = decided ? decided.balance : player?.balance;
  const latest = then && 'latest_balance' in then ? then.latest_balance : balance;
  const reason = code === 'R0' ? undefined : failure ?? reasonFor(code, findings, rule, balance, request);
  const replyHeaders = replyHeadersFor(sim, input, echo.event_type, reason);
  const normal = buildReply(code, echo.event_type ?? '', echo.user_id ?? '', latest);
  const raw = then?.body;
  const reply = raw === undefined ? normal : { text: typeof raw === 'string' ? raw : JSON.stringify(raw), body: raw };

  return {
    status: then?.http_status ?? 200,
    headers: replyHeaders,
    body: reply.text,
    delayMs: then?.delay_ms ?? 0,
    drop: then?.drop_connection ?? false,
    code,
    reason,
    entry: {
      transaction_id: typeof (body as { transaction_id?: unknown })?.transaction_id === 'string' ? (body as { transaction_id: string }).transaction_id : undefined,
      event_type: echo.event_type,
      user_id: echo.user_id,
      request: { method: input.method, url: input.url, headers: maskedHeaders(input.headers), body: journalledBody(input.body, body, authenticated) },
      reply: { status: then?.http_status ?? 200, headers: maskedHeaders(replyHeaders), body: reply.body, dropped: then?.drop_connection ?? false },
      code,
      reason,
      rule: rule && { index: rule.index, name: rule.name },
      balance_before: balanceBefore?.toNumber(),
      balance_after: balance?.toNumber(),
      replayed,
      findings,
    },
  };

  function schemaFindings(): Finding[] {
    const errors = validateRequest.errors ?? [];
    const absent = echo.event_type === undefined && (body === null || typeof body !== 'object' || !('event_type' in body));
    return describeErrors(errors).flatMap(({ pointer, message }, i) => {
      // The discriminator's own words ("value of tag … must be in oneOf") say nothing to a
      // provider; a missing event_type is already reported as required.
      if (errors[i]!.keyword !== 'discriminator') return [finding('SCHEMA', `${pointer} ${message}`, pointer)];
      return absent ? [] : [finding('SCHEMA', '/event_type must be one of login, bet, bet_result', '/event_type')];
    });
  }
}

/** Far beyond any request (the deepest, a bet, nests 4 levels). */
const MAX_DEPTH = 32;

/** Without recursion, so that the check cannot overflow the stack itself. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    if (depth > max) return true;
    for (const child of Object.values(node as object)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

function parseBody(input: CallbackInput, findings: Finding[]): unknown {
  const type = (first(input.headers['content-type']) ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') findings.push(finding('CONTENT_TYPE_WRONG', `Content-Type is ${type ? JSON.stringify(type) : 'missing'}, not application/json`, 'header:Content-Type'));
  if (input.body.trim() === '') {
    findings.push(finding('BODY_EMPTY'));
    return undefined;
  }
  try {
    return sjson.parse(input.body, null, { protoAction: 'error', constructorAction: 'error' });
  } catch (e) {
    const message = (e as Error).message;
    if (message.startsWith('Object contains forbidden')) findings.push(finding('BODY_FORBIDDEN_KEY', `the body has a forbidden key: ${message}`));
    else findings.push(finding('BODY_NOT_JSON', `the body is not valid JSON: ${message}`));
    return undefined;
  }
}

/** event_type and user_id as the caller sent them, when they are readable strings. */
function echoFields(body: unknown): { event_type?: string; user_id?: string } {
  if (body === null || typeof body !== 'object') return {};
  const { event_type, user_id } = body as Record<string, unknown>;
  return {
    event_type: typeof event_type === 'string' ? event_type : undefined,
    user_id: typeof user_id === 'string' ? user_id : undefined,
  };
}

function authenticate(sim: Simulator, apiId: string | undefined, apiKey: string | undefined): Finding[] {
  if (apiId === undefined || apiKey === undefined) {
    const missing = [apiId === undefined && 'Api-Id', apiKey === undefined && 'Api-Key'].filter(Boolean).join(' and ');
    return [finding('CREDENTIALS_MISSING', `${missing} header missing`, `header:${missing.split(' ')[0]}`)];
  }
  const { id: idOk, key: keyOk } = sim.checkCredentials(apiId, apiKey);
  if (idOk && keyOk) return [];
  return [finding('CREDENTIALS_WRONG', `${!idOk ? 'Api-Id' : 'Api-Key'} does not match the scenario's credentials`, `header:${!idOk ? 'Api-Id' : 'Api-Key'}`)];
}

function timestampFindings(ts: number, skewS: number): Finding[] {
  // 1e400 parses to Infinity: not a time at all, unlike a merely fractional or skewed one.
  if (!Number.isFinite(ts)) return [finding('SCHEMA', `/timestamp ${ts} is not a finite number`, '/timestamp')];
  const out: Finding[] = [];
  if (!Number.isInteger(ts)) out.push(finding('TIMESTAMP_NOT_INTEGER', `timestamp ${ts} is not an integer number of seconds`, '/timestamp'));
  const off = Math.round(ts - Date.now() / 1000);
  if (Math.abs(off) > skewS) out.push(finding('TIMESTAMP_SKEWED', `timestamp is ${Math.abs(off)} s ${off < 0 ? 'behind' : 'ahead of'} the wallet clock (allowed ${skewS} s)${ts > 1e11 ? '; milliseconds instead of seconds?' : ''}`, '/timestamp'));
  return out;
}

function reasonFor(code: Code, findings: Finding[], rule: Fired | undefined, balance: Money | undefined, req: CallbackRequest | undefined): string {
  if (rule?.rule.then.code) return `${code} forced by scenario rule "${rule.name}"`;
  if (code === 'R4' && req && req.event_type !== 'login') return `R4: balance ${balance?.toFixed()} is less than total_bet_amount ${req.data.total_bet_amount}`;
  const errors = findings.filter((f) => f.severity === 'error');
  return `${code}: ${errors.map((f) => f.message).join('; ') || 'rejected'}`;
}

function replyHeadersFor(sim: Simulator, input: CallbackInput, eventType: string | undefined, reason: string | undefined): Record<string, string> {
  const fixed = sim.scenario.replyCredentials;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'api-id': fixed?.api_id ?? first(input.headers['api-id']) ?? '',
    'api-key': fixed?.api_key ?? first(input.headers['api-key']) ?? '',
  };
  if (eventType === 'login' || eventType === 'bet_result') headers['callback-url'] = first(input.headers['callback-url']) ?? '';
  if (reason) headers['x-wallet-sim-reason'] = headerSafe(reason);
  return headers;
}

/**
 * The reply: its wire text, with latest_balance written as exact decimal text rather than through
 * a float, and the same reply as an object for the journal.
 */
export function buildReply(code: Code, eventType: string, userId: string, balance: Money | number | null | undefined): { text: string; body: CallbackReply } {
  const body: CallbackReply = { code, event_type: eventType, timestamp: Math.floor(Date.now() / 1000), user_id: userId };
  const head = JSON.stringify(body);
  if (balance === null || balance === undefined) return { text: head, body };
  const text = typeof balance === 'number' ? JSON.stringify(balance) : toJsonNumber(balance);
  body.latest_balance = Number(text);
  return { text: `${head.slice(0, -1)},"latest_balance":${text}}`, body };
}

/** A header value: printable ASCII only, bounded. */
export const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 1000);

/** Largest body an unauthenticated caller gets parsed (for the findings and the echo of its reply). */
export const UNAUTHENTICATED_READ_LIMIT = 16 * 1024;
/** What the journal keeps of a body that was refused unread or that it cannot keep whole. */
export const EXCERPT_CHARS = 2048;
/** Largest body the journal keeps whole from an authenticated caller whose request was not readable. */
const KEPT_WHOLE_CHARS = 64 * 1024;

/**
 * The request body as the journal keeps it: the parsed body of an authenticated caller, else a
 * bounded excerpt of the text, so what a hostile caller sends costs the journal little.
 */
function journalledBody(text: string, parsed: unknown, authenticated: boolean): unknown {
  if (parsed !== undefined && (authenticated || text.length <= UNAUTHENTICATED_READ_LIMIT)) return parsed;
  const limit = authenticated ? KEPT_WHOLE_CHARS : EXCERPT_CHARS;
  return text.length > limit ? `${text.slice(0, limit)}…(${text.length} characters; the rest is not kept)` : text;
}

