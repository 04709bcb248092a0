import { FAILED, SUCCESS } from '../protocol/seed/codes.js';
import { FIELD } from '../protocol/seed/wire.js';
import { type BetLine, betResultRequest, type Envelope, loginRequest, type RoundInfo } from '../protocol/seed/callbacks.js';
import type { Credentials } from '../client/http.js';
import { type Money, money, sum, ZERO } from '../kernel/money.js';
import { topLevelNumberTexts } from '../kernel/raw-json.js';
import type { WalletCheckId } from '../grading/wallet/exchange.js';
import { DEFAULT_BACKOFF_MS, readCode, Wire } from './wire.js';

export type * from './types.js';
import type { Assertion, CheckResult, LabeledExchange, LedgerLine, OpenRound, ProbeTarget, Reply, Stopped } from './types.js';

/**
 * The state of one probe run: the wire (every exchange, graded by the wallet checks), the rounds the
 * wallet acknowledged and not yet settled, and the changes it acknowledged.
 */
export class Session {
  readonly checks: CheckResult[] = [];
  readonly ledger: LedgerLine[] = [];
  readonly open = new Map<string, OpenRound>();
  /** Rounds whose bet never got a definite answer: the wallet may or may not have applied it, so they are not settled. */
  readonly unknown: { game_no: string; why: string }[] = [];
  readonly wire: Wire;
  /** The wallet applied an identical resend again (its balance moved twice): it does not key on transaction_id (WALLET_IDEMPOTENT). */
  appliedTwice = false;
  /** Why nothing more can be checked (exit 2), once the first exchanges said so. */
  stopped?: Stopped;

  /** onCheck: told of each check as it finishes, so a report can be printed as the battery runs. */
  constructor(
    readonly target: ProbeTarget,
    private readonly onCheck?: (c: CheckResult) => void,
  ) {
    this.wire = new Wire(target);
  }

  /** The back-off before a deliberate resend, so that it is spaced as a certified provider's retry is. */
  pause(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.target.backoffMs ?? DEFAULT_BACKOFF_MS));
  }

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

  async check(name: string, description: string, fix: string | undefined, run: (c: Check) => Promise<void>): Promise<CheckResult> {
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
      fix,
      status: failed ? 'fail' : c.skipped !== undefined ? 'skip' : 'pass',
      assertions: c.assertions,
      exchanges: c.exchanges,
      skipped: c.skipped,
      see: c.see,
      warnings: c.warnings.length ? c.warnings : undefined,
      ownsExchanges: c.ownsExchanges || undefined,
      durationMs: Math.round(performance.now() - started),
    };
    this.checks.push(result);
    this.onCheck?.(result);
    return result;
  }
}

export interface SendOptions {
  /** Codes that pass; the first is the one the spec or the design calls for. */
  expect?: string[];
  credentials?: Credentials;
  /** False for a body the probe made invalid on purpose (the wallet checks' WALLET_REFUSES_INVALID). */
  valid?: boolean;
  /** What the wallet should do, said when it does not (the check's fix is said once, below its failures). */
  why?: string;
  /** A wallet check that owns this send's failure when it fails on it too (the check then says "see" it, and why). */
  ownedBy?: { id: WalletCheckId; why: string };
}

/** The wallet checks that judge a refusal by the reference's rules: a probe check that sees the same failure says "see" them. */
const JUDGED_BY = ['WALLET_ROUND_RULES', 'WALLET_CONCURRENCY_SAFE'] as const;

/** One check being run: its exchanges with the wallet and the rules checked on them. */
export class Check {
  readonly assertions: Assertion[] = [];
  readonly exchanges: LabeledExchange[] = [];
  skipped?: string;
  see?: string;
  readonly warnings: string[] = [];
  /** Its exchanges are its own (a player no other check plays): when it fails, the wallet checks leave them to it. */
  ownsExchanges = false;

  constructor(
    readonly session: Session,
    readonly name: string,
  ) {}

  get target(): ProbeTarget {
    return this.session.target;
  }

  amount(k: number): Money {
    return this.session.amount(k);
  }

  assert(name: string, passed: boolean, message: string, exchange?: number): boolean {
    // Left to another check's root cause: what follows from it in this check is not failed again.
    if (!passed && this.see) return false;
    this.assertions.push({ name, passed, message, exchange });
    return passed;
  }

  skip(reason: string): void {
    this.skipped ??= reason;
  }

  /** Not judged: the root cause is another check's failure (one root cause, one failure). */
  notJudged(owner: string, why: string): void {
    this.see ??= owner;
    this.skip(why);
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  /** Nothing more can be checked: this check says why in one line (no list of failures), and the battery stops. */
  stop(stopped: Stopped, exchange?: number): void {
    this.session.stopped = stopped;
    this.skipped = undefined;
    this.see = undefined;
    this.assertions.length = 0;
    this.assert('stopped', false, stopped.message, exchange);
  }

  /**
   * Sends one callback (resent, unchanged, while it has no definite answer) and reads its code and
   * balance. The reply's form (headers, echoes, Content-Type, latest_balance on R0, HTTP status) is
   * the wallet checks' to grade, once for the whole run: here only the code is expected. A reply with
   * no readable code judges nothing here: the check says it could not tell.
   */
  async send(label: string, body: object | string, o: SendOptions = {}): Promise<Reply> {
    const { wire } = this.session;
    const owners: WalletCheckId[] = [...JUDGED_BY, ...(o.ownedBy ? [o.ownedBy.id] : [])];
    const judged = owners.map((id) => wire.violations(id));
    const attempts = await wire.deliver(label, body, { credentials: o.credentials, valid: o.valid });
    // One root cause, one failure: what a wallet check (the reference's) failed on this send is that check's.
    const owner = owners.find((id, i) => wire.violations(id) > judged[i]!);
    for (const x of attempts) this.exchanges.push(x);
    const last = attempts.at(-1)!;
    const index = this.exchanges.length - 1;
    const read = readCode(last);
    const reply: Reply = { index, attempts: attempts.length, code: read.code, unusable: read.unusable };
    if (read.unusable) {
      this.skip(`${label}: ${read.unusable} after ${attempts.length} attempt${attempts.length > 1 ? 's' : ''}, so no code to judge`);
      return reply;
    }
    reply.body = JSON.parse(last.reply!.body) as Record<string, unknown>;
    const text = topLevelNumberTexts(last.reply!.body).get(FIELD.latestBalance);
    if (text !== undefined) {
      reply.balanceText = text;
      reply.balance = money(text);
    }
    if (o.expect && owner && !o.expect.includes(reply.code!)) {
      this.notJudged(owner, owner === o.ownedBy?.id ? o.ownedBy.why : `${label}: answered ${reply.code}, which ${owner} fails`);
      return reply;
    }
    if (o.expect)
      this.assert(
        'code',
        o.expect.includes(reply.code!),
        `${label}: answered ${reply.code}, expected ${o.expect.join(' or ')}${o.why ? `: ${o.why}` : ''}${reason(last)}`,
        index,
      );
    return reply;
  }

  /** A login, to read the balance; undefined when the wallet does not tell. */
  async login(label = 'login'): Promise<Money | undefined> {
    const reply = await this.send(label, loginRequest(this.session.env()), { expect: [SUCCESS] });
    return reply.code === SUCCESS ? reply.balance : undefined;
  }

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

  /**
   * Settles an open round: with the settlement already sent without a definite answer (the same
   * transaction_id, never a new one), else as a push (every winloss 0: the stake comes back).
   */
  async push(gameNo: string, label = `settle ${gameNo} (push)`): Promise<Reply | undefined> {
    const open = this.session.open.get(gameNo);
    if (!open) return undefined;
    const stake = sum(open.bets.map((b) => b.bet_amount));
    const body =
      open.settlement ??
      betResultRequest(
        this.session.env(),
        open.round,
        open.bets.map((b) => ({ ...b, winloss: ZERO })),
      );
    return this.settleWith(gameNo, label, body, stake);
  }

  /** Sends a settlement of an open round and follows what became of it. */
  async settleWith(gameNo: string, label: string, body: object, credit: Money, o: SendOptions = { expect: [SUCCESS] }): Promise<Reply> {
    const open = this.session.open.get(gameNo);
    const reply = await this.send(label, body, o);
    if (reply.code === SUCCESS) this.settled(gameNo, credit);
    else if (open && (reply.unusable || reply.code === FAILED)) {
      // No definite answer (R1 says nothing was decided): only this body, same transaction_id, may settle the round.
      open.settlement = body;
      open.why = `its settlement got ${reply.unusable ?? 'R1 (failed processing)'} on ${reply.attempts} attempts`;
    }
    return reply;
  }
}

/** A wallet that says why it refused (wallet-sim's X-Wallet-Sim-Reason, or any X-…-Reason header): quoted. */
function reason(x: LabeledExchange): string {
  const r = Object.entries(x.reply?.headers ?? {}).find(([name]) => /^x-.*reason$/.test(name))?.[1];
  return r ? ` (the wallet said: ${r})` : '';
}
