import { roundKey } from '../ledger/change.js';
import type { RoundEffect } from '../protocol/event.js';
import { eventNamed } from '../protocol/seed/index.js';
import { ALL_CODES, type Code, FAILED, SUCCESS, verdictOf } from '../protocol/seed/codes.js';
import { balanceOf, codeOf } from '../protocol/seed/reply-read.js';
import type { Completion, EntryHeaders } from '../core/exchange.js';
import { gradedBody } from './graded-body.js';

/**
 * What the provider learnt from one attempt:
 * - a code (R0 to R4): it read a reply with that code, in time;
 * - `failed`: it read a reply in time, but one without a protocol code (another HTTP status, a raw
 *   body): as indeterminate as R1;
 * - `lost`: no reply reached it (connection dropped, it had gone, or the reply came after its
 *   time-out);
 * - `waiting`: still being answered and younger than its time-out: no outcome yet.
 */
export type Outcome = Code | 'failed' | 'lost' | 'waiting';

/** A registered event's name (src/protocol/seed/): its grading facts are read from its module. */
export type GradedEvent = string;

/** The reply a violation's evidence cites: the journal entry's. */
export interface EvidenceReply {
  status: number;
  body: unknown;
}

/**
 * What the wallet-sim side did to an attempt's reply beyond answering it: closed the connection
 * instead (a rule's drop_connection, or no reply from the upstream in proxy mode), held it
 * (`delayMs`), forced its code or HTTP status (`forced`). Only a callback with one of these has an
 * object: the pictures of a violation draw it.
 */
export interface Fault {
  dropped?: true;
  delayMs?: number;
  forced?: string;
}

/** The fault of a callback's reply, or undefined when it was answered as the wallet decided, at once. */
export function faultOf(drop: boolean, delayMs: number, forced: string | undefined): Fault | undefined {
  if (!drop && !delayMs && forced === undefined) return undefined;
  const f: Fault = {};
  if (drop) f.dropped = true;
  if (delayMs) f.delayMs = delayMs;
  if (forced !== undefined) f.forced = forced;
  return f;
}

/** One authenticated callback with a transaction_id, as it arrived. Times are epoch milliseconds. */
export interface Arrival {
  /** Its journal id. */
  id: number;
  at: number;
  user: string;
  event: GradedEvent;
  tx: string;
  game?: string;
  /** data.total_bet_amount of a bet or bet_result. */
  total?: number;
  /**
   * The request body as grading keeps it (a GradedBody: src/grading/graded-body.ts), for comparing
   * resends (timestamp aside); a violation's evidence cites it as the request's body.
   */
  body: unknown;
  /** The wallet applied it or replayed it (its code was R0), whatever the provider saw. */
  applied: boolean;
  /**
   * Proxy mode: the upstream's own reply, relayed as it came (no rule replaced it), fails
   * WALLET_REPLY_VALID. For the provider it is a reply of unknown outcome, as a lost one: retrying
   * and giving up are both right, and the wallet's side owns the fault.
   */
  excused?: boolean;
  /**
   * Its answer is not wallet-sim's own rules judging the request: a scenario rule forced its code,
   * or (proxy mode) the upstream's reply was relayed as it came. A definite refusal of it then says
   * nothing of the provider's request: ROUNDS_SETTLED stops waiting for a round whose settlement, or
   * whose applied bet, was answered so (the provider did its part; the rest is escalation).
   */
  imposed?: boolean;
  /**
   * What else a violation's evidence cites: the request's headers as journalled (masked, or masked
   * when written: evidence is written as JSON) and the reply. Two fields rather than one object
   * holding both: an attempt is kept for as long as its transaction, and every object it keeps
   * alive is one more for the garbage collector to copy.
   */
  headers?: EntryHeaders;
  reply?: EvidenceReply;
  /** How late this process's stamps may be when it arrived (ms; src/core/loop-lag.ts). */
  lag?: number;
  /** What was done to its reply beyond answering it (dropped, held, forced), if anything. */
  fault?: Fault;
}

export type { Completion } from '../core/exchange.js';

/**
 * An arrival as the session holds it. Its times (`at`, `end`, `closedAt`, `knownAt`) are
 * milliseconds since the session's origin (Grader.origin), not since the epoch: small integers that
 * an attempt holds in its own fields, where epoch milliseconds (beyond 2^31) would each be a number
 * of its own on the heap, one more object per time for the garbage collector to copy.
 */
export interface Attempt extends Arrival {
  /** 0 for the first attempt of its transaction, 1 for the first resend… */
  nth: number;
  /** When the wallet wrote the reply or closed the connection; undefined while it is being answered. */
  end?: number;
  /** When the caller closed the connection before the reply (seen while a delay was running). */
  closedAt?: number;
  outcome: Outcome;
  /** When the provider knew the outcome (reply read, connection closed, its time-out ran out). */
  knownAt?: number;
  /**
   * What its reply said, when the wallet wrote it so close to the caller's time-out (nearTimeout) that
   * the provider may have read it or given up on it first: then neither is held against it (resending
   * a refusal, not resending a reply the session calls lost, settling a bet whose R0 came so).
   */
  near: Outcome | undefined;
  /** Its round's key (roundKey), when it has a game_no. */
  round?: string;
  /** What its event does to its round (the event module's `round`): a bet opens it, a bet_result settles it. */
  effect: RoundEffect | undefined;
  /** Its event starts the player's session (a login: the event module's grading facts). */
  session: boolean;
}

/**
 * A new attempt of an arrival, every field in one order: all attempts share one shape, so the
 * checks that read them stay fast (an arrival's optional fields would make many). `origin`: the
 * session's origin of time (Grader.origin), which its times count from.
 */
export function attemptOf(r: Arrival, nth: number, origin = 0): Attempt {
  const event = eventNamed(r.event);
  return {
    id: r.id,
    at: r.at - origin,
    user: r.user,
    event: r.event,
    tx: r.tx,
    game: r.game,
    total: r.total,
    body: r.body,
    applied: r.applied,
    excused: r.excused ?? false,
    imposed: r.imposed ?? false,
    headers: r.headers,
    reply: r.reply,
    lag: r.lag,
    fault: r.fault,
    nth,
    end: undefined,
    closedAt: undefined,
    outcome: 'waiting',
    knownAt: undefined,
    near: undefined,
    // (roundKey keeps the last key made: the store's read of this callback made it already.)
    round: r.game === undefined ? undefined : roundKey(r.user, r.game),
    effect: event?.round,
    session: event?.grading.startsSession ?? false,
  };
}

/** How much earlier than its declared time-out a client may resend: it measures from its own send. */
export const timeoutTolerance = (timeoutMs: number) => Math.max(100, timeoutMs * 0.05);

/**
 * How much later than the truth the stamps of two attempts may make a time `ms` look shorter: their
 * processes' lags (src/core/loop-lag.ts), at most a `share` of `ms` (a quarter unless said), so a
 * loaded machine never hides a resend at once or a back-off that starts over.
 */
export const stampLag = (p: { lag?: number }, a: { lag?: number }, ms: number, share = 0.25) =>
  Math.min((p.lag ?? 0) + (a.lag ?? 0), ms * share);

/**
 * Whether a reply written `end` (the session's ms) is too near the caller's time-out to say if the
 * provider read it: within the time-out's tolerance of it, grown by the attempt's stamp lateness
 * (the client's clock starts at its send, before the stamp; a loaded wallet writes a held reply late).
 */
export const nearTimeout = (a: Attempt, end: number, timeoutMs: number) =>
  Math.abs(end - (a.at + timeoutMs)) <= timeoutTolerance(timeoutMs) + stampLag(a, {}, timeoutMs);

/** Keeps what a reply written (`done`) so near the time-out said (`a.near`); whether it was. */
export function noteNear(a: Attempt, done: Completion, end: number, timeoutMs: number): boolean {
  if (!nearTimeout(a, end, timeoutMs)) return false;
  a.near = a.excused ? 'failed' : replyOutcome(done);
  return true;
}

export const DEFINITE: ReadonlySet<Outcome> = new Set<Outcome>(ALL_CODES.filter((c) => verdictOf(c) === 'refused'));
/** Outcomes after which the provider does not know whether the wallet applied the callback. */
export const UNCERTAIN: ReadonlySet<Outcome> = new Set<Outcome>([FAILED, 'failed', 'lost']);
/** Outcomes the provider actually read. */
export const READ: ReadonlySet<Outcome> = new Set<Outcome>([...ALL_CODES, 'failed']);

const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** What the provider read of a reply written within its time-out: its code, or `failed` when it has none. */
export function replyOutcome(done: Completion): Outcome {
  const code = codeOf(record(done.body));
  return done.status === 200 && code ? code : 'failed';
}

/** The latest_balance of a reply written within the provider's time-out, if it has one. */
export function replyBalance(done: Completion): number | undefined {
  return balanceOf(record(done.body));
}

/** Bets and settlements: the callbacks that move money (those of a round). */
export const movesMoney = (a: { effect: RoundEffect | undefined }) => a.effect !== undefined;

/** A round's key: the one encoding the backends use (src/ledger/change.ts), with no collision whatever the ids hold. */
export { roundKey };

/** A duration as a person reads it: below a second in ms ("0.0 s" would hide a resend at once). */
export const seconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`);

/** "bet tx-1 of player-1 (#12)" */
export const describe = (a: Attempt) => `${a.event} ${a.tx} of ${a.user} (#${a.id})`;

/** The arrival of a journal entry, or undefined when it is not graded (no transaction_id, no player, another event). */
export function arrivalOf(e: {
  id: number;
  received_at: string;
  transaction_id?: string;
  event_type?: string;
  user_id?: string;
  code?: string;
  request: { headers: Record<string, string>; body: unknown };
  reply: { status: number; body: unknown };
}): Arrival | undefined {
  const { transaction_id: tx, event_type: event, user_id: user } = e;
  if (tx === undefined || user === undefined || event === undefined || !eventNamed(event)) return undefined;
  const data = record(record(e.request.body)?.data);
  // Kept as the live path keeps it (src/grading/graded-body.ts), never whole.
  const body = gradedBody(e.request.body, 0);
  const arrival: Arrival = { id: e.id, at: Date.parse(e.received_at), user, event, tx, body, applied: e.code === SUCCESS };
  if (typeof data?.game_no === 'string') arrival.game = data.game_no;
  if (typeof data?.total_bet_amount === 'number') arrival.total = data.total_bet_amount;
  arrival.headers = e.request.headers;
  arrival.reply = e.reply;
  const fault = faultOf((e.reply as { dropped?: boolean }).dropped === true, 0, undefined);
  if (fault) arrival.fault = fault;
  return arrival;
}
