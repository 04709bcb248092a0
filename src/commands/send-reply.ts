import type { Exchange } from '../client/http.js';
import { isBlockedPortText } from '../client/blocked-ports.js';
import { maskedHeaders } from '../kernel/secrets.js';
import { CODES, type EventType, verdictOf } from '../protocol/seed/codes.js';
import { EVENT, HEADER } from '../protocol/seed/wire.js';

// How `send` reads a reply: the exchange as printed, what went wrong, and what the round needs next.

const SHOWN = ['content-type', HEADER.apiId, HEADER.apiKey, HEADER.callbackUrl, HEADER.reason];
const pretty = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};
const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** The exchange as a person reads it: request, reply status, the headers of interest, the body, and the code's meaning. */
export function formatSent(x: Exchange): string {
  const out = [`→ POST ${x.request.url}`];
  for (const [k, v] of Object.entries(maskedHeaders(x.request.headers))) out.push(`  ${k}: ${v}`);
  out.push(indent(pretty(x.request.body)), '');
  if (!x.reply) {
    out.push(isBlockedPortText(x.error) ? `← not sent: ${x.error}` : `← no reply after ${x.durationMs} ms: ${x.error}`);
    return out.join('\n');
  }
  out.push(`← HTTP ${x.reply.status} (${x.durationMs} ms)`);
  const shown = maskedHeaders(
    Object.fromEntries(SHOWN.filter((k) => x.reply!.headers[k] !== undefined).map((k) => [k, x.reply!.headers[k]!])),
  );
  for (const [k, v] of Object.entries(shown)) out.push(`  ${k}: ${v}`);
  out.push(indent(x.reply.body === '' ? '(empty body)' : x.reply.body));
  const code = replyCode(x);
  if (code) out.push('', `${code}: ${CODES[code as keyof typeof CODES] ?? 'not a code of the spec'}`);
  return out.join('\n');
}

/** Nothing listens at the URL (the usual cause: the simulator was not started). */
export const isRefused = (x: Exchange) => !x.reply && /ECONNREFUSED/.test(x.error ?? '');

export const notRunningHint = (url: string) =>
  `nothing answers at ${new URL(url).origin} (ECONNREFUSED): is wallet-sim running at ${url}? start it with wallet-sim start`;

/**
 * A --url that is not the callback route answers no protocol reply: the simulator's base URL, a
 * hosted tenant's (`/t/<id>`), another path answered 404 or 405. The callback route's URL, when it can be told.
 */
export function wrongPathHint(url: string, x: Exchange): string | undefined {
  const u = new URL(url);
  if (!x.reply || replyCode(x) !== undefined) return undefined;
  const answered = `${url} answered HTTP ${x.reply.status}, not a callback reply: --url is the callback URL`;
  if (u.pathname === '/') return `${answered}, e.g. --url ${u.origin}/callback`;
  if (x.reply.status !== 404 && x.reply.status !== 405) return undefined;
  if (u.pathname.endsWith('/callback/')) return `${answered}, without the trailing slash: --url ${url.replace(/\/+$/, '')}`;
  if (u.pathname.endsWith('/callback')) return undefined; // (its body says why: an unknown tenant)
  if (/^\/t\/[^/]+\/?$/.test(u.pathname)) return `${answered}: a tenant's ends in /callback, --url ${url.replace(/\/+$/, '')}/callback`;
  return `${answered} (wallet-sim's is ${u.origin}/callback unless started with --path, a hosted tenant's ${u.origin}/t/<id>/callback)`;
}

/**
 * A reply that is not HTTP 200 is no answer a provider may book, whatever its body says (the
 * protocol answers every reply, success or failure, with HTTP 200): the line why send exits 1 on it.
 */
export function notHttp200Line(x: Exchange): string | undefined {
  if (!x.reply || x.reply.status === 200) return undefined;
  return (
    `HTTP ${x.reply.status} is not a reply a provider may book, whatever its body says: ` +
    'its client treats it as no answer, and retries or resolves the callback as for a lost reply; exit 1'
  );
}

/** The options a callback built from them was sent with: what a resend or a settlement repeats. */
export interface SentWith {
  user: string;
  currency: string;
  /** The stake (--amount), as given. */
  amount: string;
}

/**
 * What the round needs next, said only once the reply is known: a bet answered R0 is settled; a
 * bet or bet_result with no definite answer (no reply, not HTTP 200, R1, no code of the spec) is
 * resent unchanged under its own transaction_id; a refusal (R2–R4) is not resent. `options`: the
 * options the body was built from (none for --body). Nothing is said when nothing was sent, or
 * when the URL is the fault (a 404: the hint before says so).
 */
export function nextStepLine(event: EventType, x: Exchange, options: SentWith | undefined): string | undefined {
  if (
    !x.reply &&
    (isRefused(x) ||
      isBlockedPortText(x.error) ||
      /ENOTFOUND|EAI_AGAIN|EAI_NONAME|getaddrinfo|EHOSTUNREACH|ENETUNREACH/.test(x.error ?? ''))
  )
    return undefined;
  if (x.reply?.status === 404 || x.reply?.status === 405) return undefined;
  const sent = sentIds(x.request.body);
  if (!sent) return undefined;
  const { game, id } = sent;
  // A --body file says what it is; the argument may not.
  const what = sent.event === EVENT.bet || sent.event === EVENT.betResult ? sent.event : event;
  if (what === EVENT.login) return undefined;
  const code = x.reply?.status === 200 ? replyCode(x) : undefined;
  const verdict = code === undefined ? 'none' : verdictOf(code);
  const player = options ? ` --user ${options.user} --currency ${options.currency} --amount ${options.amount}` : '';
  if (verdict === 'applied') {
    if (what !== EVENT.bet) return undefined;
    return options
      ? `settle round ${game}: send bet_result with the same --url and credentials,${player} --game ${game} ` +
          "--winloss <the round's net win (+) or loss (-)>"
      : `settle round ${game} with a bet_result of the bet's player, currency and stake (send bet_result --game ${game} …)`;
  }
  if (verdict === 'refused') {
    return what === EVENT.bet
      ? `${code} refuses bet ${id}: do not resend it; settle round ${game} only if another of its bets got R0`
      : `${code} refuses bet_result ${id}: do not resend it; round ${game} stays open until a corrected settlement is applied`;
  }
  const why = verdict === 'unknown' ? 'R1 (failed processing)' : verdict === 'invalid' ? `no code of the spec (${code})` : 'no answer';
  const again = options ? `the same options,${player} --game ${game} --transaction-id ${id}` : 'the same --body';
  const settle = what === EVENT.bet ? `; settle round ${game} only once the bet gets R0` : '';
  return (
    `${why}: the ${what} may or may not be booked; resend it unchanged with ${again}, within the retry window ` +
    `(wallet-sim's retry_window_s, 60 s by default), each wait no shorter than the last${settle}`
  );
}

/** The round, transaction and event a sent body names, when it is a callback that names the first two. */
function sentIds(body: string): { game: string; id: string; event: unknown } | undefined {
  try {
    const sent = JSON.parse(body) as { data?: { game_no?: unknown } | null; transaction_id?: unknown; event_type?: unknown } | null;
    const [game, id] = [sent?.data?.game_no, sent?.transaction_id];
    return typeof game === 'string' && typeof id === 'string' ? { game, id, event: sent?.event_type } : undefined;
  } catch {
    return undefined;
  }
}

export function replyCode(x: Exchange): string | undefined {
  try {
    const code = (JSON.parse(x.reply?.body ?? '') as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
