import type { Code } from './codes.js';
import type { Finding } from '../findings.js';
import type { CallbackReply, CallbackRequest } from '../types.generated.js';
import { eventNamed, eventOf } from './index.js';
import { type Money, toJsonNumber } from '../../kernel/money.js';
import type { ReplyContext } from '../port.js';
import { type CallbackInput, first, UNAUTHENTICATED_READ_LIMIT } from './read.js';

/** Why a callback was not answered R0: the forcing rule, the event's own refusal, or the error findings. */
export function reasonFor(
  code: Code,
  findings: Finding[],
  /** The name of the scenario rule that forced the code, if one did. */
  forcedBy: string | undefined,
  balance: Money | undefined,
  req: CallbackRequest | undefined,
): string {
  if (forcedBy !== undefined) return `${code} forced by scenario rule "${forcedBy}"`;
  const refusal = req && eventOf(req).refusal?.(code, req, balance);
  if (refusal) return refusal;
  // One error repeated (the same amount in several bets) is said once, with every field it was found at.
  const at = new Map<string, string[]>();
  for (const f of findings) {
    if (f.severity !== 'error') continue;
    const fields = at.get(f.message) ?? [];
    if (!at.has(f.message)) at.set(f.message, fields);
    // The field is named unless the message names it already ("total_bet_amount 3 != sum …").
    const name = f.pointer?.split('/').pop() ?? '';
    if (f.pointer?.startsWith('/') && !f.message.includes(name) && !fields.includes(f.pointer)) fields.push(f.pointer);
  }
  const said = [...at].map(([message, fields]) => (fields.length ? `${fields.join(', ')}: ${message}` : message));
  return `${code}: ${said.join('; ') || 'rejected'}`;
}

export function replyHeadersFor(
  scenario: ReplyContext,
  input: CallbackInput,
  eventType: string | undefined,
  reason: string | undefined,
): Record<string, string> {
  const fixed = scenario.replyCredentials;
  const id = fixed?.api_id ?? first(input.headers['api-id']) ?? '';
  const key = fixed?.api_key ?? first(input.headers['api-key']) ?? '';
  // Each shape made whole in one literal (a header added afterwards would take an array of its own:
  // one more object held per journalled reply).
  if (!eventNamed(eventType)?.echoesCallbackUrl) {
    if (!reason) return plainHeaders(id, key, undefined);
    return { 'content-type': 'application/json', 'api-id': id, 'api-key': key, 'x-wallet-sim-reason': headerSafe(reason) };
  }
  const url = first(input.headers['callback-url']) ?? '';
  if (!reason) return plainHeaders(id, key, url);
  return {
    'content-type': 'application/json',
    'api-id': id,
    'api-key': key,
    'callback-url': url,
    'x-wallet-sim-reason': headerSafe(reason),
  };
}

/**
 * The headers of a plain reply (no reason), the same for every callback of a caller: the last of
 * each shape is shared, frozen (the reply's writers copy them), instead of one object per callback
 * for the journal to keep (docs/bench.md).
 */
function plainHeaders(id: string, key: string, url: string | undefined): Record<string, string> {
  const slot = url === undefined ? 0 : 1;
  const last = plain[slot];
  if (last && last['api-id'] === id && last['api-key'] === key && last['callback-url'] === url) return last;
  const made =
    url === undefined
      ? { 'content-type': 'application/json', 'api-id': id, 'api-key': key }
      : { 'content-type': 'application/json', 'api-id': id, 'api-key': key, 'callback-url': url };
  return (plain[slot] = Object.freeze(made) as Record<string, string>);
}
const plain: (Record<string, string> | undefined)[] = [undefined, undefined];

/**
 * The reply: its wire text, with latest_balance written as exact decimal text rather than through
 * a float, and the same reply as an object for the journal.
 */
export function buildReply(
  code: Code,
  eventType: string,
  userId: string,
  balance: Money | number | null | undefined,
): { text: string; body: CallbackReply; balance?: number } {
  const timestamp = Math.floor(Date.now() / 1000);
  // What JSON.stringify(body) writes, field by field (the code and event are a few known words).
  const head = `{"code":${quoted(code)},"event_type":${quoted(eventType)},"timestamp":${timestamp},"user_id":${JSON.stringify(userId)}`;
  if (balance === null || balance === undefined)
    return { text: `${head}}`, body: { code, event_type: eventType, timestamp, user_id: userId }, balance: undefined };
  const text = typeof balance === 'number' ? JSON.stringify(balance) : toJsonNumber(balance);
  // (One literal per shape, as for the headers.)
  const latest = Number(text);
  const body: CallbackReply = { code, event_type: eventType, timestamp, user_id: userId, latest_balance: latest };
  return { text: `${head},"latest_balance":${text}}`, body, balance: latest };
}

/** JSON text of a code or an event name, kept for the few there are (any other string is quoted anew). */
function quoted(word: string): string {
  let text = quotedWords.get(word);
  if (text === undefined) {
    text = JSON.stringify(word);
    if (quotedWords.size < 64) quotedWords.set(word, text);
  }
  return text;
}
const quotedWords = new Map<string, string>();

/** A header value: printable ASCII only, bounded. */
export const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 1000);

/** What the journal keeps of a body that was refused unread or that it cannot keep whole. */
export const EXCERPT_CHARS = 2048;
/** Largest body the journal keeps whole from an authenticated caller whose request was not readable. */
const KEPT_WHOLE_CHARS = 64 * 1024;

/**
 * The request body as the journal keeps it: the parsed body of an authenticated caller, else a
 * bounded excerpt of the text, so what a hostile caller sends costs the journal little.
 */
export function journalledBody(text: string, parsed: unknown, authenticated: boolean): unknown {
  if (parsed !== undefined && (authenticated || text.length <= UNAUTHENTICATED_READ_LIMIT)) return parsed;
  const limit = authenticated ? KEPT_WHOLE_CHARS : EXCERPT_CHARS;
  return text.length > limit ? `${text.slice(0, limit)}…(${text.length} characters; the rest is not kept)` : text;
}
