import type { Awaitable } from '../kernel/awaitable.js';
import type { Finding } from '../protocol/findings.js';
import type { MaskedHeaders } from '../kernel/secrets.js';
import type { JournalMatch } from '../protocol/types.generated.js';
import type { UpstreamLeg, WalletAnswer, WalletExchange } from './wallet-leg.js';

export type { WalletAnswer, WalletExchange } from './wallet-leg.js';
import type { Thresholds } from './scenario/thresholds.js';
import type { Alongside, SealedEntry, SealedEvent } from '../ledger/store.js';
import type { WalletConfig } from '../protocol/event.js';

/*
 * The exchange: one record per callback (WireMock's "serve event"), as the pipeline (./pipeline.ts)
 * emits it, and the ports of those who consume it: the journal keeps it, grading folds it, the
 * wallet-side checks read its upstream leg. The consumers implement these ports; the pipeline
 * never asks which one it has.
 */

/** One callback as the simulator saw it: a WireMock "serve event". */
export interface JournalEntry {
  id: number;
  /** When the request arrived (ISO 8601). */
  received_at: string;
  /**
   * When the wallet wrote its reply or closed the connection (a dropped reply); absent while the
   * callback is still being answered (a `delay_ms` in progress).
   */
  replied_at?: string;
  duration_ms: number;
  transaction_id?: string;
  event_type?: string;
  user_id?: string;
  request: { method: string; url: string; headers: Record<string, string>; body: unknown };
  reply: {
    status: number;
    headers: Record<string, string>;
    body: unknown;
    /** A scenario rule closed the connection instead of answering (the lost-reply case). */
    dropped: boolean;
    /** The caller had already closed the connection when the reply was written: it never read it. */
    client_gone?: boolean;
  };
  code?: string;
  reason?: string;
  rule?: { index: number; name: string };
  balance_before?: number;
  balance_after?: number;
  replayed: boolean;
  findings: Finding[];
  /** Proxy mode (--upstream): the upstream leg, what went to the operator's wallet and what came back. */
  upstream?: UpstreamLeg;
}

/**
 * Headers of an entry being recorded: masked already, or kept as received and masked whenever the
 * entry is written as JSON (`MaskedHeaders`). An entry read back (`list`) has masked text only.
 */
export type EntryHeaders = Readonly<Record<string, string>> | MaskedHeaders;

/** An entry as it is handed to a journal: its headers may be masked only when written. */
export type NewEntry = Omit<JournalEntry, 'request' | 'reply'> & {
  request: Omit<JournalEntry['request'], 'headers'> & { headers: EntryHeaders };
  reply: Omit<JournalEntry['reply'], 'headers'> & { headers: EntryHeaders };
};

/** Which entries to read: the filter language (src/journal/match.ts) and paging. */
export interface JournalFilter extends JournalMatch {
  /** Only entries with an id greater than this (paging forward: the page ends before the oldest entry not written yet). */
  after?: number;
  /** Without `after`: keep the newest n. With `after`: the first n after it. */
  limit?: number;
}

/**
 * A recorded entry as the journal keeps it: its JSON text and, taken when it was kept, the fields
 * the filter language reads (so no filter parses the text).
 */
export interface StoredEntry extends MatchFields {
  readonly id: number;
  /** The entry's JSON text; entries are parsed only when read. */
  readonly text: string;
}

export type JournalListener = (entry: StoredEntry) => void;

/** A callback recorded when it arrives and finished when it is answered. */
export interface PendingEntry {
  readonly id: number;
  /** Completes the entry with the reply's timing and keeps it in the journal. */
  finish(done: ReplyTiming): StoredEntry;
}

export interface ReplyTiming {
  replied_at: string;
  duration_ms: number;
  client_gone: boolean;
}

/**
 * What the routes need of a journal (WireMock's: record, list, count, reset). `Journal` below keeps
 * it in this process; src/journal/redis-journal.ts keeps it in a Redis stream that every wallet-sim
 * process sharing the ledger writes to and reads from.
 */
export interface JournalStore {
  record(entry: Omit<NewEntry, 'id'>): Awaitable<StoredEntry>;
  /** `chars`: the size of the request body as received, which the entry holds until it is finished. */
  begin(
    entry: Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>,
    chars?: number,
  ): Awaitable<{ readonly id: number; finish(done: ReplyTiming): Awaitable<StoredEntry> }>;
  /**
   * A shared journal (Redis): the entry of a callback answered at once, finished (its reply timed to
   * the commit), as the store writes it in the callback's commit (Store.transact's `seal`), and the
   * entry kept once the store numbered it. Undefined when it must be written apart (past the bounds,
   * Redis away); a journal without it writes every entry apart.
   */
  seal?(
    entry: Omit<NewEntry, 'id' | 'replied_at' | 'duration_ms'>,
    done: ReplyTiming,
  ): { entry: SealedEntry; stored(id: number): StoredEntry } | undefined;
  /** Callbacks decided but not answered yet, oldest first. */
  inFlight(): Awaitable<JournalEntry[]>;
  select(filter?: JournalFilter): Awaitable<StoredEntry[]>;
  list(filter?: JournalFilter): Awaitable<JournalEntry[]>;
  count(filter?: JournalFilter): Awaitable<number>;
  /** Calls `listener` with every entry kept from now on; returns the unsubscribe function. */
  subscribe(listener: JournalListener): () => void;
  /**
   * A journal shared by several processes: `listener` hears only the entries this process keeps
   * (hosted mode's metrics, per process). Without it, `subscribe` hears only those anyway.
   */
  tap?(listener: JournalListener): () => void;
  reset(): Awaitable<void>;
}

/**
 * What the language reads of an entry. The journals take these few fields from an entry when they
 * keep it, beside its JSON text, so that no filter has to parse the text.
 */
export interface MatchFields {
  readonly user_id?: string;
  readonly event_type?: string;
  readonly transaction_id?: string;
  /** data.game_no of the request, when a string. */
  readonly game_no?: string;
  /** data.table_no of the request, when a string. */
  readonly table_no?: string;
  readonly code?: string;
  readonly replayed?: boolean;
  /** The name of the scenario rule that fired. */
  readonly rule?: string;
}

/** How the wallet finished with a callback: its reply written, or its connection closed. */
export interface Completion {
  /** When the wallet wrote the reply or closed the connection. */
  end: number;
  status: number;
  /** The reply body as sent (a rule may send any body). */
  body: unknown;
  /** A rule closed the connection instead of answering. */
  dropped: boolean;
  /** The caller had closed the connection before the reply was written. */
  clientGone: boolean;
}

/** What to send back for one callback, and the record to journal once it is sent. */
export interface CallbackOutput {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * A relayed reply's bytes, written as they are under the upstream's headers (its Content-Type
   * untouched); wallet-sim's own replies have none and are written from `body`.
   */
  bytes?: Uint8Array;
  delayMs: number;
  drop: boolean;
  code?: string;
  /** The code (or `HTTP <status>`) a scenario rule forced instead of the wallet's answer, when one did. */
  forced: string | undefined;
  reason?: string;
  /** The caller's credentials were right: only such callbacks are graded. */
  authenticated: boolean;
  /** Proxy mode: the callback as it went upstream and the upstream's answer, for the wallet-side grading. */
  wallet?: { sent: WalletExchange; answer: WalletAnswer };
  /** The journal entry; `received_at` is set when it is journalled (the field is there from the start: one shape). */
  entry: Omit<NewEntry, 'id' | 'duration_ms' | 'received_at'> & { received_at?: string };
}

/** One callback journalled and being answered: the exchange as grading reads it when it arrives. */
export interface JournalledExchange {
  /** Its journal id. */
  readonly journalId: number;
  /** When it arrived (ms since the epoch). */
  readonly at: number;
  /** How late that stamp may be (ms), measured as it was taken (./loop-lag.ts). */
  readonly lag: number;
  readonly out: CallbackOutput;
  /** The request body as read, before the journal may cut it to an excerpt (past --journal-bytes). */
  readonly requestBody: unknown;
  /** The request body as received, and its length. */
  readonly text: string;
  readonly chars: number;
}

/**
 * What the pipeline tells grading of each callback, in the order things happen (src/grading/ feeds
 * implement it). `H` is the handle of one graded attempt.
 */
export interface ExchangeFeed<H = unknown> {
  /** A callback arrived at `at` and is being decided: windows after `at` wait for it. */
  expect(at: number): number;
  /** The callback of `ticket` will not be graded. */
  settle(ticket: number): undefined;
  /** The callback of `ticket` is a callback of `user` (read once it arrived): its player's later ones are graded after it. */
  player?(ticket: number, user: string): void;
  /** An authenticated callback was journalled: graded when it is one of the events with a transaction_id and a player. */
  arrived(x: JournalledExchange, ticket: number): H | undefined;
  /** The caller closed the connection of an attempt still being answered. */
  closed(attempt: H, at: number): void;
  /** The wallet wrote the attempt's reply, or closed its connection. */
  complete(attempt: H, done: Completion): void;
  /** The findings of one journalled callback (any callback, refused credentials included). */
  count(user: string | undefined, codes: Iterable<string>): void;
  /** Proxy mode (--upstream) only: where the upstream leg of each callback goes, to grade the operator's wallet. */
  readonly wallet?: WalletFeed;
  /**
   * A shared session (Redis): everything of a callback answered at once (`arrived`, `complete`,
   * `count`) as one event, which the store writes in the callback's commit with its journal id
   * (Store.transact's `seal`); undefined when there is nothing to grade. A feed without it is told
   * each step apart.
   */
  sealed?(x: JournalledExchange, done: Completion, codes: Iterable<string>): SealedEvent | undefined;
}

/** What the pipeline tells the wallet-side grading of one forwarded callback. */
export interface WalletFeed {
  /** A callback that arrived at `arrivedAt` is going upstream; `x.id` is provisional (negative), its journal id not known yet. */
  sent(x: WalletExchange, arrivedAt: number): void;
  /** The upstream answered the callback sent as `sentAs` (or did not); `x.id` is now its journal id. */
  answered(sentAs: number, x: WalletExchange, a: WalletAnswer): void;
}

/** Provisional ids of forwarded callbacks: negative (journal ids are positive), unique across the processes of a store. */
const PROCESS_BASE = (1 + Math.floor(Math.random() * 2 ** 31)) * 2 ** 20;
let provisional = 0;
export const provisionalId = (): number => -(PROCESS_BASE + (++provisional % 2 ** 20));

/** What the wallet side is graded against in proxy mode: the provider's declared time-out, the credentials it was given. */
export interface WalletGradingOptions {
  /** The provider's declared time-out (the scenario's grading.client_timeout_s), in ms. */
  clientTimeoutMs: number;
  /** The credentials the provider was given (the scenario's). */
  credentials: { api_id: string; api_key: string };
  /** The wallet rules the reference ledger judges by (the scenario's currencies and defaults). */
  config?: WalletConfig;
  /**
   * Every round is seen from its first bet (probe plays its own players); without it (proxy mode)
   * a round may have begun before the session, and what rests on its earlier bets is not judged.
   */
  closedWorld?: boolean;
}

/**
 * What the consumers declare of their own types, by declaration merging (as Fastify's decorators are
 * typed): src/grading/session.ts declares its session here, so the simulator's `grading` has that
 * type while the core names no consumer.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the consumers' declarations
export interface ConsumerTypes {}

/** A grading session as its consumer declared it (`ConsumerTypes`), else unknown. */
export type GradingSessionOf = ConsumerTypes extends { gradingSession: infer S } ? S : unknown;

/**
 * The grading sessions as the simulator holds them: one begins at start-up and at every reset,
 * and grades what arrived in it. `S` is a session as grading keeps it.
 */
export interface Grading<S = unknown> {
  /** The current session as folded so far. */
  readonly session: S;
  /** Where a callback's grading events go: the session it arrives in. */
  readonly feed: ExchangeFeed;
  /** The current session with every event folded (other processes' too): what a report reads. */
  current(): Promise<S>;
  /** Begins a new session (for every process); `keepLogins`: logged-in players stay so; `written`: the one `prepare` made. */
  begin(keepLogins: boolean, written?: Alongside): Promise<void>;
  /**
   * A session shared by processes (Redis): the next session's document, which a reset writes in the
   * same atomic step as its ledger clear (Store.commit's `alongside`) and then begins.
   */
  prepare?(): Promise<Alongside>;
  /** The session began on a restarted wallet's players (Backend.resumed): their logins are not its to judge. */
  resume?(players: readonly string[]): void;
  /** The scenario's thresholds changed without a reset: the session grades with them from now. */
  use(thresholds: Thresholds): void;
}
