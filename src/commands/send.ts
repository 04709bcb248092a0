import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { betRequest, betResultRequest, loginRequest, newGameNo } from '../protocol/seed/callbacks.js';
import { type Exchange, postCallback } from '../client/http.js';
import { isBlockedPortText } from '../client/blocked-ports.js';
import { maskedHeaders } from '../kernel/secrets.js';
import { terminalText } from '../text/terminal-text.js';
import { unreadable } from '../kernel/documents.js';
import { type Picked, type Unread, sendDefaults } from './send-defaults.js';
import {
  adminTokenOf,
  adminTokenOption,
  apiIdOption,
  apiKeyOption,
  callbackUrlOption,
  markRequired,
  namesItsHelp,
  timeoutOption,
  tokenFileOption,
} from './options.js';
import { type Money, money } from '../kernel/money.js';
import { CODES, EVENT_TYPES, type EventType, SUCCESS } from '../protocol/seed/codes.js';
import { EVENT, HEADER } from '../protocol/seed/wire.js';

export interface SendOptions {
  url: string;
  user: string;
  currency: string;
  amount: Money;
  winloss: Money;
  game?: string;
  table: string;
  betType: string;
  transactionId?: string;
  feedbackData: string;
  apiId: string;
  apiKey: string;
  callbackUrl?: string;
  body?: string;
  timeout: number;
  adminToken?: string;
  /** --token-file, read: the token itself. */
  tokenFile?: string;
}

const decimal = (what: string, positive: boolean) => (value: string) => {
  let m: Money;
  try {
    m = money(value);
  } catch {
    throw new InvalidArgumentError(`${what} must be a decimal number`);
  }
  if (!m.isFinite() || (positive && !m.gt(0)))
    throw new InvalidArgumentError(`${what} must be a ${positive ? 'positive ' : ''}decimal number`);
  return m;
};

/** The body to send: the --body file as written, or a well-formed callback built from the options. */
export function composeCallback(
  event: EventType,
  o: Omit<SendOptions, 'url' | 'apiId' | 'apiKey' | 'timeout' | 'adminToken' | 'tokenFile'>,
): string {
  if (o.body !== undefined) {
    try {
      return readFileSync(o.body, 'utf8');
    } catch (e) {
      throw new InvalidArgumentError(`--body ${o.body}: ${unreadable(e as NodeJS.ErrnoException)}`);
    }
  }
  const envelope = { user_id: o.user, transaction_id: o.transactionId, feedback_data: o.feedbackData };
  const round = { currency: o.currency, game_no: o.game ?? newGameNo('sim'), table_no: o.table };
  const line = { bet_index: '1', bet_type: o.betType, bet_amount: o.amount };
  switch (event) {
    case EVENT.login:
      return JSON.stringify(loginRequest(envelope));
    case EVENT.bet:
      return JSON.stringify(betRequest(envelope, round, [line]));
    case EVENT.betResult:
      if (o.game === undefined)
        throw new InvalidArgumentError('bet_result settles a round: name it with --game <game_no> (the one the bet used)');
      return JSON.stringify(betResultRequest(envelope, round, [{ ...line, winloss: o.winloss }]));
  }
}

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

/** A --url with no path (the simulator's base URL) answers no protocol reply: the callback route has one (/callback). */
export function noPathHint(url: string, x: Exchange): string | undefined {
  const u = new URL(url);
  if (u.pathname !== '/' || !x.reply || replyCode(x) !== undefined) return undefined;
  return `${url} answered HTTP ${x.reply.status}, not a callback reply: --url is the callback URL, e.g. --url ${u.origin}/callback`;
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

/**
 * What the round needs next, said only once the reply is known: a bet answered R0 is settled; a
 * bet or bet_result with no answer (no reply, not HTTP 200, R1) is resent unchanged under its own
 * transaction_id; a refusal (R2–R4) is neither resent nor, for a bet, settled.
 */
export function nextStepLine(event: EventType, x: Exchange, fromOptions: boolean): string | undefined {
  if (event === EVENT.login || (!x.reply && (isRefused(x) || isBlockedPortText(x.error)))) return undefined;
  const sent = sentIds(x.request.body);
  if (!sent) return undefined;
  const { game, id } = sent;
  const code = x.reply?.status === 200 ? replyCode(x) : undefined;
  if (code === SUCCESS) return event === EVENT.bet ? `settle round ${game} with send bet_result --game ${game}` : undefined;
  if (code !== undefined && code !== 'R1') {
    const round = event === EVENT.bet ? `, and do not settle round ${game}` : '';
    return `${code} refuses ${event} ${id}: do not resend it${round}`;
  }
  const again = fromOptions ? `the same options and --game ${game} --transaction-id ${id}` : 'the same --body';
  const why = code === 'R1' ? 'R1 (failed processing)' : 'no answer';
  const settle = event === EVENT.bet ? `; settle round ${game} only after the bet gets R0` : '';
  return `${why}: the ${event} may or may not be booked; resend it unchanged with ${again}${settle}`;
}

/** The round and transaction a sent body names, when it is a callback that names both. */
function sentIds(body: string): { game: string; id: string } | undefined {
  try {
    const sent = JSON.parse(body) as { data?: { game_no?: unknown } | null; transaction_id?: unknown } | null;
    const [game, id] = [sent?.data?.game_no, sent?.transaction_id];
    return typeof game === 'string' && typeof id === 'string' ? { game, id } : undefined;
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

export async function runSend(event: EventType, o: SendOptions): Promise<Exchange> {
  const body = composeCallback(event, o);
  return postCallback(o.url, body, { apiId: o.apiId, apiKey: o.apiKey, callbackUrl: o.callbackUrl, timeoutMs: o.timeout });
}

/** The defaults send used when it could not read the scenario, why, and what to pass instead. */
function fallbackLine(given: { user?: string; currency?: string }, picked: Picked & { unread?: Unread }): string {
  const used = [given.user === undefined && `player ${picked.user}`, given.currency === undefined && `currency ${picked.currency}`];
  const pass = [given.user === undefined && '--user', given.currency === undefined && '--currency'].filter(Boolean).join(' and ');
  const token = picked.unread?.tokenOption;
  return (
    `${used.filter(Boolean).join(' and ')}: send's own defaults, not the scenario's (${picked.unread?.why}); ` +
    `pass ${pass}${token ? `, or ${token} to read the scenario` : ''}`
  );
}

/** What came from the scenario, and only that: with --user given, the currency alone (the player may not be in it). */
function scenarioLine(given: { user?: string }, picked: Picked): string {
  const note = picked.note ? ` (${picked.note})` : '';
  return given.user === undefined
    ? `player ${picked.user} (${picked.currency}) from the simulator's ${picked.from}${note}; --user and --currency choose`
    : `currency ${picked.currency} from the simulator's ${picked.from} (--user ${given.user} given); --currency chooses`;
}

export function sendCommand(): Command {
  return (
    namesItsHelp(markRequired(new Command('send')))
      .description(
        'Send one well-formed callback (fresh transaction_id, exact totals) and print the reply; exit 0 on HTTP 200 with R0, else 1',
      )
      .addArgument(new Command().createArgument('<event>', 'login, bet or bet_result').choices(EVENT_TYPES))
      .addOption(callbackUrlOption())
      .option(
        '--user <user_id>',
        "player (default: the first the simulator's active scenario lists that no rule's when names by user_id; " +
          'every one named: player-1 if the scenario creates players and no rule names it, else the listed player fewest rules name; ' +
          'no scenario read: player-1)',
      )
      .option('--currency <code>', "currency of bet and bet_result (default: the player's in the simulator's scenario, else KRW)")
      .option('--amount <n>', 'the bet amount (bet_result: the stake of the round)', decimal('--amount', true), money(1000))
      .option('--winloss <n>', 'bet_result: net win (+) or loss (-) of the round', decimal('--winloss', false), money(0))
      .option('--game <game_no>', 'round id; bet: default a fresh one (printed), bet_result: required')
      .option('--table <table_no>', 'table id', 'WS01')
      .option('--bet-type <type>', 'bet_type of the single bet', 'P')
      .option('--transaction-id <id>', 'instead of a fresh one (to try a replay)')
      .option('--feedback-data <s>', 'feedback_data', 'wallet-sim-send')
      .addOption(apiIdOption().default('sandbox'))
      .addOption(apiKeyOption().default('sandbox-key'))
      .option('--callback-url <url>', 'Callback-URL header (default: --url)')
      .option('--body <file>', 'send this file as the body, byte for byte, instead of building one')
      .addOption(timeoutOption('how long to wait for the reply'))
      // A token only from the command line: one from the environment, kept for a local simulator,
      // would go to whatever host --url names.
      .addOption(adminTokenOption(false))
      .addOption(
        tokenFileOption(
          "file holding the admin token, to read the scenario for the defaults (a hosted tenant's, with --url <host>/t/<id>/callback); wins over --admin-token",
          false,
        ),
      )
      .action(async (event: EventType, o: SendOptions, command: Command) => {
        if (o.body === undefined && (o.user === undefined || o.currency === undefined)) {
          const picked = await sendDefaults(o.url, o, o.timeout, adminTokenOf(o));
          // Said on stderr: stdout stays the exchange alone.
          if (picked.from !== 'defaults') console.error(`wallet-sim send: ${scenarioLine(o, picked)}`);
          else console.error(`wallet-sim send: ${fallbackLine(o, picked)}`);
          Object.assign(o, { user: picked.user, currency: picked.currency });
          // The credentials it expects (a hosted tenant's are its own), unless given.
          const given = ['apiId', 'apiKey'].some((k) => command.getOptionValueSource(k) !== 'default');
          const c = picked.credentials;
          if (c && !given && (c.api_id !== o.apiId || c.api_key !== o.apiKey)) {
            Object.assign(o, { apiId: c.api_id, apiKey: c.api_key });
            console.error(
              `wallet-sim send: Api-Id ${terminalText(c.api_id)} and its key from the simulator's ${picked.from}; --api-id and --api-key choose`,
            );
          }
        }
        // The round's id, said apart from the body: the bet_result that settles it names it.
        if (event === EVENT.bet && o.body === undefined) {
          o.game ??= newGameNo('sim');
          console.error(`wallet-sim send: game_no ${o.game}`);
        }
        let exchange: Exchange;
        try {
          exchange = await runSend(event, o);
        } catch (e) {
          if (e instanceof InvalidArgumentError) command.error(`wallet-sim send: ${(e as Error).message}`);
          throw e;
        }
        console.log(formatSent(exchange));
        if (isRefused(exchange)) console.error(`\nwallet-sim send: ${notRunningHint(o.url)}`);
        const hint = noPathHint(o.url, exchange);
        if (hint) console.error(`\nwallet-sim send: ${hint}`);
        const notBooked = notHttp200Line(exchange);
        if (notBooked) console.error(`\nwallet-sim send: ${notBooked}`);
        const next = nextStepLine(event, exchange, o.body === undefined);
        if (next) console.error(`\nwallet-sim send: ${next}`);
        process.exitCode = !notBooked && replyCode(exchange) === SUCCESS ? 0 : 1;
      })
  );
}
