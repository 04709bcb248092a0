import { readFileSync } from 'node:fs';
import { type Command, Help, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_TIMEOUT_MS } from '../client/http.js';
import { tokenProblem } from '../kernel/secrets.js';
import { headerTextProblem } from '../kernel/documents.js';

/*
 * The options several subcommands share, defined once (Prism's sharedOptions.ts): the same flag,
 * description, env var and check wherever it appears.
 */

const BASE_URL = 'http://127.0.0.1:8080';
const CALLBACK_URL = `${BASE_URL}/callback`;

/** An http(s) URL option, checked when the command line is read (before anything is sent or printed). */
export const httpUrl =
  (example: string) =>
  (value: string): string => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new InvalidArgumentError(`not a URL; give an http URL such as ${example}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new InvalidArgumentError(`${url.protocol} is not http: or https:; give an http URL such as ${example}`);
    }
    return value;
  };

/**
 * Digits, optionally signed, optionally with a positive exponent (1e6). Not Number()'s wider
 * grammar: it reads "" and " " as 0 and "0x10" as 16, so an empty --seed or WALLET_SIM_SEED="" would
 * start silently with 0.
 */
const INTEGER_TEXT = /^[+-]?\d+(?:e\+?\d+)?$/i;

/** A whole number from min to max, written in decimal digits. */
export const int =
  (min: number, max: number) =>
  (value: string): number => {
    const n = INTEGER_TEXT.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max} (decimal digits, e.g. ${Math.min(max, Math.max(min, 42))})`);
    }
    return n;
  };

/** --url of a running simulator (verify, report, tail): its base URL. */
export const simulatorUrlOption = () =>
  new Option('--url <url>', `the simulator's base URL, e.g. ${BASE_URL} (not the callback path)`)
    .argParser(httpUrl(BASE_URL))
    .makeOptionMandatory();

/** --url of a receiver's callback (send, probe). */
export const callbackUrlOption = () =>
  new Option('--url <url>', `the receiver's callback URL, e.g. ${CALLBACK_URL}`).argParser(httpUrl(CALLBACK_URL)).makeOptionMandatory();

/** --admin-token for a simulator started with --admin-token (verify, report, tail). */
export const adminTokenOption = (fromEnv = true) => {
  const option = new Option('--admin-token <token>', 'Bearer token of an admin API started with --admin-token');
  return fromEnv ? option.env('WALLET_SIM_ADMIN_TOKEN') : option;
};

/** A token file's text, trimmed of its final newline (a usage error naming the file when it cannot be read). */
export function readTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InvalidArgumentError(
      `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give the file holding the token`,
    );
  }
  const token = text.replace(/\r?\n$/, '');
  if (!token) throw new InvalidArgumentError(`${path} is empty: give the file holding the token`);
  // Refused here, never sent: an HTTP client's complaint about the header would quote the token.
  const problem = tokenProblem(token);
  if (problem) throw new InvalidArgumentError(`${path} ${problem} (its content is not shown)`);
  return token;
}

/** --token-file: a tenant's token (or any admin token) from a file, with --url <host>/t/<id> (verify, report, reconcile, tail, send). */
export const tokenFileOption = (
  description = "file holding the admin token (a hosted tenant's, with --url <host>/t/<id>); wins over --admin-token",
  fromEnv = true,
) => {
  const option = new Option('--token-file <file>', description).argParser(readTokenFile);
  return fromEnv ? option.env('WALLET_SIM_TOKEN_FILE') : option;
};

/** The token to send: --token-file's (read at parse time), else --admin-token. */
export const adminTokenOf = (o: { adminToken?: string; tokenFile?: string }): string | undefined => o.tokenFile ?? o.adminToken;

/** --api-id and --api-key: the credentials a callback carries (send, probe; start has its own meaning). */
/** An HTTP header's value: refused when fetch could not send it (a pasted "…"), naming the character; empty is the caller's to judge. */
const headerText = (value: string) => {
  const problem = value === '' ? undefined : headerTextProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
};

export const apiIdOption = () => new Option('--api-id <id>', 'Api-Id header to send').env('WALLET_SIM_API_ID').argParser(headerText);
export const apiKeyOption = () => new Option('--api-key <key>', 'Api-Key header to send').env('WALLET_SIM_API_KEY').argParser(headerText);

/** --junit <file>: a JUnit XML report besides the text (verify, probe, report). */
export const junitOption = (description = 'also write a JUnit XML report') => new Option('--junit <file>', description);

/** --timeout <ms>: how long to wait for each reply (send, probe). */
export const timeoutOption = (description = 'how long to wait for each reply') =>
  new Option('--timeout <ms>', description).argParser(int(1, 600_000)).default(DEFAULT_TIMEOUT_MS);

/**
 * A usage error (an option missing or refused, an unknown subcommand) exits 2 and names the --help
 * to read, for the commands whose exit 1 says a check failed or was refused: CI must tell "the
 * command line is wrong" from "your client failed". Commander's own exit for it is 1. Applied to
 * `command` and its subcommands; `--help` and `--version` still exit 0.
 */
export function usageErrorsExit2(command: Command, path = `wallet-sim ${command.name()}`): Command {
  namesItsHelp(command, path).exitOverride((e) => process.exit(e.exitCode === 0 ? 0 : 2));
  for (const sub of command.commands) usageErrorsExit2(sub, `${path} ${sub.name()}`);
  return command;
}

/** A usage error names the --help to read (every command; usageErrorsExit2 also changes the exit). */
export const namesItsHelp = (command: Command, path = `wallet-sim ${command.name()}`): Command =>
  typoFirst(command.showHelpAfterError(`(run ${path} --help for its options)`)).hook('preAction', (_, action) => {
    // Checked here, not by an argParser: commander's message for a refused argument quotes it, and this one is a secret.
    const token = (action.opts() as { adminToken?: unknown }).adminToken;
    const problem = typeof token === 'string' ? tokenProblem(token) : undefined;
    if (problem) action.error(`error: the --admin-token given ${problem} (it is not shown)`);
  });

/**
 * An unknown option is reported before a missing required one (commander checks the required first):
 * `tenant create --nmae acme` is a typo of --name, "did you mean --name?", not "--name not specified".
 * Not for a command with subcommands (the options are its subcommand's), nor when --help is asked.
 */
function typoFirst(command: Command): Command {
  const parse = command.parseOptions.bind(command);
  const commanders = (command as unknown as { unknownOption(flag: string): void }).unknownOption.bind(command);
  const unknownOption = (flag: string) => {
    // A report's format is an option of its own (a file each), not a --format: said with the options there are.
    const files = ['--junit', '--html'].filter((f) => command.options.some((o) => o.long === f));
    if (/^--(format|output|out|o)(=|$)/.test(flag) && files.length && !command.options.some((o) => o.long === flag.split('=')[0]))
      command.error(
        `error: unknown option '${flag}': write each report as a file of its own, ${files.map((f) => `${f} <file>`).join(', ')}`,
        {
          code: 'commander.unknownOption',
        },
      );
    commanders(flag);
  };
  command.parseOptions = (argv) => {
    const parsed = parse(argv);
    const help = parsed.unknown.some((a) => a === '--help' || a === '-h');
    if (command.commands.length === 0 && parsed.unknown[0] !== undefined && !help) unknownOption(parsed.unknown[0]);
    return parsed;
  };
  return command;
}

/** `--help` says which options are required (commander only says so once one is missing). */
export function markRequired(command: Command): Command {
  return command.configureHelp({
    optionDescription(this: Help, option: Option): string {
      const text = Help.prototype.optionDescription.call(this, option);
      return option.mandatory ? `(required) ${text}` : text;
    },
  });
}
