import { type Money, money } from '../../kernel/money.js';
import { topLevelNumberTexts } from '../../kernel/raw-json.js';
import type { SentCallback, WireReply } from '../port.js';

/** A wallet's reply as the checks read it: its code and balance (exact, from the text), and what is wrong with it. */
export interface ReadReply {
  /** The body's code when it is one of R0-R4. */
  code?: 'R0' | 'R1' | 'R2' | 'R3' | 'R4';
  /** latest_balance, exactly as written, when it is a JSON number. */
  balance?: Money;
  /** Each way the reply breaks the spec, in words. */
  problems: string[];
}

const CODES = new Set(['R0', 'R1', 'R2', 'R3', 'R4']);
/** Login and bet_result replies carry Callback-URL. */
const ECHOES_CALLBACK_URL = new Set(['login', 'bet_result']);

/**
 * Reads a reply against the spec (HTTP 200, JSON body per the reply schema, echoes, headers). A
 * reply must not hand the configured Api-Key to a caller that did not send it.
 */
export function readReply(x: SentCallback, a: WireReply): ReadReply {
  const problems: string[] = [];
  if (a.status !== 200) problems.push(`HTTP ${a.status} (the spec answers every callback with HTTP 200 and a code in the body)`);
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
  if (!x.sentConfiguredKey && a.repliedConfiguredKey)
    problems.push('the Api-Key reply header is the configured key, sent to a caller that did not send it (a leak of the key)');

  let body: unknown;
  try {
    body = JSON.parse(a.text);
  } catch {
    problems.push(`the body is not JSON: ${JSON.stringify(a.text.slice(0, 80))}${a.text.length > 80 ? '…' : ''}`);
    return { problems };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    problems.push('the body is JSON but not an object');
    return { problems };
  }
  const reply = body as Record<string, unknown>;
  const out: ReadReply = { problems };
  if (typeof reply.code === 'string' && CODES.has(reply.code)) out.code = reply.code as ReadReply['code'];
  else problems.push(`code ${JSON.stringify(reply.code)} (must be one of R0, R1, R2, R3, R4, upper case)`);
  if (x.event !== undefined && reply.event_type !== x.event)
    problems.push(`event_type ${JSON.stringify(reply.event_type)} (must echo the request's "${x.event}")`);
  if (x.user !== undefined && reply.user_id !== x.user)
    problems.push(`user_id ${JSON.stringify(reply.user_id)} (must echo the request's ${JSON.stringify(x.user)})`);
  if (typeof reply.timestamp !== 'number')
    problems.push(`timestamp ${JSON.stringify(reply.timestamp)} (must be a number: Unix time in seconds)`);
  if (reply.latest_balance !== undefined) {
    const text = typeof reply.latest_balance === 'number' ? topLevelNumberTexts(a.text).get('latest_balance') : undefined;
    if (text === undefined) problems.push(`latest_balance ${JSON.stringify(reply.latest_balance)} (must be a JSON number)`);
    else out.balance = money(text);
  } else if (out.code === 'R0') problems.push('no latest_balance on an R0 reply');
  return out;
}

const headerName = (lower: string) => lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
