import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { money, type Money } from '../../src/kernel/money.js';

/**
 * A small stand-alone wallet (not wallet-sim) that the probe tests play against: correct by
 * default, with one deliberate flaw when asked. It is deliberately naive code, the way a real
 * operator's first implementation looks.
 */
export type Flaw =
  /** Balances and sums in binary floats: 0.1 + 0.2 drifts. */
  | 'float'
  /** transaction_id is ignored: a replay is applied again. */
  | 'no-idempotency'
  /** bet_result R0 replies lack latest_balance. */
  | 'omit-balance-on-bet-result';

export interface ReceiverOptions {
  flaw?: Flaw;
  user?: string;
  balance?: string;
  apiId?: string;
  apiKey?: string;
}

export interface Receiver {
  url: string;
  balance(): string;
  requests: number;
  close(): Promise<void>;
}

type Body = Record<string, any>;

export async function startReceiver(o: ReceiverOptions = {}): Promise<Receiver> {
  const apiId = o.apiId ?? 'op-id';
  const apiKey = o.apiKey ?? 'op-key';
  const float = o.flaw === 'float';
  // The two representations of money: exact decimals, or what `Number` arithmetic gives.
  let exact: Money = money(o.balance ?? '100');
  let approx = Number(o.balance ?? '100');
  const balance = () => (float ? approx : exact);
  const add = (...ns: number[]) => {
    for (const n of ns) {
      if (float) approx += n;
      else exact = exact.plus(money(n));
    }
  };
  const below = (n: number) => (float ? approx < n : exact.lt(money(n)));
  const same = (a: number, b: number) => (float ? Math.abs(a - b) < 1e-9 : money(a).eq(money(b)));
  const total = (ns: number[]) =>
    float ? ns.reduce((s, n) => s + n, 0) : Number(ns.reduce((s, n) => s.plus(money(n)), money(0)).toFixed());
  const applied = new Map<string, string>();
  const rounds = new Map<string, { stake: number; settled: boolean }>();

  const text = (b: Money | number) => (typeof b === 'number' ? JSON.stringify(b) : b.toFixed());
  const reply = (code: string, req: Body, withBalance = true) =>
    `{"code":"${code}","event_type":${JSON.stringify(req.event_type ?? '')},"timestamp":${Math.floor(Date.now() / 1000)},"user_id":${JSON.stringify(req.user_id ?? '')}${withBalance ? `,"latest_balance":${text(balance())}` : ''}}`;

  function handle(req: IncomingMessage, raw: string): string {
    let body: Body;
    try {
      body = JSON.parse(raw) as Body;
    } catch {
      return reply('R3', {}, false);
    }
    if (req.headers['api-id'] !== apiId || req.headers['api-key'] !== apiKey) return reply('R2', body, false);
    if (typeof body.transaction_id !== 'string' || typeof body.user_id !== 'string') return reply('R3', body, false);
    const { data } = body;
    const fingerprint = JSON.stringify({ ...body, timestamp: 0 });
    if (o.flaw !== 'no-idempotency' && applied.has(body.transaction_id)) {
      return applied.get(body.transaction_id) === fingerprint
        ? reply('R0', body, !(o.flaw === 'omit-balance-on-bet-result' && body.event_type === 'bet_result'))
        : reply('R3', body);
    }
    const ok = () => {
      applied.set(body.transaction_id, fingerprint);
      return reply('R0', body, !(o.flaw === 'omit-balance-on-bet-result' && body.event_type === 'bet_result'));
    };
    switch (body.event_type) {
      case 'login':
        return ok();
      case 'bet': {
        const amounts = (data.bets as Body[]).map((b) => b.bet_amount as number);
        if (!same(total(amounts), data.total_bet_amount)) return reply('R3', body);
        if (below(data.total_bet_amount)) return reply('R4', body);
        const round = rounds.get(data.game_no) ?? { stake: 0, settled: false };
        if (round.settled) return reply('R3', body);
        round.stake = total([round.stake, data.total_bet_amount]);
        rounds.set(data.game_no, round);
        add(-data.total_bet_amount);
        return ok();
      }
      case 'bet_result': {
        const round = rounds.get(data.game_no);
        if (!round || round.settled) return reply('R3', body);
        const wl = (data.bet_results as Body[]).map((b) => b.winloss as number);
        if (!same(total(wl), data.total_winloss) || !same(round.stake, data.total_bet_amount)) return reply('R3', body);
        round.settled = true;
        add(data.total_bet_amount, data.total_winloss);
        return ok();
      }
      default:
        return reply('R3', body, false);
    }
  }

  const receiver = {
    url: '',
    balance: () => text(balance()),
    requests: 0,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  } as Receiver;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      raw += c;
    });
    req.on('end', () => {
      receiver.requests++;
      const out = handle(req, raw);
      const headers: Record<string, string> = { 'content-type': 'application/json', 'api-id': apiId, 'api-key': apiKey };
      if (!/"event_type":"bet"/.test(raw)) headers['callback-url'] = String(req.headers['callback-url'] ?? '');
      res.writeHead(200, headers).end(out);
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wallet`;
  return receiver;
}
