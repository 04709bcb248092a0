import { type BetLine, betResultRequest, type Envelope, loginRequest, type RoundInfo } from '../client/callbacks.js';
import { type Credentials, postCallback } from '../client/http.js';
import { eventNamed } from '../events/index.js';
import { type Money, money, sum, ZERO } from '../money.js';
import type { CallbackReply } from '../protocol/types.generated.js';
import { describeErrors, validator } from '../schemas.js';
import { topLevelNumberTexts } from './raw-json.js';

export type * from './types.js';
import type { Assertion, CheckResult, LabeledExchange, LedgerLine, OpenRound, ProbeTarget, Reply } from './types.js';

const validateReply = validator<CallbackReply>('CallbackReply');
const REASON_HEADER = 'x-wallet-sim-reason';

/** The state of one probe run: what the player's balance should be, and which rounds are open. */
export class Session {
  readonly checks: CheckResult[] = [];
  /** Every balance change the wallet acknowledged (R0), as correct arithmetic says it should be. */
  readonly ledger: LedgerLine[] = [];
  readonly open = new Map<string, OpenRound>();

  /** onCheck: told of each check as it finishes, so a report can be printed as the battery runs. */
  constructor(
    readonly target: ProbeTarget,
    private readonly onCheck?: (c: CheckResult) => void,
  ) {}

  /** One minor unit of the currency (0.01 for 2 fraction digits). */
  get unit(): Money {
    return money(1).div(money(10).pow(this.target.scale));
  }

  /** Amounts in tenths when the currency allows them, so binary-float arithmetic shows (0.1 + 0.2). */
  amount(k: number): Money {
    return money(k).times(this.target.scale >= 1 ? '0.1' : 1);
  }

  env(extra: Partial<Envelope> = {}): Envelope {
    return { user_id: this.target.user, feedback_data: 'wallet-sim-probe', ...extra };
  }

  async check(name: string, description: string, run: (c: Check) => Promise<void>): Promise<CheckResult> {
    const c = new Check(this, name);
    const started = performance.now();
    try {
      await run(c);
    } catch (e) {
      c.assert('probe', false, `the probe itself failed: ${(e as Error).stack ?? e}`);
    }
    const failed = c.assertions.some((a) => !a.passed);
    const result: CheckResult = {
      name,
      description,
      status: failed ? 'fail' : c.skipped !== undefined ? 'skip' : 'pass',
      assertions: c.assertions,
      exchanges: c.exchanges,
      skipped: c.skipped,
      durationMs: Math.round(performance.now() - started),
    };
    this.checks.push(result);
    this.onCheck?.(result);
    return result;
  }

  /** The player's stake in an open round, from the bets the wallet acknowledged. */
  stakeOf(gameNo: string): Money {
    return sum(this.open.get(gameNo)?.bets.map((b) => b.bet_amount) ?? []);
  }
}

export interface SendOptions {
  /** Codes that pass; the first is the one the spec or the design calls for. */
  expect?: string[];
  credentials?: Credentials;
  /** The request's event_type and user_id, for the echo rules, when the body is sent as raw text. */
  echo?: { event_type: string; user_id: string } | null;
}

/** One check being run: its exchanges with the wallet and the rules checked on them. */
export class Check {
  readonly assertions: Assertion[] = [];
  readonly exchanges: LabeledExchange[] = [];
  skipped?: string;

  constructor(
    readonly session: Session,
    readonly name: string,
  ) {}

  get target(): ProbeTarget {
    return this.session.target;
  }

  /** The session's amount of k tenths (or whole units): see Session.amount. */
  amount(k: number): Money {
    return this.session.amount(k);
  }

  assert(name: string, passed: boolean, message: string, exchange?: number): boolean {
    this.assertions.push({ name, passed, message, exchange });
    return passed;
  }

  skip(reason: string): void {
    this.skipped = reason;
  }

  /** Sends one callback and checks the rules every reply must follow (spec 2.4, 4, 5, 6, 7). */
  async send(label: string, body: object | string, o: SendOptions = {}): Promise<Reply> {
    const t = this.target;
    const exchange = await postCallback(t.url, body, { ...(o.credentials ?? t), timeoutMs: t.timeoutMs });
    const index = this.exchanges.push({ label, ...exchange }) - 1;
    const reply: Reply = { index };
    const at = (what: string) => `${label}: ${what}`;
    if (!exchange.reply) {
      this.assert('http-200', false, at(`no reply: ${exchange.error}`), index);
      return reply;
    }
    const r = exchange.reply;
    this.assert('http-200', r.status === 200, at(`HTTP ${r.status}; every reply is HTTP 200 (spec 7)`), index);

    let json: unknown;
    try {
      json = JSON.parse(r.body);
    } catch (e) {
      this.assert('reply-schema', false, at(`the reply is not JSON (${(e as Error).message})`), index);
      return reply;
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
      this.assert('reply-schema', false, at('the reply is not a JSON object'), index);
      return reply;
    }
    reply.body = json as Record<string, unknown>;
    const code = reply.body.code;
    reply.code = typeof code === 'string' ? code : undefined;

    // The R0 → latest_balance rule is its own assertion below; the schema check leaves it out.
    validateReply(json);
    const schemaErrors = describeErrors(
      (validateReply.errors ?? []).filter((e) => e.keyword !== 'if' && !e.schemaPath.startsWith('#/then')),
    );
    this.assert(
      'reply-schema',
      schemaErrors.length === 0,
      at(`the reply does not match CallbackReply: ${schemaErrors.map((e) => `${e.pointer} ${e.message}`).join('; ')}`),
      index,
    );

    const echo = o.echo !== undefined ? o.echo : typeof body === 'object' ? (body as { event_type: string; user_id: string }) : null;
    if (echo) {
      this.assert(
        'echo-event-type',
        reply.body.event_type === echo.event_type,
        at(`event_type ${JSON.stringify(reply.body.event_type)} does not echo the request's "${echo.event_type}" (spec 6 rule 1)`),
        index,
      );
      this.assert(
        'echo-user-id',
        reply.body.user_id === echo.user_id,
        at(`user_id ${JSON.stringify(reply.body.user_id)} does not echo the request's "${echo.user_id}" (spec 6 rule 2)`),
        index,
      );
    }

    const text = topLevelNumberTexts(r.body).get('latest_balance');
    if (text !== undefined) {
      reply.balanceText = text;
      reply.balance = money(text);
      const digits = reply.balance.decimalPlaces();
      this.assert(
        'balance-scale',
        digits <= t.scale,
        at(`latest_balance ${text} has ${digits} fraction digits; ${t.currency} has ${t.scale}: binary-float arithmetic?`),
        index,
      );
    }
    if (reply.code === 'R0') {
      this.assert(
        'latest-balance-on-r0',
        text !== undefined,
        at(`an R0 reply${echo ? ` to ${echo.event_type}` : ''} without latest_balance (spec 6 rules 3-5)`),
        index,
      );
    }

    // The event's module says whether its reply echoes Callback-URL (spec 4: login and bet_result do).
    const echoes = !!echo && (eventNamed(echo.event_type)?.echoesCallbackUrl ?? true);
    const missing = ['api-id', 'api-key', ...(echoes ? ['callback-url'] : [])].filter((h) => r.headers[h] === undefined);
    this.assert('reply-headers', missing.length === 0, at(`reply headers missing: ${missing.join(', ')} (spec 4)`), index);

    if (o.expect) {
      const reason = r.headers[REASON_HEADER] ? ` (${REASON_HEADER}: ${r.headers[REASON_HEADER]})` : '';
      // The first bet is where a wrong --currency shows.
      const hint =
        reply.code === 'R3' && o.expect.includes('R0') && this.name === 'bet'
          ? `; is ${t.currency} the player's currency (--currency)?`
          : '';
      this.assert(
        'code',
        reply.code !== undefined && o.expect.includes(reply.code),
        at(`code ${reply.code ?? '(none)'}, expected ${o.expect.join(' or ')}${reason}${hint}`),
        index,
      );
    }
    return reply;
  }

  /** Asserts latest_balance equals `expected` exactly, when the reply carries one. */
  balanceIs(reply: Reply, expected: Money | undefined, explain: string): void {
    if (reply.balance === undefined || expected === undefined) return;
    this.assert(
      'balance-arithmetic',
      reply.balance.eq(expected),
      `${this.exchanges[reply.index]?.label}: latest_balance ${reply.balanceText}, expected ${expected.toFixed()} (${explain})`,
      reply.index,
    );
  }

  /** A login, to read the balance; undefined when the wallet does not tell. */
  async login(label = 'login'): Promise<Money | undefined> {
    const reply = await this.send(label, loginRequest(this.session.env()), { expect: ['R0'] });
    return reply.code === 'R0' ? reply.balance : undefined;
  }

  /** Records an acknowledged balance change for the final reconciliation. */
  booked(what: string, delta: Money): void {
    this.session.ledger.push({ check: this.name, what, delta });
  }

  /** Remembers an acknowledged bet so that the round gets settled before the probe ends. */
  opened(round: RoundInfo, bets: BetLine[]): void {
    const open = this.session.open.get(round.game_no);
    if (open) open.bets.push(...bets);
    else this.session.open.set(round.game_no, { round, bets: [...bets] });
    this.booked(`bet ${round.game_no}`, sum(bets.map((b) => b.bet_amount)).neg());
  }

  settled(gameNo: string, credit: Money): void {
    this.session.open.delete(gameNo);
    this.booked(`credit ${gameNo}`, credit);
  }

  /** Settles an open round as a push (every winloss 0: the stake comes back). */
  async push(gameNo: string, label = `settle ${gameNo} (push)`): Promise<Reply | undefined> {
    const open = this.session.open.get(gameNo);
    if (!open) return undefined;
    const stake = sum(open.bets.map((b) => b.bet_amount));
    const reply = await this.send(
      label,
      betResultRequest(
        this.session.env(),
        open.round,
        open.bets.map((b) => ({ ...b, winloss: ZERO })),
      ),
      { expect: ['R0'] },
    );
    if (reply.code === 'R0') this.settled(gameNo, stake);
    return reply;
  }
}
