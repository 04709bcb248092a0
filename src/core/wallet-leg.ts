// The wallet leg: one callback forwarded to an operator's wallet and what came back. Proxy mode
// builds these from live traffic, `probe` from the traffic it drives; the wallet-side checks
// (src/grading/wallet/) never know which.

/** A callback sent to the wallet under test. */
export interface WalletExchange {
  /** The callback's journal id (proxy mode) or the probe's exchange number: the evidence a violation cites. */
  id: number;
  /** The request's fields, when it had them (a garbage body has none). */
  user?: string;
  event?: string;
  tx?: string;
  /** The request's parsed body (an object), or undefined when it did not parse. */
  body?: unknown;
  /** wallet-sim's own verdict on the request: its schemas and totals accept it. */
  valid: boolean;
  /** The request carried the credentials the provider was given (the scenario's). */
  credentialsOk: boolean;
  /** The request's own headers that a reply echoes (never its Api-Key: see `sentConfiguredKey`). */
  sentHeaders: { apiId?: string; callbackUrl?: string };
  /** The request's Api-Key was the configured one (so a reply may carry it back). */
  sentConfiguredKey: boolean;
  /** When it was sent to the wallet (ms since the epoch). */
  sentAt: number;
}

/** What the wallet did with it: an HTTP reply (any status, any bytes), or none. */
export type WalletAnswer =
  | {
      kind: 'reply';
      /** When the reply was read whole (ms since the epoch). */
      at: number;
      status: number;
      /** Header names in lower case; the Api-Key's value masked by whoever builds the answer (see `maskKey`). */
      headers: Readonly<Record<string, string | undefined>>;
      /** The reply's Api-Key header was the configured key. */
      repliedConfiguredKey?: boolean;
      /** The reply body as text, as it came. */
      text: string;
    }
  | {
      kind: 'none';
      at: number;
      /** Why there is no reply, for a person: "no reply within 30000 ms", "connection refused", "not HTTP". */
      why: string;
      /** What kind of failure it was, when the sender could tell (the fix differs: see `NoReplyCause`). */
      cause?: NoReplyCause;
    };

/**
 * Why a wallet gave no reply, by what fixes it: `unreachable` (no connection: refused, a name that
 * does not resolve, a TLS handshake that fails: the URL or the wallet's being up), `timeout` (connected,
 * no reply in time: the wallet is slow), `broken` (connected, then closed without an HTTP reply or
 * with bytes that are not one).
 */
export type NoReplyCause = 'unreachable' | 'timeout' | 'broken';

/** An upstream's answer: an HTTP reply as it came, or none (the provider's connection is then closed). */
export type Relayed =
  | {
      kind: 'reply';
      status: number;
      headers: Record<string, string>;
      /** The body as UTF-8 text (read, graded, journalled). */
      text: string;
      /** The body's bytes as they came: what the provider gets (`text` may have replaced invalid UTF-8). */
      bytes?: Uint8Array;
    }
  | { kind: 'none'; why: string; cause?: NoReplyCause };

/** The journal's record of the upstream leg (schemas/journal-entry.schema.json `upstream`). */
export interface UpstreamLeg {
  url: string;
  /** False when a rule answered locally (a forced code) and nothing went upstream. */
  forwarded: boolean;
  sent_at?: string;
  replied_at?: string;
  /** Forwarded → the upstream's reply read whole (or given up on). */
  duration_ms?: number;
  status?: number;
  headers?: Record<string, string>;
  /** The reply's body: parsed JSON, or its text when it is not JSON. */
  body?: unknown;
  /** Why there is no reply: a time-out, a refused or reset connection, bytes that are not HTTP. */
  error?: string;
}
