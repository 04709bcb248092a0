import type { ProbeReport, Stopped } from './types.js';
import { REBINDING_REFUSED } from './targets.js';

/**
 * A probe run's upstream error (GET /metrics, `wallet_sim_upstream_errors_total`): the run could
 * not check the wallet because of how its URL answered at the transport level, not because of
 * what the wallet replied. A wallet that answers in the protocol, even to refuse (credentials, an
 * unknown player, funds), is no upstream error: the report says what to change there.
 */
export const UPSTREAM_ERROR_KINDS = ['unreachable', 'no-reply', 'wrong-path', 'not-a-wallet', 'address-refused'] as const;
export type UpstreamErrorKind = (typeof UPSTREAM_ERROR_KINDS)[number];

const TRANSPORT: ReadonlySet<Stopped['reason']> = new Set(['unreachable', 'blocked-port', 'no-reply', 'wrong-path', 'not-a-wallet']);

/**
 * The kind of a run's upstream error, or undefined when the wallet was reached and answered as one:
 * `unreachable` (nothing listens, the name does not resolve), `no-reply` (no answer in time, the
 * connection dropped), `wrong-path` (404/405 at the URL), `not-a-wallet` (something answered, not a
 * protocol reply), `address-refused` (the name resolved to a refused address at connect time).
 */
export function upstreamErrorOf(report: ProbeReport): UpstreamErrorKind | undefined {
  const reason = report.stopped?.reason;
  if (reason === undefined || !TRANSPORT.has(reason)) return undefined;
  if (report.exchanges.some((x) => x.error?.endsWith(REBINDING_REFUSED))) return 'address-refused';
  if (reason === 'blocked-port') return 'unreachable'; // the metric's kinds stay as documented: a port fetch refuses is not reached

  return reason as UpstreamErrorKind;
}
