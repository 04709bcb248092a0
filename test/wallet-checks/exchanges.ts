// Exchanges with an operator's wallet as the wallet-side checks read them, and a grader to fold
// them: the tables of test/wallet-checks/ share these.
import { maskKey, type WalletAnswer, type WalletCheckId, type WalletExchange } from '../../src/grading/wallet/exchange.js';
import { WalletGrader, type WalletCheckReport } from '../../src/grading/wallet/wallet-grader.js';
import type { WalletConfig } from '../../src/wallet/decide.js';

export const KEY = { api_id: 'op', api_key: 'op-key' };
export const T0 = Date.UTC(2026, 10, 26, 12);

export type Step =
  | { ex: WalletExchange; reply: WalletAnswer } // sent and answered at once
  | { send: WalletExchange }
  | { answer: number; reply: WalletAnswer };

let nextId = 1;
/** The next exchange id (the helpers number them). */
export const newId = () => nextId++;
export const at = (ms: number) => T0 + ms;
export const envelope = (event: string, tx: string, user: string, data?: unknown) => ({
  transaction_id: tx,
  event_type: event,
  timestamp: 1_790_000_000 + nextId,
  feedback_data: '',
  user_id: user,
  ...(data === undefined ? {} : { data }),
});
export function ex(event: string, tx: string, user: string, data?: unknown, more: Partial<WalletExchange> = {}): WalletExchange {
  return {
    id: nextId++,
    event,
    tx,
    user,
    body: envelope(event, tx, user, data),
    valid: true,
    credentialsOk: true,
    sentHeaders: { apiId: KEY.api_id, callbackUrl: 'http://provider/cb' },
    sentConfiguredKey: true,
    sentAt: at(nextId * 10),
    ...more,
  };
}
export const login = (user: string, tx = `l${nextId}`) => ex('login', tx, user);
export const bet = (user: string, tx: string, stake: number, game = 'g1') =>
  ex('bet', tx, user, {
    currency: 'USD',
    game_type: 'b',
    table_no: 't',
    game_no: game,
    total_bet_amount: stake,
    bets: [{ bet_index: '1', bet_type: 'p', bet_amount: stake }],
  });
export const settle = (user: string, tx: string, stake: number, winloss: number, game = 'g1') =>
  ex('bet_result', tx, user, {
    currency: 'USD',
    game_type: 'b',
    table_no: 't',
    game_no: game,
    total_bet_amount: stake,
    total_winloss: winloss,
    result: 'P',
    result_detail: '{}',
    bet_results: [{ bet_index: '1', bet_type: 'p', bet_amount: stake, winloss }],
  });
/** A copy of an exchange sent again (a resend: same body, a new timestamp). */
export const again = (x: WalletExchange): WalletExchange => ({
  ...x,
  id: nextId++,
  sentAt: x.sentAt + 1000,
  body: { ...(x.body as object), timestamp: 1 },
});

export interface ReplyOptions {
  code?: string;
  balance?: string | null;
  status?: number;
  headers?: Record<string, string | undefined>;
  text?: string;
  ms?: number;
  event?: string;
  user?: string;
}
/** The reply a correct wallet would send to `x`, changed by `o`. */
export function reply(x: WalletExchange, o: ReplyOptions = {}): WalletAnswer {
  const code = o.code ?? 'R0';
  const balance = o.balance === undefined ? (code === 'R0' ? '100' : null) : o.balance;
  const text =
    o.text ??
    `{"code":"${code}","event_type":"${o.event ?? x.event}","timestamp":1790000000,"user_id":"${o.user ?? x.user}"${balance === null ? '' : `,"latest_balance":${balance}`}}`;
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    'api-id': x.sentHeaders.apiId ?? '',
    'api-key': x.sentConfiguredKey ? KEY.api_key : 'guess', // echoed
    ...(x.event === 'bet' ? {} : { 'callback-url': x.sentHeaders.callbackUrl }),
    ...o.headers,
  };
  return { kind: 'reply', at: x.sentAt + (o.ms ?? 5), status: o.status ?? 200, ...maskKey(headers, KEY.api_key), text };
}
export const none = (x: WalletExchange, why = 'no reply within 30000 ms'): WalletAnswer => ({ kind: 'none', at: x.sentAt + 30_000, why });
export const step = (x: WalletExchange, o?: ReplyOptions): Step => ({ ex: x, reply: reply(x, o) });

/** `closedWorld`: as probe grades (every round seen from its first bet); else as proxy mode does. */
export function grade(
  steps: Step[],
  timeoutMs = 10_000,
  closedWorld = false,
  config?: WalletConfig,
): Map<WalletCheckId, WalletCheckReport> {
  const g = new WalletGrader({ clientTimeoutMs: timeoutMs, credentials: KEY, closedWorld, config });
  const sent = new Map<number, WalletExchange>();
  for (const s of steps) {
    if ('ex' in s) {
      g.sent(s.ex);
      g.answered(s.ex, s.reply);
    } else if ('send' in s) {
      sent.set(s.send.id, s.send);
      g.sent(s.send);
    } else g.answered(sent.get(s.answer)!, s.reply);
  }
  return new Map(g.checks().map((c) => [c.id, c]));
}
export const failing = (r: Map<WalletCheckId, WalletCheckReport>) => [...r.values()].filter((c) => c.status === 'fail').map((c) => c.id);
