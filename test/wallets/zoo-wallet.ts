import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Money, money } from '../../src/kernel/money.js';
import { DEFECTS, type Defect, isDefect } from './zoo-defects.js';
import { type Outcome, ZooLedger } from './zoo-ledger.js';

/**
 * The zoo: a small, correct operator wallet written for the tests (not wallet-sim's code), with one
 * deliberate defect when asked. The defects are listed in ./zoo-defects.ts. A test starts it
 * in-process (`startZooWallet`) or as a real child process:
 *
 *   node dist/test/wallets/zoo-wallet.js [--defect <name>] [--port 0] [--host 127.0.0.1] [--path /callback]
 *     [--api-id zoo] [--api-key zoo-key] [--player id=balance:CUR]… [--auto-create <balance>]
 *     [--replay current|original] [--delay-ms N] [--slow-ms N] [--extra-headers]
 *
 * It prints one line, `listening on http://127.0.0.1:PORT/callback`, once it accepts connections.
 * Default players: player-1 and player-2 with 1000 USD, krw-1 with 100000 KRW. Unknown players get R3
 * (an operator's wallet knows its players) unless --auto-create gives them a balance. Credentials
 * other than the configured ones get R2 for every event; every reply echoes the caller's Api-Id and
 * Api-Key (never the configured ones) and, on login and bet_result, its Callback-URL. A refusal says
 * why in an X-Zoo-Reason header. Any path but --path gets HTTP 404.
 */

export interface ZooOptions {
  defect?: Defect;
  port?: number;
  host?: string;
  path?: string;
  apiId?: string;
  apiKey?: string;
  players?: { user: string; balance: string; currency: string }[];
  autoCreate?: string;
  replay?: 'current' | 'original';
  /** Every reply this late (a correct wallet that is slow but in time). */
  delayMs?: number;
  /** The `slow` defect's delay of bet_result replies (default 5000). */
  slowMs?: number;
  extraHeaders?: boolean;
}

export interface ZooWallet {
  url: string;
  /** A player's balance as text, undefined when unknown. */
  balance(user: string): string | undefined;
  close(): Promise<void>;
}

export const DEFAULT_PLAYERS = [
  { user: 'player-1', balance: '1000', currency: 'USD' },
  { user: 'player-2', balance: '1000', currency: 'USD' },
  { user: 'krw-1', balance: '100000', currency: 'KRW' },
];
const SCALES: Record<string, number> = { USD: 2, EUR: 2, KRW: 0, JPY: 0 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startZooWallet(o: ZooOptions = {}): Promise<ZooWallet> {
  const defect = o.defect;
  const apiId = o.apiId ?? 'zoo';
  const apiKey = o.apiKey ?? 'zoo-key';
  const path = o.path ?? '/callback';
  const ledger = new ZooLedger({
    defect,
    replay: o.replay ?? 'current',
    autoCreate: o.autoCreate === undefined ? undefined : money(o.autoCreate),
    scales: SCALES,
  });
  for (const p of o.players ?? DEFAULT_PLAYERS) ledger.players.set(p.user, { balance: money(p.balance), currency: p.currency });

  async function answer(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    let body: Record<string, unknown> = {};
    let outcome: Outcome;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
      outcome = authenticated(req, body.event_type) ? await ledger.decide(body) : { code: 'R2', reason: 'wrong Api-Id or Api-Key' };
    } catch {
      outcome = { code: 'R3', reason: 'the body is not a JSON object' };
    }
    const event = body.event_type;
    const settlement = event === 'bet_result';
    if (o.delayMs) await sleep(o.delayMs);
    if (settlement && defect === 'slow') await sleep(o.slowMs ?? 5000);
    if (settlement && defect === 'garbage-bytes') {
      req.socket.end('\u0000\u0001 not http at all \r\n\r\n');
      return;
    }
    if (settlement && defect === 'http-500') return send(res, 500, { 'content-type': 'application/json' }, '{"error":"internal"}');
    if (settlement && defect === 'non-json') return send(res, 200, { 'content-type': 'text/plain' }, 'OK');

    const headers: Record<string, string> = {
      'content-type':
        defect === 'wrong-content-type' ? 'text/plain' : o.extraHeaders ? 'application/json; charset=utf-8' : 'application/json',
    };
    const leak = defect === 'leaks-api-key' && outcome.code === 'R2';
    if (defect !== 'missing-headers') {
      headers['api-id'] = leak ? apiId : header(req, 'api-id');
      headers['api-key'] = leak ? apiKey : header(req, 'api-key');
      if (event === 'login' || settlement) headers['callback-url'] = header(req, 'callback-url');
    }
    if (o.extraHeaders) Object.assign(headers, { 'x-request-id': `zoo-${Date.now()}`, 'cache-control': 'no-store', server: 'zoo' });
    if (outcome.reason) headers['x-zoo-reason'] = outcome.reason;
    send(res, 200, headers, replyText(outcome, body));
  }

  function authenticated(req: IncomingMessage, event: unknown): boolean {
    if (defect === 'open-bet-result' && event === 'bet_result') return true;
    const idOk = defect === 'accepts-wrong-api-id' || header(req, 'api-id') === apiId;
    return idOk && header(req, 'api-key') === apiKey;
  }

  function replyText(out: Outcome, body: Record<string, unknown>): string {
    const code = defect === 'lowercase-code' ? out.code.toLowerCase() : out.code;
    const dropBalance = defect === 'no-balance-on-r0' && out.code === 'R0' && body.event_type !== 'login';
    const parts = [`"code":${JSON.stringify(code)}`];
    if (defect !== 'no-echo') parts.push(`"event_type":${JSON.stringify(body.event_type ?? '')}`);
    parts.push(`"timestamp":${Math.floor(Date.now() / 1000)}`);
    if (defect !== 'no-echo') parts.push(`"user_id":${JSON.stringify(body.user_id ?? '')}`);
    // Written from the exact decimal's text, never through a binary float.
    if (out.balance !== undefined && !dropBalance)
      parts.push(`"latest_balance":${defect === 'balance-as-string' ? JSON.stringify(out.balance.toFixed(2)) : numberText(out.balance)}`);
    return `{${parts.join(',')}}`;
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://zoo');
    if (url.pathname !== path) return send(res, 404, { 'content-type': 'application/json' }, '{"error":"not found"}');
    if (req.method !== 'POST') return send(res, 405, { 'content-type': 'application/json', allow: 'POST' }, '{"error":"POST only"}');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      answer(req, res, Buffer.concat(chunks).toString('utf8')).catch((e: unknown) => {
        if (!res.headersSent) send(res, 500, { 'content-type': 'text/plain' }, String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, o.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${o.host ?? '127.0.0.1'}:${port}${path}`,
    balance: (user) => ledger.players.get(user)?.balance.toFixed(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const header = (req: IncomingMessage, name: string): string => {
  const v = req.headers[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
};

const numberText = (m: Money): string => m.toFixed();

function send(res: ServerResponse, status: number, headers: Record<string, string>, text: string): void {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(text).toString() });
  res.end(text);
}

/** The command line: see the comment at the top. */
export function zooOptionsFromArgs(argv: string[]): ZooOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      defect: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string' },
      path: { type: 'string' },
      'api-id': { type: 'string' },
      'api-key': { type: 'string' },
      player: { type: 'string', multiple: true },
      'auto-create': { type: 'string' },
      replay: { type: 'string' },
      'delay-ms': { type: 'string' },
      'slow-ms': { type: 'string' },
      'extra-headers': { type: 'boolean' },
    },
  });
  if (values.defect !== undefined && !isDefect(values.defect))
    throw new Error(`unknown --defect ${values.defect}; one of: ${DEFECTS.join(', ')}`);
  if (values.replay !== undefined && values.replay !== 'current' && values.replay !== 'original')
    throw new Error('--replay is current or original');
  const players = values.player?.map((p) => {
    const m = /^([^=]+)=(-?\d+(?:\.\d+)?):([A-Z]{3})$/.exec(p);
    if (!m) throw new Error(`--player ${p}: write id=balance:CUR, e.g. player-9=250.50:USD`);
    return { user: m[1]!, balance: m[2]!, currency: m[3]! };
  });
  return {
    defect: values.defect as Defect | undefined,
    port: Number(values.port),
    host: values.host,
    path: values.path,
    apiId: values['api-id'],
    apiKey: values['api-key'],
    players: players ? [...DEFAULT_PLAYERS, ...players] : undefined,
    autoCreate: values['auto-create'],
    replay: values.replay as ZooOptions['replay'],
    delayMs: values['delay-ms'] === undefined ? undefined : Number(values['delay-ms']),
    slowMs: values['slow-ms'] === undefined ? undefined : Number(values['slow-ms']),
    extraHeaders: values['extra-headers'],
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const zoo = await startZooWallet(zooOptionsFromArgs(process.argv.slice(2)));
    console.log(`listening on ${zoo.url}`);
    const stop = () => void zoo.close().then(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  } catch (e) {
    console.error(`zoo-wallet: ${(e as Error).message}`);
    process.exit(2);
  }
}
