import { count } from '../text/plural.js';
import type { Report } from '../protocol/types.generated.js';

// The report's session and timing profile as text: the terminal, the HTML page and the dashboard
// say them the same way (no import here but types and the plural helper, so the dashboard's bundle can take it).

/** The session line: which session was graded, since when, with which seed. */
export const sessionLine = (r: Report) =>
  `session ${r.session.id} since ${r.session.started_at}${r.session.seed === null ? '' : ` · seed ${r.session.seed}`}`;

/** What a failing warning means, said beside the count of failing checks by the terminal, the HTML page and the dashboard. */
export const WARNING_MEANS =
  'a warning is a practice a client should follow; a failing warning fails `wallet-sim report` only with --fail-on warning (the default is --fail-on error)';

/** The failing warnings of a report. */
export const failingWarnings = (r: Pick<Report, 'checks'>) =>
  r.checks.filter((c) => c.status === 'fail' && c.severity === 'warning').length;

/** "1 warning fails: a warning is …" */
export const warningsLine = (r: Pick<Report, 'checks'>) =>
  `${count(failingWarnings(r), { one: 'warning fails', other: 'warnings fail' })}: ${WARNING_MEANS}`;

const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** A gap as a person reads it: in ms below 10 s (where the minimum gap lives), in seconds above ("90.1 s", not "90061 ms"). */
const gapText = (ms: number) => (ms < 10_000 ? `${ms} ms` : `${(ms / 1000).toFixed(1).replace(/\.0$/, '')} s`);

/**
 * The provider's timing profile against the declared thresholds, one phrase each; `warn` marks
 * what falls short (a time-out shorter than declared, retries closer than the minimum gap, more
 * attempts than allowed).
 */
export function timingPhrases(r: Report, warn: (s: string) => string = (s) => `${s} (!)`): string[] {
  const { timing: m, thresholds: t } = r;
  if (!t) return [];
  const out: string[] = [];
  const timeout = t.client_timeout_s * 1000;
  if (m.observed_timeout_ms) {
    const { median, max } = m.observed_timeout_ms;
    const text = `client time-out observed ${s1(median)} median, ${s1(max)} max (declared ${t.client_timeout_s} s)`;
    out.push(median < timeout - Math.max(100, timeout * 0.05) ? warn(text) : text);
  } else out.push(`client time-out not observed (no caller closed a connection before its reply; declared ${t.client_timeout_s} s)`);
  if (m.retry_gap_ms) {
    const { first, p50, max } = m.retry_gap_ms;
    const text = `retry gaps ${gapText(first)} first, ${gapText(p50)} median, ${gapText(max)} max (at least ${t.min_retry_gap_ms} ms)`;
    out.push(Math.min(first, p50) < t.min_retry_gap_ms ? warn(text) : text);
  } else out.push('no resend observed');
  if (m.max_attempts !== null) {
    const text = `most attempts of one transaction ${m.max_attempts} (at most ${t.max_attempts})`;
    out.push(m.max_attempts > t.max_attempts ? warn(text) : text);
  }
  return out;
}
