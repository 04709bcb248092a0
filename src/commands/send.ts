import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { betRequest, betResultRequest, loginRequest, newGameNo } from '../protocol/seed/callbacks.js';
import { type Exchange, postCallback } from '../client/http.js';
import { formatSent, isRefused, nextStepLine, wrongPathHint, notHttp200Line, notRunningHint, replyCode } from './send-reply.js';
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
import { EVENT_TYPES, type EventType, SUCCESS } from '../protocol/seed/codes.js';
import { EVENT } from '../protocol/seed/wire.js';

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
    throw new InvalidArgumentError(`${what} must be a decimal number, written with a dot, e.g. 10.5`);
  }
  if (!m.isFinite() || (positive && !m.gt(0)))
    throw new InvalidArgumentError(`${what} must be a ${positive ? 'positive ' : ''}decimal number, e.g. 10.5`);
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

export async function runSend(event: EventType, o: SendOptions): Promise<Exchange> {
  const body = composeCallback(event, o);
  return postCallback(o.url, body, { apiId: o.apiId, apiKey: o.apiKey, callbackUrl: o.callbackUrl, timeoutMs: o.timeout });
}

/**
 * The defaults send used when it could not read the scenario, why, and what to pass instead. A
 * login carries no currency: for it, the player alone, or (with --user given) the credentials when
 * they are send's own too.
 */
function fallbackLine(
  given: { user?: string; currency?: string; login: boolean; credentials: boolean },
  picked: Picked & { unread?: Unread },
): string | undefined {
  const token = picked.unread?.tokenOption;
  const or = `${token ? `, or ${token} to read the scenario` : ''}`;
  const currency = given.currency === undefined && !given.login;
  const used = [given.user === undefined && `player ${picked.user}`, currency && `currency ${picked.currency}`].filter(Boolean);
  if (!used.length)
    return given.credentials
      ? undefined
      : `Api-Id and key: send's own defaults, not the scenario's (${picked.unread?.why}); pass --api-id and --api-key${or}`;
  const pass = [given.user === undefined && '--user', currency && '--currency'].filter(Boolean).join(' and ');
  return `${used.join(' and ')}: send's own defaults, not the scenario's (${picked.unread?.why}); pass ${pass}${or}`;
}

/**
 * What came from the scenario, and only that: with --user given, the currency alone (the player
 * may not be in it); for a login, the player alone.
 */
function scenarioLine(given: { user?: string; login: boolean }, picked: Picked): string | undefined {
  const note = picked.note ? ` (${picked.note})` : '';
  if (given.login)
    return given.user === undefined ? `player ${picked.user} from the simulator's ${picked.from}${note}; --user chooses` : undefined;
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
          const given = ['apiId', 'apiKey'].some((k) => command.getOptionValueSource(k) !== 'default');
          const asked = { ...o, login: event === EVENT.login, credentials: given };
          // Said on stderr: stdout stays the exchange alone.
          const line = picked.from !== 'defaults' ? scenarioLine(asked, picked) : fallbackLine(asked, picked);
          if (line) console.error(`wallet-sim send: ${line}`);
          Object.assign(o, { user: picked.user, currency: picked.currency });
          // The credentials it expects (a hosted tenant's are its own), unless given.
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
        const hint = wrongPathHint(o.url, exchange);
        if (hint) console.error(`\nwallet-sim send: ${hint}`);
        const notBooked = hint ? undefined : notHttp200Line(exchange); // (the hint says it all)
        if (notBooked) console.error(`\nwallet-sim send: ${notBooked}`);
        const built = o.body === undefined ? { user: o.user, currency: o.currency, amount: o.amount.toFixed() } : undefined;
        const next = hint ? undefined : nextStepLine(event, exchange, built);
        if (next) console.error(`\nwallet-sim send: ${next}`);
        process.exitCode = !notBooked && replyCode(exchange) === SUCCESS ? 0 : 1;
      })
  );
}
