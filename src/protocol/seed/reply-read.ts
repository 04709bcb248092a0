import { type Money, money } from '../../kernel/money.js';
import { topLevelNumberTexts } from '../../kernel/raw-json.js';
import type { SentCallback, Verdict, WireReply } from '../port.js';
import { type Code, isCode, SUCCESS, verdictOf } from './codes.js';
import { HEADER } from './wire.js';

// The one reader of a wallet's reply: its code, its verdict and its balance, from the text as it
// came (proxy mode relays and records it, the wallet-side checks judge it) or from a body already
// parsed (grading reads the reply as the provider got it).

/** A reply's body, its code (when it is one the protocol knows) and latest_balance (as written, exactly). */
export interface ParsedReply {
  body: unknown;
  code?: Code;
  balance?: Money;
}

/** Parses a reply's text: a body that is not JSON is kept as the text. Never throws. */
export function parseReply(text: string): ParsedReply {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { body: text };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { body };
  const code = codeOf(body);
  const written = writtenBalance(body, text);
  let balance: Money | undefined;
  try {
    balance = written === undefined ? undefined : money(written);
  } catch {
    balance = undefined;
  }
  return { body, code, balance };
}

/** The code of a parsed reply body, when it is one the protocol knows (upper case). */
export function codeOf(body: unknown): Code | undefined {
  const code = (body as { code?: unknown } | null | undefined)?.code;
  return isCode(code) ? code : undefined;
}

/** The latest_balance of a parsed reply body, when it is a number. */
export function balanceOf(body: unknown): number | undefined {
  const balance = (body as { latest_balance?: unknown } | null | undefined)?.latest_balance;
  return typeof balance === 'number' ? balance : undefined;
}

/** latest_balance exactly as the reply's text writes it, when it is a JSON number. */
const writtenBalance = (body: object, text: string): string | undefined =>
  typeof (body as { latest_balance?: unknown }).latest_balance === 'number' ? topLevelNumberTexts(text).get('latest_balance') : undefined;

/** A wallet's reply as the checks read it: its code and balance (exact, from the text), and what is wrong with it. */
export interface ReadReply {
  /** The body's code when it is one of R0-R4. */
  code?: Code;
  /** What the code says happened: applied, refused, unknown; invalid without a code. */
  verdict: Verdict;
  /** latest_balance, exactly as written, when it is a JSON number. */
  balance?: Money;
  /** Each way the reply breaks the spec, in words. */
  problems: string[];
}

/** The problem of a reply that hands the configured Api-Key to a caller that did not send it (its check's fix names it). */
export const KEY_LEAK = 'the Api-Key reply header is the configured key, sent to a caller that did not send it (a leak of the key)';

/** Login and bet_result replies carry Callback-URL. */
const ECHOES_CALLBACK_URL = new Set(['login', 'bet_result']);

/**
 * Reads a reply against the spec (HTTP 200, JSON body per the reply schema, echoes, headers). A
 * reply must not hand the configured Api-Key to a caller that did not send it. A 404 or 405 without
 * a code is no route, not a wallet's reply: said alone, not with all a page lacks of one.
 */
export function readReply(x: SentCallback, a: WireReply): ReadReply {
  const r = readWhole(x, a);
  if ((a.status === 404 || a.status === 405) && r.code === undefined)
    return { ...r, problems: r.problems.filter((p, i) => i === 0 || p === KEY_LEAK) };
  return r;
}

function readWhole(x: SentCallback, a: WireReply): ReadReply {
  const problems: string[] = [];
  const read = (out: Omit<ReadReply, 'verdict'>): ReadReply => ({ ...out, verdict: verdictOf(out.code) });
  if (a.status === 404 || a.status === 405)
    problems.push(`HTTP ${a.status}: no callback route there (is the URL the wallet's callback path, e.g. …/callback?)`);
  else if (a.status !== 200) problems.push(`HTTP ${a.status} (the spec answers every callback with HTTP 200 and a code in the body)`);
  const type = a.headers['content-type'];
  if (!type || !/^application\/json\s*(;|$)/i.test(type))
    problems.push(`Content-Type ${type === undefined ? 'missing' : JSON.stringify(type)} (must be application/json)`);
  for (const name of ['api-id', 'api-key']) if (a.headers[name] === undefined) problems.push(`no ${headerName(name)} reply header`);
  if (
    x.event !== undefined &&
    ECHOES_CALLBACK_URL.has(x.event) &&
    x.sentHeaders.callbackUrl !== undefined &&
    a.headers['callback-url'] === undefined
  )
    problems.push(`no Callback-URL reply header (a ${x.event} reply carries it)`);
  if (!x.sentConfiguredKey && a.repliedConfiguredKey) problems.push(KEY_LEAK);

  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    problems.push(`the body is not JSON: ${JSON.stringify(a.text.slice(0, 80))}${a.text.length > 80 ? '…' : ''}`);
    return read({ problems });
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    problems.push('the body is JSON but not an object');
    return read({ problems });
  }
  const reply = body as Record<string, unknown>;
  const out: Omit<ReadReply, 'verdict'> = { problems };
  const code = codeOf(reply);
  if (code) out.code = code;
  else problems.push(`code ${shown(reply.code)} (must be one of R0, R1, R2, R3, R4, upper case)`);
  if (x.event !== undefined && reply.event_type !== x.event)
    problems.push(`event_type ${shown(reply.event_type)} (must echo the request's "${x.event}")`);
  if (x.user !== undefined && reply.user_id !== x.user)
    problems.push(`user_id ${shown(reply.user_id)} (must echo the request's ${JSON.stringify(x.user)})`);
  if (typeof reply.timestamp !== 'number') problems.push(`timestamp ${shown(reply.timestamp)} (must be a number: Unix time in seconds)`);
  if (reply.latest_balance !== undefined) {
    const text = writtenBalance(reply, a.text);
    if (text === undefined) problems.push(`latest_balance ${JSON.stringify(reply.latest_balance)} (must be a JSON number)`);
    else out.balance = money(text);
  } else if (out.code === SUCCESS) problems.push('no latest_balance on an R0 reply');
  return read(out);
}

/** A reply field as quoted in a problem: its JSON, or `missing`. */
const shown = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value));

const headerName = (lower: string) => lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

/**
 * A reply's headers as the wallet-side checks keep them: the Api-Key's value masked (it is in
 * events a Redis store writes, and in evidence), and whether it was the configured key.
 */
export function maskKey(
  headers: Readonly<Record<string, string | undefined>>,
  configuredKey: string,
): { headers: Record<string, string | undefined>; repliedConfiguredKey: boolean } {
  const key = headers[HEADER.apiKey];
  if (key === undefined) return { headers: { ...headers }, repliedConfiguredKey: false };
  return { headers: { ...headers, [HEADER.apiKey]: '***' }, repliedConfiguredKey: configuredKey !== '' && key === configuredKey };
}
