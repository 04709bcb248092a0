import type { WalletCheckReport } from '../grading/wallet/wallet-grader.js';
import type { Latency, ProbeTarget } from './types.js';
import { DEFAULT_CLIENT_TIMEOUT_MS } from './wire.js';

/**
 * Reply times per event: p50 and p99 (nearest rank) and the slowest. WALLET_ANSWERS_IN_TIME grades
 * every reply against the provider's declared time-out (--client-timeout); these say how close the
 * wallet runs to it, measured apart from how long the probe waits (--timeout).
 */
export function latencyOf(samples: Map<string, number[]>): Latency[] {
  return [...samples.entries()].map(([event, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const rank = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
    return { event, count: sorted.length, p50: rank(50), p99: rank(99), max: sorted.at(-1)! };
  });
}

export const latencyText = (l: Latency[]): string =>
  l.map((x) => `${x.event} p50 ${x.p50} ms, p99 ${x.p99} ms (${x.count} replies)`).join('; ');

/** The wallet checks, with the latency per event in WALLET_ANSWERS_IN_TIME's detail. */
export function withLatency(checks: WalletCheckReport[], latency: Latency[], t: ProbeTarget): WalletCheckReport[] {
  const limit = t.clientTimeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS;
  return checks.map((c) =>
    c.id === 'WALLET_ANSWERS_IN_TIME' && latency.length
      ? { ...c, detail: `${c.detail}; ${latencyText(latency)}; the provider's time-out: ${limit} ms (--client-timeout)` }
      : c,
  );
}
