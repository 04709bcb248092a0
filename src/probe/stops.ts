import { ALL_CODES, FAILED, INVALID, isCode, UNAUTHORIZED } from '../protocol/seed/codes.js';
import type { LabeledExchange, ProbeTarget, Stopped } from './types.js';
import { isBlockedPortText } from '../client/blocked-ports.js';

/**
 * Why the probe cannot check a wallet, decided on its first exchanges (the opening login, the first
 * bet): one line each, with what to check. Anything that answers protocol replies, even wrong ones
 * (a lower-case code, HTTP 500 with a code in its JSON), is a wallet, and is graded instead.
 */

/** The one line a probe with wrong credentials prints, instead of every check failing with R2. */
export const CREDENTIALS_REFUSED = `credentials refused (${UNAUTHORIZED}): check --api-id/--api-key`;

/**
 * A stop's line as the probe service (POST /t/:id/probe) says it: the run's fields where the CLI's
 * line names its options (the service has no time-out of its own to set: the CLI's is named).
 */
export function inServiceWords(message: string): string {
  return message
    .replace(/--api-id\/--api-key/g, 'api_id/api_key')
    .replace(/--(api)-(id|key)\b/g, '$1_$2')
    .replace(/--(url|user|currency|decimals)\b/g, '$1')
    .replace(/a longer --timeout/g, "a longer time-out (the CLI's wallet-sim probe --timeout)");
}

const CODE_RANGE = `${ALL_CODES[0]}–${ALL_CODES.at(-1)}`;

/** Why the opening login's answer stops the probe: a blocked port, nothing listens, no reply, the wrong path, not a wallet, refused. */
export function loginStop(x: LabeledExchange, code: string | undefined, t: ProbeTarget): Stopped | undefined {
  // Refused by fetch itself, nothing sent: no time-out nor a running wallet would change that.
  if (!x.reply && isBlockedPortText(x.error)) return { reason: 'blocked-port', message: `cannot call ${t.url}: ${x.error}` };
  // https:// to a plain-HTTP port: the scheme is the fault, not the wallet's speed.
  if (!x.reply && x.error?.startsWith('TLS refused:')) return { reason: 'unreachable', message: `cannot call ${t.url}: ${x.error}` };
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
  if (!answersLikeAWallet(x.reply.body))
    return {
      reason: 'not-a-wallet',
      message:
        `${t.url} does not answer like a wallet: a login got ${describeReply(x.reply)}, not a JSON reply with a code (${CODE_RANGE}); ` +
        `check --url (the wallet's callback URL, path included: not its home page, health check or another API)`,
    };
  if (code === UNAUTHORIZED) return { reason: 'credentials', message: CREDENTIALS_REFUSED };
  if (code === INVALID || code === FAILED)
    return {
      reason: 'unknown-user',
      message: `the wallet refused a login of ${t.user} (${code}): is --user a player of this wallet (and --currency its currency)?`,
    };
  return undefined;
}

/** A protocol reply, however wrong otherwise: a JSON object whose code is one of the protocol's (in any case). */
export function answersLikeAWallet(text: string): boolean {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return false;
  }
  const code = (json as { code?: unknown } | null)?.code;
  return typeof json === 'object' && json !== null && !Array.isArray(json) && typeof code === 'string' && isCode(code.toUpperCase());
}

/** What came back instead of a protocol reply, in a few words: the status, the type, the page's title or the text's start. */
function describeReply(r: NonNullable<LabeledExchange['reply']>): string {
  const type = r.headers['content-type']?.split(';')[0]?.trim();
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(r.body)?.[1]?.trim().replace(/\s+/g, ' ');
  const html = /^\s*<(!doctype html|html|head|body)/i.test(r.body);
  const text = r.body.trim().replace(/\s+/g, ' ');
  const what =
    r.body.trim() === ''
      ? 'an empty body'
      : html
        ? `an HTML page${title ? ` (${JSON.stringify(title.slice(0, 80))})` : ''}`
        : answersJson(text)
          ? `the JSON ${cut(text)}`
          : JSON.stringify(cut(text));
  return `HTTP ${r.status}${type ? ` ${type}` : ''} with ${what}`;
}

const cut = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

function answersJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first bet, a valid one, refused: no other check can run without bets. A wallet refuses a bet
 * in a currency other than the player's, so the refusal says --currency first; where the wallet
 * tells its currency (a currency field of its login or bet reply, or its reason), it is named.
 */
export function firstBetStop(
  bet: LabeledExchange,
  code: string,
  logins: LabeledExchange[],
  t: ProbeTarget,
  what: string,
): Stopped | undefined {
  if (code !== INVALID && code !== FAILED) return undefined;
  const said = reasonOf(bet);
  const told = [bet, ...logins].map((x) => currencyField(x.reply?.body, t.currency)).find((c) => c !== undefined) ?? currencyIn(said, t);
  const quoted = said ? ` (the wallet said: ${said})` : '';
  if (told)
    return {
      reason: 'currency',
      message:
        `the wallet refused the first bet (${code}), ${what}${quoted}: --currency ${t.currency} is not ${t.user}'s currency, ` +
        `the wallet's is ${told}; probe again with --currency ${told}`,
    };
  if (said && /currenc/i.test(said))
    return {
      reason: 'currency',
      message: `the wallet refused the first bet (${code}), ${what}${quoted}: is --currency ${t.currency} ${t.user}'s currency? Probe again with the player's`,
    };
  return {
    reason: 'bet-refused',
    message:
      `the wallet refused the first bet (${code}), ${what}${quoted}, and no check can run without bets: ` +
      `is --currency ${t.currency} ${t.user}'s currency (and may the player bet)? A wallet that refuses valid bets fails certification`,
  };
}

/** A wallet's reason for a refusal: an X-…-Reason header, else a message in its reply. */
function reasonOf(x: LabeledExchange): string | undefined {
  const header = Object.entries(x.reply?.headers ?? {}).find(([name]) => /^x-.*reason$/.test(name))?.[1];
  if (header) return header.slice(0, 200);
  try {
    const body = JSON.parse(x.reply?.body ?? '') as Record<string, unknown>;
    const text = ['message', 'reason', 'error', 'description', 'detail', 'msg'].map((k) => body[k]).find((v) => typeof v === 'string');
    return typeof text === 'string' ? text.slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}

const CURRENCY = /^[A-Z]{3}$/;

/** A `currency` (or `currency_code`) field anywhere in a reply's JSON, when it names another currency than --currency. */
function currencyField(text: string | undefined, mine: string): string | undefined {
  try {
    return fieldIn(JSON.parse(text ?? ''), mine, 0); // (as given: --currency usd is not the wallet's USD)
  } catch {
    return undefined;
  }
}

function fieldIn(json: unknown, mine: string, depth: number): string | undefined {
  if (json === null || typeof json !== 'object' || depth > 3) return undefined;
  for (const [k, v] of Object.entries(json)) {
    const named = typeof v === 'string' && /^currency(_?code)?$/i.test(k) ? v.toUpperCase() : undefined;
    if (named && CURRENCY.test(named) && named !== mine) return named;
    const inner = fieldIn(v, mine, depth + 1);
    if (inner) return inner;
  }
  return undefined;
}

/** A currency code in a reason that speaks of currencies ("currency EUR is not the player's USD"): the one that is not --currency. */
function currencyIn(said: string | undefined, t: ProbeTarget): string | undefined {
  if (!said || !/currenc/i.test(said)) return undefined;
  return said.match(/\b[A-Z]{3}\b/g)?.find((c) => c !== t.currency && !['API', 'URL', 'KEY', 'BET'].includes(c));
}
