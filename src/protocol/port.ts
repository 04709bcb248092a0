import type { IncomingHttpHeaders } from 'node:http';
import type { Finding } from './findings.js';
import type { CallbackRequest } from './types.generated.js';
import type { Money } from '../kernel/money.js';

// The protocol's seam: what the layers above read of a callback and of a wallet's reply, whatever
// the protocol. Everything specific to this spec (codes, headers, field names, events, how a
// callback is read and a reply written or read) is in ./seed/.

/** A callback as received over HTTP. */
export interface CallbackInput {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
}

/** A callback as read: who sent it, what it says, and every defect found on the way. */
export interface Intake {
  authenticated: boolean;
  /** The parsed body, when it is readable JSON of a sane depth. */
  body: unknown;
  /** The body, when it is a schema-valid request. */
  request?: CallbackRequest;
  /** event_type and user_id as the caller sent them, when readable, for the reply's echo. */
  echo: { event_type?: string; user_id?: string };
  findings: Finding[];
}

/** What reading a callback needs of the session it arrives in: its credentials and its clock's tolerance. */
export interface ReadContext {
  /** Which of the caller's Api-Id / Api-Key match (in constant time). */
  checkCredentials(apiId: string, apiKey: string): { id: boolean; key: boolean };
  /** How far a callback's timestamp may be from the wallet's clock, in seconds. */
  readonly timestampSkewS: number;
  /** Where a caller finds the credentials this wallet expects (an R2's reason says it). */
  readonly credentialsAt: string;
}

/** What writing a reply's headers needs of the session: the credentials a scenario fixes for replies, if any. */
export interface ReplyContext {
  readonly replyCredentials?: { api_id: string; api_key: string };
}

/** A callback sent to a wallet under test, as far as reading its reply needs it. */
export interface SentCallback {
  event?: string;
  user?: string;
  sentHeaders: { callbackUrl?: string };
  /** The request's Api-Key was the configured one (so a reply may carry it back). */
  sentConfiguredKey: boolean;
}

/** A wallet's HTTP reply as it came: any status, any bytes. */
export interface WireReply {
  status: number;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The reply's Api-Key header was the configured key. */
  repliedConfiguredKey?: boolean;
  text: string;
}

/**
 * What a reply says happened to the callback: `applied` (the wallet took it), `refused` (it did not,
 * and said why), `unknown` (it failed processing: the outcome is not known), `invalid` (the reply is
 * not one the protocol knows: no code to go by).
 */
export type Verdict = 'applied' | 'refused' | 'unknown' | 'invalid';

/** A reply the session writes itself: its text, its body as the journal keeps it, the balance it reports. */
export interface OwnReply {
  text: string;
  body: unknown;
  /** The reported balance as the body holds it (a JSON number), when it reports one. */
  balance?: number;
}

/**
 * A protocol as the core uses it: how a callback is read, how the session writes its own replies,
 * which codes and headers the pipeline names. src/protocol/seed/ is this spec's
 * (`seedProtocol`); src/app/compose.ts picks it. The core never names a code or a header itself.
 */
export interface Protocol {
  /** Authenticate → parse → validate: every defect of the request becomes a finding, nothing throws. */
  read(session: ReadContext, input: CallbackInput): Intake;
  /** The session's own reply with a code, echoing the event and player, reporting `balance` if given (null: none). */
  reply(code: string, eventType: string, userId: string, balance: Money | number | null | undefined): OwnReply;
  /** The headers of the session's own reply (`reason`: why it is not the applied code). */
  replyHeaders(
    session: ReplyContext,
    input: CallbackInput,
    eventType: string | undefined,
    reason: string | undefined,
  ): Record<string, string>;
  /** Why a callback was not applied: the forcing rule, the event's own refusal, or the error findings. */
  reason(
    code: string,
    findings: Finding[],
    forcedBy: string | undefined,
    balance: Money | undefined,
    req: CallbackRequest | undefined,
  ): string;
  /** The request body as the journal keeps it (a bounded excerpt of what was refused unread). */
  journalledBody(text: string, parsed: unknown, authenticated: boolean): unknown;
  /** A text as a header value may carry it. */
  headerSafe(text: string): string;
  /** A wallet's reply headers with the key masked, and whether the key was the configured one. */
  maskKey(
    headers: Readonly<Record<string, string | undefined>>,
    configuredKey: string,
  ): { headers: Record<string, string | undefined>; repliedConfiguredKey: boolean };
  /** The codes the pipeline answers with itself: applied, failed (outcome unknown), unauthorized. */
  readonly codes: { readonly applied: string; readonly failed: string; readonly unauthorized: string };
  /** The headers the pipeline reads of a callback, and the one that carries a reason. */
  readonly headers: { readonly apiId: string; readonly apiKey: string; readonly callbackUrl: string; readonly reason: string };
}
