import { setTimeout as sleep } from 'node:timers/promises';
import type { Awaitable } from '../kernel/awaitable.js';
import { type Applied, processCallback, respond, unjournalled } from './handle.js';
import type { CallbackInput, Intake } from '../protocol/port.js';
import type { Seal } from '../ledger/store.js';
import { isoTime } from '../text/iso-time.js';
import type { Simulator } from './simulator.js';
import type { CallbackOutput, ExchangeFeed, JournalledExchange, StoredEntry } from './exchange.js';
import type { Finding } from '../protocol/findings.js';
import { loopLag } from './loop-lag.js';
import { batchReply } from './reply-batch.js';

const NO_CODES: readonly string[] = [];

/** Each finding code once per callback. */
function findingCodes(findings: readonly Finding[]): Iterable<string> {
  if (findings.length === 0) return NO_CODES;
  if (findings.length === 1) return [findings[0]!.code];
  return new Set(findings.map((f) => f.code));
}

type Pending = Awaited<ReturnType<Simulator['journal']['begin']>>;

/**
 * The HTTP side of one callback, as the callback route (src/routes/callback.ts) hands it over: the
 * request as received, and the few things the pipeline does to the connection.
 */
export interface CallbackExchange {
  /** The request: method, URL, headers, the body as text. */
  readonly input: CallbackInput;
  /** The caller closed the connection (its own time-out): a reply now is never read. */
  readonly clientGone: boolean;
  /** Calls `listener` when the caller closes the connection; returns what stops that. */
  onClose(listener: () => void): () => void;
  /** The body's text is no longer needed (a delayed reply: the journal holds the body). */
  forgetBody(): void;
  /**
   * Writes the reply: wallet-sim's own as text, a relayed one as bytes under exactly the headers
   * given (no Content-Type added or changed).
   */
  send(status: number, headers: Record<string, string>, body: string | Uint8Array): void;
  /** Closes the connection without a reply. */
  drop(): void;
  /** Whether a reply went out (or the connection was dropped). */
  readonly sent: boolean;
  /** A failure as a throw from the route would be: the route's error handler answers. */
  fail(error: Error): void;
  readonly log: {
    info(fields: object, message: string): void;
    error(fields: object, message: string): void;
    isLevelEnabled?(level: string): boolean;
  };
}

/**
 * One callback, start to finish: read → rule → wallet → reply (./handle.ts: `readCallback`,
 * `processCallback`, `respond`), then journal → grading → the reply written (or the connection
 * dropped, or the reply written after a rule's delay). Each step goes on at once when the one before
 * answered at once (the memory store and journal), after it otherwise (Redis, an upstream, a
 * delay_ms): a callback served from memory makes no promise and waits for no turn.
 */
export class Answer implements JournalledExchange {
  private readonly started = performance.now();
  /** When it arrived (ms since the epoch), and how late that stamp may be (measured now: grading may read it turns later). */
  readonly at = Date.now();
  readonly lag = loopLag.at(this.at);
  /** The session it arrived in grades it, whatever reset comes before its reply. */
  private readonly grader: ExchangeFeed;
  private readonly ticket: number;
  readonly chars: number;
  out!: CallbackOutput;
  /** The request body as read, before the journal may cut it to an excerpt. */
  requestBody: unknown;
  journalId = 0;
  private attempt: unknown;
  /** Journalled and graded by the store's commit itself (Redis: one script): what it decided and kept. */
  private sealed?: { out: CallbackOutput; entry: StoredEntry };
  /** Proxy mode: when the caller closed the connection while the upstream wallet answered (its time-out). */
  private closedAt?: number;
  private offClose?: () => void;

  constructor(
    private readonly sim: Simulator,
    private readonly http: CallbackExchange,
  ) {
    this.grader = sim.gradingFeed;
    this.ticket = this.grader.expect(this.at);
    this.chars = http.input.body.length;
  }

  /**
   * Answers the callback. Returns nothing, not a promise, even when a step waits: Fastify would
   * send an empty reply for a promise that resolves before the reply is written (it waits in the
   * batch), so a failure after a wait goes to the route's error handler here, as a throw would.
   */
  start(): undefined {
    const done = this.run();
    if (done instanceof Promise) done.catch((e: unknown) => this.failedLater(e));
    return undefined;
  }

  private run(): Awaitable<undefined> {
    const { input } = this.http;
    let out: Awaitable<CallbackOutput>;
    // Grading learns of the attempt once the wallet answered: a close before that is kept till then.
    if (this.sim.upstream !== undefined) this.offClose = this.http.onClose(() => (this.closedAt ??= Date.now()));
    try {
      // Read (authenticate → parse → validate), then the scenario's rule and the wallet, then the reply.
      const intake = this.sim.protocol.read(this.sim, input);
      const user = intake.echo.user_id;
      if (user !== undefined) this.grader.player?.(this.ticket, user);
      // A shared store (Redis) journals and grades the callback in the step that commits it.
      const seal = this.sim.journal.seal && this.grader.sealed ? (a: Applied) => this.seal(intake, a) : undefined;
      const applied = processCallback(this.sim, input, intake, this.grader.wallet, seal, this.at);
      out =
        applied instanceof Promise
          ? applied.then((a) => this.sealed?.out ?? respond(this.sim, input, intake, a))
          : respond(this.sim, input, intake, applied);
    } catch (e) {
      return this.failed(e);
    }
    return this.after(out, this.decided);
  }

  private failed(e: unknown): never {
    this.offClose?.();
    this.grader.settle(this.ticket);
    throw e;
  }

  /** `next(value)` now, or once the value resolves; a rejection is `failed`. */
  private after<T>(value: Awaitable<T>, next: (this: Answer, value: T) => Awaitable<undefined>): Awaitable<undefined> {
    if (!(value instanceof Promise)) return next.call(this, value);
    return value.then(
      (v) => next.call(this, v),
      (e: unknown) => this.failed(e),
    );
  }

  /**
   * What the store's commit writes besides the ledger for this decision (called again for each
   * attempt): the journal entry, finished, and the grading event, when the reply is written at
   * once (no delay, no drop, the caller still there). Its reply is timed to the commit. Any other
   * callback is journalled and graded apart, as what it waits for happens after the commit.
   */
  private seal(intake: Intake, applied: Applied): Seal | undefined {
    this.sealed = undefined;
    const { sim, http } = this;
    if (http.clientGone) return undefined;
    const out = respond(sim, http.input, intake, applied);
    if (out.delayMs || out.drop) return undefined;
    const repliedAt = Date.now();
    const entry = out.entry;
    entry.received_at = isoTime(this.at);
    const timing = { replied_at: isoTime(repliedAt), duration_ms: Math.round(performance.now() - this.started), client_gone: false };
    const kept = sim.journal.seal!(entry as typeof entry & { received_at: string }, timing);
    if (!kept) return undefined;
    // What the grading event reads of this exchange (its journal id comes with it from the commit).
    this.out = out;
    this.requestBody = entry.request.body;
    const done = { end: repliedAt, status: out.status, body: entry.reply.body, dropped: false, clientGone: false };
    return {
      entry: kept.entry,
      event: this.grader.sealed!(this, done, findingCodes(entry.findings)),
      committed: (id) => (this.sealed = { out, entry: kept.stored(id) }),
    };
  }

  private decided(out: CallbackOutput): Awaitable<undefined> {
    if (this.sealed?.out === out) return this.committed(this.sealed.entry);
    this.out = out;
    let pending: Awaitable<Pending>;
    try {
      // Taken before the journal may cut the body to an excerpt (past --journal-bytes).
      this.requestBody = out.entry.request.body;
      // Journalled now, finished when answered: a report asked during a delay sees it unanswered.
      // The entry is handed over, not copied.
      const entry = out.entry;
      entry.received_at = isoTime(this.at);
      pending = this.sim.journal.begin(entry as typeof entry & { received_at: string }, this.chars);
    } catch (e) {
      return this.failed(e);
    }
    return this.after(pending, this.journalled);
  }

  private journalled(pending: Pending): Awaitable<undefined> {
    const { out, grader } = this;
    this.journalId = pending.id;
    if (out.authenticated) this.attempt = grader.arrived(this, this.ticket);
    else grader.settle(this.ticket);
    this.offClose?.();
    if (this.closedAt !== undefined && this.attempt) grader.closed(this.attempt, this.closedAt);
    // Proxy mode: the upstream's answer grades the operator's wallet, citing the journal entry.
    if (out.wallet) grader.wallet?.answered(out.wallet.sent.id, { ...out.wallet.sent, id: pending.id }, out.wallet.answer);
    return out.delayMs ? this.delayed(pending) : this.answer(pending);
  }

  private async delayed(pending: Pending): Promise<undefined> {
    // The journal holds (or, past --journal-bytes, excerpts) the body now; the text goes.
    this.http.forgetBody();
    const { attempt, grader } = this;
    // The caller giving up during the delay is when it knew the reply was lost (its time-out).
    const off = attempt ? this.http.onClose(() => grader.closed(attempt, Date.now())) : undefined;
    await sleep(this.out.delayMs);
    off?.();
    return this.answer(pending);
  }

  private answer(pending: Pending): Awaitable<undefined> {
    const repliedAt = Date.now();
    // The caller gave up (its own time-out) before the reply: it never read it.
    const clientGone = this.http.clientGone;
    const entry = pending.finish({
      replied_at: isoTime(repliedAt),
      duration_ms: Math.round(performance.now() - this.started),
      client_gone: clientGone,
    });
    return entry instanceof Promise ? entry.then((e) => this.send(e, repliedAt, clientGone)) : this.send(entry, repliedAt, clientGone);
  }

  private send(entry: StoredEntry, repliedAt: number, clientGone: boolean): undefined {
    const { grader, attempt, http } = this;
    let out = this.out;
    const kept = !(entry.id === 0 && out.code === this.sim.protocol.codes.applied);
    if (!kept) out = unjournalled(this.sim, out); // Redis did not keep the entry
    if (attempt) {
      const body = kept ? out.entry.reply.body : { code: out.code };
      grader.complete(attempt, { end: repliedAt, status: out.status, body, dropped: out.drop, clientGone });
    }
    grader.count(out.entry.user_id, findingCodes(out.entry.findings));
    this.logged(entry, out);
    if (out.drop) {
      // The lost-reply case: the change is applied, the caller never hears of it.
      http.drop();
      return;
    }
    this.out = out;
    // A delayed reply is written when its delay ends: its time is what a caller's time-out meets.
    if (out.delayMs) this.write();
    else batchReply(this);
  }

  /** Committed, journalled and graded in one step (the seal's): the reply goes. */
  private committed(entry: StoredEntry): undefined {
    this.out = this.sealed!.out;
    this.journalId = entry.id;
    this.logged(entry, this.out);
    batchReply(this);
    return undefined;
  }

  private logged(entry: StoredEntry, out: CallbackOutput): void {
    const log = this.http.log;
    // (the line's fields are not even gathered at --log-level warn, the usual level under load)
    if (log.isLevelEnabled?.('info') !== false)
      log.info(
        {
          journal_id: entry.id,
          code: out.code,
          reason: out.reason,
          transaction_id: entry.transaction_id,
          user_id: entry.user_id,
          event_type: entry.event_type,
        },
        out.reason ?? out.code ?? 'no code',
      );
  }

  /** As a throw from the handler would be: the route's error handler answers (R1); once a reply is out (or dropped), only logged. */
  failedLater(e: unknown): void {
    const error = e instanceof Error ? e : new Error(String(e));
    if (this.http.sent) {
      this.http.log.error({ err: error }, 'callback failed after its reply');
      return;
    }
    this.http.fail(error);
  }

  /** The request body as received (until a delayed reply forgets it: grading takes it on arrival). */
  get text(): string {
    return this.http.input.body;
  }

  write(): void {
    const { out } = this;
    this.http.send(out.status, out.headers, out.bytes ?? out.body); // a rule may force any status
  }
}
