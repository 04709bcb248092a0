import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Attempt } from './attempt.js';
import type { Grading } from '../core/exchange.js';
import type { Alongside } from '../ledger/store.js';
import { StoreUnavailable } from '../ledger/store-error.js';
import { arriveExchange, type GradingFeed } from './feed.js';
import { after, type Event, type SessionDoc, sessionIdOf } from './redis-events.js';
import { replyFacts, sealedEvent } from './sealed-event.js';
import { GradingSession, loggedIn, logIn } from './session.js';
import { UpstreamOrder } from './upstream-order.js';
import type { Thresholds } from '../core/scenario/thresholds.js';
import type { WalletAnswer, WalletExchange } from './wallet/exchange.js';
import type { WalletGraderOptions } from './wallet/wallet-grader.js';

/** Events a session's stream keeps (the oldest go): a process that joins later folds what is left. */
export const MAX_STREAM_EVENTS = 200_000;
/** How long a report waits for events other processes are still writing (their callbacks in flight). */
export const SHARED_LAG_MS = 1000;
const BLOCK_MS = 1000;
/** How long a finished session's (emptied) stream stays for its callbacks still in flight: above the longest delay_ms. */
const FINISHED_TTL_S = 3600;

/**
 * One session and one verdict for every process of a Redis store. A process writes its callbacks'
 * grading events (arrival, caller gone, reply written, findings) to the session's stream, and folds
 * the whole stream, in the stream's order, into a grader of its own: every process folds the same
 * events in the same order, so each gives the same report. A report first folds what the stream
 * holds beyond what was folded, and judges windows up to a second ago (events of callbacks still
 * in flight in other processes may be on their way).
 *
 *   grading:session        the current session: {"id","started_at","keep_logins"}
 *   grading:<session id>   its events (field e: JSON), capped at MAX_STREAM_EVENTS
 */
export class SharedGrading implements Grading<GradingSession> {
  session: GradingSession;
  private last = '0-0';
  private reader?: Redis;
  private readonly attempts = new Map<string, Attempt>();
  /** Proxy mode: a player's arrivals in the order they came, whatever the upstream's pace (./upstream-order.ts). */
  private readonly order = new UpstreamOrder<Event>(
    (e) => this.apply(e),
    () => this.session.grader,
  );
  private readonly process = randomUUID().slice(0, 8);
  private next = 0;
  private closedDown = false;
  /** The session document `prepare` found (what the prepared one replaces). */
  private replaced?: string | null;

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
    private thresholds: Thresholds,
    private readonly seed: () => number,
    private readonly walletOptions: () => WalletGraderOptions | undefined = () => undefined,
  ) {
    this.session = this.local({ id: 'pending', started_at: new Date().toISOString() });
  }

  private get sessionKey(): string {
    return `${this.prefix}grading:session`;
  }

  private streamKey(id: string): string {
    return `${this.prefix}grading:${id}`;
  }

  private local(doc: SessionDoc, carried?: GradingSession): GradingSession {
    const s = new GradingSession(
      this.thresholds,
      this.seed(),
      Date.parse(doc.started_at),
      doc.keep_logins ? carried?.grader : undefined,
      this.walletOptions(),
    );
    s.info.id = doc.id;
    s.grader.lagMs = SHARED_LAG_MS;
    return s;
  }

  /**
   * Joins the current session (or begins the first), folds what its stream holds and follows it
   * (`follow` false: folds on demand only, src/grading/on-demand.ts, with no connection of its own).
   */
  async join(follow = true): Promise<void> {
    const doc: SessionDoc = { id: randomUUID().slice(0, 8), started_at: new Date().toISOString() };
    await this.client.set(this.sessionKey, JSON.stringify(doc), 'NX');
    await this.catchUp();
    if (follow) void this.follow();
  }

  /**
   * The next session's document, for a reset to write in its own atomic step (Store.commit's
   * `alongside`), then `begin` it: a callback committed to the new ledger is graded in the new
   * session by every process, told of it or not (commit.ts, SEAL). Reads the session it replaces.
   */
  async prepare(): Promise<Alongside> {
    const doc: SessionDoc = { id: randomUUID().slice(0, 8), started_at: new Date().toISOString() };
    this.replaced = await this.client.get(this.sessionKey);
    return [this.sessionKey, JSON.stringify(doc)];
  }

  /** Begins a new session for every process (a reset; `written`: the one `prepare` made, already in Redis). */
  async begin(keepLogins: boolean, written?: Alongside): Promise<void> {
    const mine = this.session.info.id;
    let doc: SessionDoc;
    let previous: string | null | undefined;
    if (written) {
      doc = JSON.parse(written[1]) as SessionDoc;
      previous = this.replaced;
    } else {
      doc = { id: randomUUID().slice(0, 8), started_at: new Date().toISOString(), keep_logins: keepLogins };
      // Logins kept: the old session folded whole first (every process's events), and its logged-in players are
      // the new stream's first event, so every process begins from the same ones. (GET and SET: SET … GET is 6.2.)
      const users = keepLogins ? loggedIn((await this.catchUp()).grader) : [];
      const write = this.client.multi().get(this.sessionKey).set(this.sessionKey, JSON.stringify(doc));
      if (users.length) write.xadd(this.streamKey(doc.id), '*', 'e', JSON.stringify({ t: 'l', users }));
      previous = (await write.exec())?.[0]?.[1] as string | null | undefined;
    }
    this.switchTo(doc);
    // The session this process graded and the one Redis held (another process may have begun it), never the new
    // one (a fold between the reset's commit and this call switched to it already).
    const old = [...new Set([mine, sessionIdOf(previous)])].filter((id): id is string => id !== undefined && id !== doc.id);
    await this.finish(old).catch(() => undefined);
  }

  /**
   * Empties finished sessions' streams (no report reads them; kept, each reset grew Redis by a
   * session of events). The key is left as an empty stream that expires: callbacks of the old
   * session still in flight (a delayed reply) add their last events to it, gone within FINISHED_TTL_S.
   */
  private finish(ids: readonly string[]): Promise<unknown> {
    const multi = this.client.multi();
    for (const id of ids) {
      // Written and trimmed at once: the key exists (with its time to live) even if the session had no events.
      multi.xadd(this.streamKey(id), 'MAXLEN', '0', '*', 'e', 'finished').expire(this.streamKey(id), FINISHED_TTL_S);
    }
    return multi.exec();
  }

  /** The scenario's thresholds changed (without a reset): the session grades with them from now. */
  use(thresholds: Thresholds): void {
    this.thresholds = thresholds;
    this.session.grader.t = thresholds;
    const wallet = this.walletOptions();
    if (wallet) this.session.wallet?.use(wallet);
  }

  private switchTo(doc: SessionDoc): void {
    if (doc.id === this.session.info.id) return;
    this.session = this.local(doc, this.session);
    this.last = '0-0';
    this.attempts.clear();
    this.order.clear();
  }

  current(): Promise<GradingSession> {
    return this.catchUp();
  }

  /** Reads the current session and folds every event of it not folded yet. */
  async catchUp(): Promise<GradingSession> {
    const text = await this.client.get(this.sessionKey);
    if (text) this.switchTo(JSON.parse(text) as SessionDoc);
    // Joined, then gone (a reset writes a new one, never none): its events went with it, as the ledger did.
    else if (this.session.info.id !== 'pending') throw new StoreUnavailable(lostSession(this.sessionKey));
    for (;;) {
      const { session } = this;
      const batch = await this.client.xrange(this.streamKey(session.info.id), `(${this.last}`, '+', 'COUNT', 5000);
      if (session !== this.session) continue; // (a catch-up meanwhile switched to a newer session: the batch is the old one's)
      this.fold(batch);
      if (batch.length < 5000) break;
    }
    this.order.abandon(Date.now());
    return this.session;
  }

  private fold(entries: [string, string[]][]): void {
    for (const [id, fields] of entries) {
      if (!after(id, this.last)) continue;
      this.last = id;
      try {
        const e = JSON.parse(fields[1]!) as Event;
        if (e.t === 's' && fields[2] === 'i') e.i = Number(fields[3]);
        this.apply(e);
      } catch {
        // Not an event of ours: skipped.
      }
    }
  }

  private apply(e: Event): void {
    const { grader } = this.session;
    if (e.t === 'a') {
      if (this.order.arrival(e, e.k, e.a.user, e.a.at)) return;
      const { source, ...arrival } = e.a;
      // An event written by an earlier version (one `source` object): its headers and reply.
      if (source) Object.assign(arrival, { headers: source.request.headers, reply: source.reply });
      this.attempts.set(e.k, grader.arrive(arrival));
      if (this.attempts.size > MAX_STREAM_EVENTS) this.attempts.delete(this.attempts.keys().next().value!);
    } else if ((e.t === 'x' || e.t === 'c') && this.order.ofAttempt(e, e.k)) return;
    else if (e.t === 'x') {
      const a = this.attempts.get(e.k);
      if (a) grader.closed(a, e.at);
    } else if (e.t === 'c') {
      const a = this.attempts.get(e.k);
      if (a) grader.complete(a, e.d);
      this.attempts.delete(e.k);
    } else if (e.t === 's') {
      if (e.a && this.order.arrival(e, undefined, e.a.user, e.a.at)) return;
      if (e.a && e.d) grader.complete(grader.arrive({ ...e.a, id: e.i ?? 0 }), e.d);
      if (e.c) grader.count(e.u, e.c);
    } else if (e.t === 'f') grader.count(e.u, e.c);
    else if (e.t === 'l') logIn(grader, e.users);
    else if (e.t === 'ws') {
      this.session.wallet?.sent(e.x);
      this.order.sent(e.x.user, e.x.id, e.x.sentAt, e.at);
    } else if (e.t === 'wa') {
      this.session.wallet?.rekey(e.s, e.x.id);
      this.session.wallet?.answered(e.x, e.a);
      this.order.answered(e.x.user, e.s);
    }
  }

  /** Folds new events as they come (a connection of its own, XREAD BLOCK), and a new session when one begins. */
  private async follow(): Promise<void> {
    const reader = this.client.duplicate({ lazyConnect: true, commandTimeout: BLOCK_MS + (this.client.options.commandTimeout ?? 2000) });
    reader.on('error', () => undefined); // it reconnects by itself
    this.reader = reader;
    try {
      await reader.connect();
    } catch {
      /* retried below */
    }
    while (!this.closedDown) {
      try {
        const id = this.session.info.id;
        const reply = await reader.xread('COUNT', 5000, 'BLOCK', BLOCK_MS, 'STREAMS', this.streamKey(id), this.last);
        if (id !== this.session.info.id) continue;
        for (const [, entries] of reply ?? []) this.fold(entries);
        if (!reply) {
          const text = await this.client.get(this.sessionKey);
          if (text) this.switchTo(JSON.parse(text) as SessionDoc);
        }
      } catch {
        if (!this.closedDown) await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** The route's side: events written to the stream of the session the callback arrived in. */
  get feed(): GradingFeed<{ k: string }> {
    const key = this.streamKey(this.session.info.id);
    const add = (e: Event) => {
      if (this.closedDown) return; // (a callback answered after its store closed: hosted mode's deleted tenant, its keys swept)
      this.client.xadd(key, 'MAXLEN', '~', String(MAX_STREAM_EVENTS), '*', 'e', JSON.stringify(e)).catch(() => {
        // Redis away: the callback is answered all the same; the store reports the state.
      });
    };
    const feed: GradingFeed<{ k: string }> = {
      expect: () => 0,
      settle: () => undefined,
      arrived: (x, ticket) => arriveExchange(feed, x, ticket),
      arrive: (a) => {
        const ref = { k: `${this.process}-${++this.next}` };
        // What the evidence cites (src/grading/evidence.ts) of the reply: its status and body.
        const reply = a.reply && { status: a.reply.status, body: a.reply.body };
        add({ t: 'a', k: ref.k, a: reply ? { ...a, reply } : a });
        return ref;
      },
      closed: (ref, at) => add({ t: 'x', k: ref.k, at }),
      complete: (ref, d) => add({ t: 'c', k: ref.k, d: { ...d, body: replyFacts(d.body) } }),
      count: (u, codes) => {
        const c = [...codes];
        if (c.length) add({ t: 'f', ...(u === undefined ? {} : { u }), c });
      },
      sealed: (x, d, codes) => {
        const event = sealedEvent(x, d, codes);
        return event === undefined ? undefined : { session: this.sessionKey, stream: this.streamKey(''), maxLen: MAX_STREAM_EVENTS, event };
      },
      ...(this.session.wallet && {
        wallet: {
          sent: (x: WalletExchange, at: number) => add({ t: 'ws', x, at }),
          answered: (s: number, x: WalletExchange, a: WalletAnswer) => add({ t: 'wa', s, x, a }),
        },
      }),
    };
    return feed;
  }

  close(): void {
    this.closedDown = true;
    this.reader?.disconnect();
  }
}

const lostSession = (key: string) =>
  `Redis lost wallet-sim's state (the graded session ${key} gone: flushed, evicted or restarted without persistence); ` +
  'POST /admin/reset starts afresh';
