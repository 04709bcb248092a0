import { Command, Option } from 'commander';
import { describeFetchError, isBadPort } from '../client/http.js';
import { houseError, refusalOf } from '../client/refusals.js';
import type { JournalEntry } from '../journal/journal.js';
import { MATCH_FIELDS } from '../journal/match-text.js';
import { adminTokenOf, adminTokenOption, tokenFileOption, markRequired, usageErrorsExit2, simulatorUrlOption } from './options.js';
import { terminalText } from '../text/terminal-text.js';
import { BASE_URL_WANTED, baseUrlWanted } from '../verify/admin-client.js';

interface TailOptions {
  url: string;
  json: boolean;
  adminToken?: string;
  /** --token-file, read: the token itself. */
  tokenFile?: string;
  token?: string;
  /** The filters, by the option's camelCase name (userId for --user-id). */
  [filter: string]: unknown;
}

const MESSAGES = {
  CANNOT_CONNECT: (url: string, why: string) =>
    `wallet-sim tail: cannot read ${url}/admin/events (${why}); is wallet-sim running at ${url}?`,
  REFUSED_BY: (url: string, refusal: string) => `wallet-sim tail: ${url} answered ${refusal}`,
  ANSWERED: (url: string, status: number, message: string | undefined) =>
    `wallet-sim tail: cannot read ${url}/admin/events: HTTP ${status}${message ? `: ${message}` : ''}`,
  FOLLOWING: (url: string, only: string) =>
    `wallet-sim tail: following the callbacks ${url} receives${only ? ` (only ${only})` : ''}; Ctrl-C to stop`,
  ENDED: (url: string, why: string | undefined) => `wallet-sim tail: ${url} ended the stream${why ? ` (${why})` : ''}`,
  LOST: (url: string, why: string) => `wallet-sim tail: lost the stream of ${url} before its end (${why}): run it again to follow on`,
  NOT_FOUND: (url: string) => `wallet-sim tail: ${url}/admin/events: HTTP 404; ${baseUrlWanted(url)}`,
  NOT_A_STREAM: (url: string, type: string | null) =>
    `wallet-sim tail: ${url}/admin/events answered 200 but not an event stream (content-type ${type ?? 'none'}); is ${url} a wallet-sim? ${BASE_URL_WANTED}`,
  REFUSED: (url: string, message: string) => `wallet-sim tail: ${url} refused the filters: ${message}`,
} as const;

/** The journal's filter language as options: --user-id for user_id, and so on; each as its schema describes it. */
const FILTERS = Object.entries(MATCH_FIELDS).map(([name, field]) => {
  const flag = name.replace(/_/g, '-');
  const about = `only callbacks with this ${name}${field.description ? ` (${field.description.replace(/\.$/, '')})` : ''}`;
  const option = new Option(`--${flag} <${field.type === 'boolean' ? 'true|false' : name}>`, about);
  const choices = field.type === 'boolean' ? ['true', 'false'] : field.enum;
  return { name, key: option.attributeName(), option: choices ? option.choices(choices) : option };
});

export function tailCommand(): Command {
  const command = usageErrorsExit2(markRequired(new Command('tail')))
    .description(
      'Follow the callbacks a running simulator receives, one line each (exit 0 when the simulator ends the stream, 2 when it cannot be followed)',
    )
    .addOption(simulatorUrlOption())
    .option('--json', 'one journal entry per line, as JSON', false)
    .addOption(adminTokenOption())
    .addOption(tokenFileOption())
    .addOption(new Option('--token <token>', 'same as --admin-token').hideHelp());
  for (const f of FILTERS) command.addOption(f.option);
  return command.action(async (o: TailOptions) => {
    const filters = new URLSearchParams(FILTERS.flatMap((f) => (typeof o[f.key] === 'string' ? [[f.name, o[f.key] as string]] : [])));
    process.exitCode = await tail(o.url.replace(/\/+$/, ''), o.json, o.token ?? adminTokenOf(o), filters);
  });
}

/**
 * Reads GET /admin/events (with the filters as its query) until the simulator ends it; returns the
 * exit code: 0 the simulator ended the stream, 2 it could not be followed (not reached, refused,
 * not an event stream, the connection lost mid-way).
 */
async function tail(url: string, json: boolean, token: string | undefined, filters: URLSearchParams): Promise<number> {
  const query = filters.toString();
  let res: Response;
  try {
    res = await fetch(`${url}/admin/events${query ? `?${query}` : ''}`, {
      headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
  } catch (e) {
    console.error(
      isBadPort(e) ? `wallet-sim tail: ${describeFetchError(e, 0, url)}` : MESSAGES.CANNOT_CONNECT(url, describeFetchError(e, 0)),
    );
    return 2;
  }
  // A server answered: it is running, and its answer (a token wanted or refused, a wrong path) says what to do.
  const refused = res.status === 401 || res.status === 403 ? refusalOf(res.status, await res.text(), !!token) : undefined;
  if (refused) {
    console.error(MESSAGES.REFUSED_BY(url, refused));
    return 2;
  }
  if (res.status === 400) {
    console.error(MESSAGES.REFUSED(url, (await messageOf(res)) ?? 'HTTP 400'));
    return 2;
  }
  if (res.status === 404) {
    const { error, message } = houseError(await res.text().catch(() => ''));
    // A reason of the server's own (an unknown tenant) says what to do; else the usual cause, a callback URL as --url.
    console.error(error !== undefined && error !== 'NOT_FOUND' && message ? MESSAGES.ANSWERED(url, 404, message) : MESSAGES.NOT_FOUND(url));
    return 2;
  }
  if (res.status === 200 && !/^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '')) {
    await res.body?.cancel();
    console.error(MESSAGES.NOT_A_STREAM(url, res.headers.get('content-type')));
    return 2;
  }
  if (res.status !== 200 || !res.body) {
    console.error(MESSAGES.ANSWERED(url, res.status, await messageOf(res)));
    return 2;
  }
  // (on stderr, so stdout stays the lines alone: connected, and quiet until a callback comes)
  console.error(MESSAGES.FOLLOWING(url, [...filters].map(([name, value]) => `${name}=${value}`).join(', ')));
  const colour = !json && process.stdout.isTTY === true && !process.env.NO_COLOR;
  const decoder = new TextDecoder();
  let text = '';
  /** The server's last word, a comment (`: wallet-sim is shutting down`): why it ended the stream. */
  let said: string | undefined;
  let first = true;
  try {
    for await (const chunk of res.body) {
      text += decoder.decode(chunk, { stream: true });
      for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
        const lines = text.slice(0, end).split('\n');
        const note = lines
          .find((l) => l.startsWith(':'))
          ?.slice(1)
          .trim();
        // (the first block is the stream's own title, a heartbeat says nothing)
        if (!first && note && note !== 'heartbeat') said = terminalText(note);
        first = false;
        for (const line of lines) {
          if (!line.startsWith('data:')) continue;
          const data = line.slice(5).trimStart();
          // JSON escapes C0 but not C1 or U+2028: escaped here too, still the same JSON.
          process.stdout.write(`${json ? terminalText(data) : formatEntry(JSON.parse(data) as JournalEntry, colour)}\n`);
        }
        text = text.slice(end + 2);
      }
    }
  } catch (e) {
    console.error(MESSAGES.LOST(url, describeFetchError(e, 0)));
    return 2;
  }
  // The server ended it (shutting down, a tenant's token rotated): a clean end, nothing failed. Tail checks
  // nothing, so it never exits 1 (which says a check failed).
  console.error(MESSAGES.ENDED(url, said));
  return 0;
}

/** The `message` of an API error body, if the reply is one. */
const messageOf = async (res: Response): Promise<string | undefined> => houseError(await res.text().catch(() => '')).message;

const paint = (on: boolean) => (code: number, s: string) => (on ? `\x1b[${code}m${s}\x1b[0m` : s);
const CODE_COLOURS: Record<string, number> = { R0: 32, R1: 31, R2: 31, R3: 31, R4: 33 };
const SEVERITY_COLOURS: Record<string, number> = { error: 31, warning: 33, info: 36 };

/**
 * `14:03:07.123 #12 bet player-1 tx-9 R3 1000 → 1000 12ms rule "slow" [dropped] R3: … · TOTAL_MISMATCH`
 */
export function formatEntry(e: JournalEntry, colour = false): string {
  const c = paint(colour);
  const caller = (s: string | undefined, absent: string) => (s === undefined ? absent : terminalText(s)); // the caller chose it
  const time = e.received_at.slice(11, 23);
  const code = e.code ?? `HTTP ${e.reply.status}`;
  const parts = [
    c(2, time),
    c(2, `#${e.id}`),
    caller(e.event_type, '?'),
    caller(e.user_id, '?'),
    caller(e.transaction_id, '-'),
    c(CODE_COLOURS[code] ?? 35, code),
  ];
  if (e.balance_before !== undefined || e.balance_after !== undefined) parts.push(`${e.balance_before ?? '?'} → ${e.balance_after ?? '?'}`);
  parts.push(`${e.duration_ms}ms`);
  if (e.rule) parts.push(`rule "${terminalText(e.rule.name)}"`);
  const flags = [e.reply.dropped && 'dropped', e.reply.client_gone && 'gone', e.replayed && 'replayed'].filter(Boolean);
  if (flags.length) parts.push(c(35, `[${flags.join(' ')}]`));
  if (e.reason) parts.push(terminalText(e.reason));
  if (e.findings.length) parts.push(`· ${e.findings.map((f) => c(SEVERITY_COLOURS[f.severity] ?? 0, f.code)).join(' ')}`);
  return parts.join(' ');
}
