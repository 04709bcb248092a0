import { esc } from './html.js';
import { COLOR, HALO } from './palette.js';
import { arrivalMark, duration, EDGE, GUTTER, legend, type Mark, n, offset, replyMarks, WIDTH } from './timeline-marks.js';
import type { ReportEvidence, ReportThresholds, ReportViolation } from '../protocol/types.generated.js';

// A violation's evidence drawn as a timeline: one inline SVG string (no script, no style attribute,
// no external asset), drawn the same by the HTML report, the dashboard and probe's page. One lane per
// transaction_id (and per leg in proxy mode), a mark per attempt's arrival, its reply drawn by what
// became of it, the provider's time-out, the minimum gap and the gaps between attempts, the retry
// window when it ran out, and the moment the check decided. Every mark has its exchange as a tooltip
// (an SVG <title>). Colours are presentation attributes from the palette (./palette.ts, tested for
// contrast); the picture is 1,000 units wide and scales down with its container.

export { offset, WIDTH };

/** The violations of one check a page draws (the rest stay listed as text): a page stays light. */
export const DRAWN_PER_CHECK = 20;
const TOP = 34; // the time axis
const LANE = 56;
const LEGEND = 46;

export interface TimelineOptions {
  /** The thresholds graded with (the report's): the time-out, the minimum gap and the windows are drawn from them. */
  thresholds?: Partial<Pick<ReportThresholds, 'client_timeout_s' | 'min_retry_gap_ms' | 'retry_window_s' | 'round_max_age_s'>>;
  /**
   * The check that found the violation: it chooses the window drawn (the retry window of the checks
   * that wait for a resend, the round's age of ROUNDS_SETTLED). Without it no window is drawn: a
   * window of another check would say the violation was judged on it.
   */
  check?: string;
  /**
   * Proxy mode: an upstream leg was relayed to the provider, which gets a lane of its own (the
   * callback as wallet-sim answered it: forwarded at once, the upstream's answer relayed as it came,
   * its connection closed when the upstream gave none).
   */
  relayed?: boolean;
  /** The protocol's failed code (R1): a settlement answered with it is one FAILED_SETTLEMENT_RETRIED waits on a resend of. */
  failedCode?: string;
}

interface Lane {
  key: string;
  label: string;
  title: string;
  leg: 'provider' | 'upstream';
  marks: Mark[];
}

const time = (iso: string | undefined): number | undefined => {
  if (iso === undefined) return undefined;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : undefined;
};

/** The lanes of a violation: one per leg and transaction_id, in order of first arrival. */
function lanesOf(v: ReportViolation, relayed: boolean): Lane[] {
  const lanes = new Map<string, Lane>();
  const add = (leg: Lane['leg'], e: ReportEvidence, fate: Mark['fate']) => {
    const tx = e.transaction_id ?? v.transaction_id ?? `#${e.journal_id}`;
    const key = `${leg}:${tx}`;
    let lane = lanes.get(key);
    if (!lane) {
      const who = leg === 'upstream' ? (relayed ? 'upstream wallet' : 'wallet') : relayed ? 'provider' : '';
      const what = `${e.event_type ? `${e.event_type} ` : ''}${tx}`;
      lane = { key, leg, label: who ? `${who}: ${what}` : what, title: `${who ? `${who} leg, ` : ''}${what}`, marks: [] };
      lanes.set(key, lane);
    }
    const at = time(e.received_at);
    if (at === undefined) return;
    lane.marks.push({ e, at, end: time(e.replied_at), closed: time(e.closed_at), known: time(e.known_at), fate });
  };
  // Callbacks whose provider attempt is cited beside their upstream leg (proxy mode's wallet checks).
  const own = new Set((v.evidence ?? []).filter((e) => (e.leg ?? 'provider') === 'provider').map((e) => e.journal_id));
  for (const e of v.evidence ?? []) {
    const leg = e.leg ?? 'provider';
    // Else the provider's side of a relayed callback, as the upstream's answer made it: its connection closed when there was none.
    if (leg === 'upstream' && relayed && !own.has(e.journal_id))
      add('provider', e, e.fate === 'no_reply' ? 'dropped' : (e.fate ?? 'written'));
    add(leg, e, e.fate ?? (e.replied_at ? 'written' : 'unanswered'));
  }
  const all = [...lanes.values()];
  // Provider lanes above upstream lanes, each group in order of first arrival.
  return all
    .sort((a, b) => (a.leg === b.leg ? a.marks[0]!.at - b.marks[0]!.at : a.leg === 'provider' ? -1 : 1))
    .filter((l) => l.marks.length);
}

/** How many attempts of the transaction came between two marks of a lane and are not cited (0 when unknown: evidence without `attempt`). */
function skippedBetween(m: Mark, next: Mark): number {
  const [a, b] = [m.e.attempt, next.e.attempt];
  return a === undefined || b === undefined ? 0 : Math.max(0, b - a - 1);
}

/** A window drawn under a mark: from, to (epoch ms), what it is. */
interface Window {
  kind: 'retry' | 'round-age';
  from: number;
  to: number;
  title: string;
}

/** The checks that wait for a resend within retry_window_s of an outcome the provider could not rely on. */
const RETRY_WINDOW: Record<string, readonly string[]> = {
  LOST_REPLY_RETRIED: ['lost'],
  FAILED_SETTLEMENT_RETRIED: ['lost', 'failed'], // (and the failed code: TimelineOptions.failedCode)
};
const KNEW: Record<string, string> = { lost: 'the reply was lost', failed: 'the reply had no readable code' };

/**
 * The window the violated check applies, per mark: the retry window after an outcome it waits on,
 * drawn when it ran out (no attempt of the lane came within it) by the time the check decided; the
 * round's age limit (round_max_age_s) from the arrival of the bet that opened it (the first cited).
 */
function windowsOf(
  check: string | undefined,
  t: TimelineOptions['thresholds'],
  decided: number | undefined,
  lanes: Lane[],
  failedCode?: string,
): (m: Mark) => Window | undefined {
  const waits = check === undefined ? undefined : RETRY_WINDOW[check];
  const outcomes = waits && check === 'FAILED_SETTLEMENT_RETRIED' && failedCode ? [...waits, failedCode] : waits;
  if (outcomes && t?.retry_window_s !== undefined && decided !== undefined) {
    const window = t.retry_window_s * 1000;
    const lane = new Map(lanes.flatMap((l) => l.marks.map((m) => [m, l] as const)));
    return (m) => {
      const known = m.known;
      if (known === undefined || !outcomes.includes(m.e.outcome ?? '') || decided < known + window - 1) return undefined;
      if (lane.get(m)?.marks.some((o) => o !== m && o.at >= m.at && o.at <= known + window)) return undefined;
      const what = KNEW[m.e.outcome!] ?? `the reply was ${m.e.outcome}`;
      return {
        kind: 'retry',
        from: known,
        to: known + window,
        title: `the retry window: ${duration(window)} from when the provider knew ${what}, to resend #${m.e.journal_id}`,
      };
    };
  }
  if (check === 'ROUNDS_SETTLED' && t?.round_max_age_s !== undefined) {
    const age = t.round_max_age_s * 1000;
    const opener = lanes.flatMap((l) => l.marks).sort((a, b) => a.at - b.at)[0];
    return (m) =>
      m === opener
        ? {
            kind: 'round-age',
            from: m.at,
            to: m.at + age,
            title: `round_max_age_s: the round opened by #${m.e.journal_id} was to be settled within ${duration(age)}`,
          }
        : undefined;
  }
  return () => undefined;
}

/** Tick spacing: 1, 2 or 5 × a power of ten, about `count` ticks over `span` ms. */
function step(span: number, count = 6): number {
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
}

/**
 * A violation's timeline as an SVG element (a string), or '' when its evidence has no times to draw.
 * The violation's message stays beside it as text (the caller writes it): the SVG has a short label
 * of its own for screen readers.
 */
export function timelineSvg(v: ReportViolation, o: TimelineOptions = {}): string {
  const lanes = lanesOf(v, o.relayed ?? false);
  if (!lanes.length) return '';
  const t = o.thresholds;
  const timeout = t?.client_timeout_s === undefined ? undefined : t.client_timeout_s * 1000;
  const minGap = t?.min_retry_gap_ms;
  const decided = time(v.decided_at);
  const marks = lanes.flatMap((l) => l.marks);
  const start = Math.min(...marks.map((m) => m.at));
  const windowOf = windowsOf(o.check, t, decided, lanes, o.failedCode);
  const max = (times: (number | undefined)[]) => Math.max(...times.filter((x): x is number => x !== undefined && Number.isFinite(x)));
  // What happened sets the time axis; a time-out or a minimum gap far beyond it (a resend at 100 ms
  // against an 8 s time-out) is drawn up to the edge with its time written, not to scale.
  const happened = max([...marks.flatMap((m) => [m.at, m.end, m.closed, m.known, windowOf(m)?.to]), decided]);
  const reach = start + 3 * Math.max(happened - start, 100);
  const bands = marks.flatMap((m) => [
    timeout === undefined ? undefined : m.at + timeout,
    minGap === undefined ? undefined : m.at + minGap,
  ]);
  const stop = max([happened, ...bands.filter((b) => b !== undefined && b <= reach)]);
  const span = Math.max(stop - start, 100);
  // Room on the left for the first mark, on the right for the words of the last.
  const pad = span * 0.04;
  const padRight = span * 0.12;
  const x0 = GUTTER;
  const x1 = EDGE;
  const x = (ms: number) => x0 + ((ms - start + pad) / (span + pad + padRight)) * (x1 - x0);
  /** A band's end: at the right edge at most. */
  const xe = (ms: number) => Math.min(x(ms), x1);
  const height = TOP + lanes.length * LANE + LEGEND;
  const laneY = (i: number) => TOP + i * LANE + LANE / 2;
  const out: string[] = [];

  // The time axis: ticks after the first arrival.
  const s = step(span);
  out.push(`<g class="axis"><line x1="${x0}" y1="${TOP - 6}" x2="${x1}" y2="${TOP - 6}" stroke="${COLOR.muted}"/>`);
  for (let k = 0; k * s <= span + padRight; k++) {
    const tx = x(start + k * s);
    out.push(
      `<line x1="${n(tx)}" y1="${TOP - 10}" x2="${n(tx)}" y2="${TOP - 2}" stroke="${COLOR.muted}"/><text x="${n(tx)}" y="${TOP - 14}" text-anchor="middle" font-size="11" fill="${COLOR.muted}">${esc(offset(k * s))}</text>`,
    );
  }
  out.push(
    `<text x="8" y="${TOP - 14}" font-size="11" fill="${COLOR.muted}">${esc(new Date(start).toISOString().slice(11, 23))} UTC</text></g>`,
  );

  const lanesAt = out.length;
  lanes.forEach((lane, i) => {
    const y = laneY(i);
    out.push(
      `<g class="lane" data-lane="${esc(lane.key)}"><title>${esc(lane.title)}</title><line x1="${x0}" y1="${y}" x2="${x1}" y2="${y}" stroke="${COLOR.rule}"/><text x="8" y="${y + 4}" font-size="12" fill="${COLOR.ink}">${esc(lane.label.length > 28 ? `${lane.label.slice(0, 27)}…` : lane.label)}</text>`,
    );
    const sorted = [...lane.marks].sort((a, b) => a.at - b.at);
    // Words drawn after every band of the lane, so no band is drawn over them (the retry window's
    // band runs from the time-out on, right under its words).
    const over: string[] = [];
    sorted.forEach((m, j) => {
      // Bands under the marks: the provider's time-out, the minimum gap before a resend, the retry window.
      if (timeout !== undefined) {
        const end = m.at + timeout;
        const beyond = x(end) > x1;
        // Its end: a tick where it falls, or an arrow at the edge; the words for the lane's first attempt only.
        const tip = beyond
          ? `<path d="M${x1 - 8} ${y + 7}l8 6l-8 6z" fill="${COLOR.timeout}"/>`
          : `<line x1="${n(x(end))}" y1="${y + 6}" x2="${n(x(end))}" y2="${y + 20}" stroke="${COLOR.timeout}" stroke-width="2"/>`;
        const title = `<title>${esc(`#${m.e.journal_id}: the provider's declared time-out, ${duration(timeout)} after the arrival (at ${offset(end - start)})`)}</title>`;
        if (j === 0)
          over.push(
            beyond
              ? `<text class="timeout-words" x="${x1}" y="${y + 27}" text-anchor="end" font-size="10"${HALO} fill="${COLOR.timeout}">${esc(`time-out at ${offset(end - start)}`)}${title}</text>`
              : `<text class="timeout-words" x="${n(Math.min(x(end) + 3, x1 - 44))}" y="${y + 28}" font-size="10"${HALO} fill="${COLOR.timeout}">time-out${title}</text>`,
          );
        out.push(
          `<g class="timeout">${title}<rect x="${n(x(m.at))}" y="${y + 10}" width="${n(xe(end) - x(m.at))}" height="6" fill="${COLOR.timeoutBand}"/>${tip}</g>`,
        );
      }
      const next = sorted[j + 1];
      // Attempts of the transaction the violation does not cite: said between the two it does, no gap drawn (it never happened).
      const between = next === undefined ? 0 : skippedBetween(m, next);
      if (next && between > 0)
        out.push(
          `<path d="M${n(x(m.at))} ${y - 12}h${n(x(next.at) - x(m.at))}" stroke="${COLOR.muted}" stroke-dasharray="1 4"/><text class="skipped" x="${n((x(m.at) + x(next.at)) / 2)}" y="${y - 26}" text-anchor="middle" font-size="10"${HALO} fill="${COLOR.muted}">${esc(`${between} ${between === 1 ? 'attempt' : 'attempts'} between, not cited`)}</text>`,
        );
      else if (next) {
        // The back-off: the gap between two sends, and the wait after the outcome was known.
        const gap = next.at - m.at;
        if (minGap !== undefined)
          out.push(
            `<rect class="min-gap" x="${n(x(m.at))}" y="${y - 22}" width="${n(xe(m.at + minGap) - x(m.at))}" height="6" fill="${COLOR.gapBand}"><title>${esc(`minimum gap before a resend: ${minGap} ms`)}</title></rect>`,
          );
        out.push(
          `<path class="gap" d="M${n(x(m.at))} ${y - 12}h${n(x(next.at) - x(m.at))}" stroke="${COLOR.gap}" stroke-dasharray="2 2"/><text x="${n((x(m.at) + x(next.at)) / 2)}" y="${y - 26}" text-anchor="middle" font-size="10"${HALO} fill="${COLOR.gap}">${esc(`gap ${duration(gap)}`)}<title>${esc(`#${next.e.journal_id} arrived ${duration(gap)} after #${m.e.journal_id}${minGap === undefined ? '' : ` (at least ${minGap} ms)`}`)}</title></text>`,
        );
        if (m.known !== undefined && m.known > m.at && m.known < next.at)
          out.push(
            `<path class="wait" d="M${n(x(m.known))} ${y - 12}h${n(x(next.at) - x(m.known))}" stroke="${COLOR.gap}" stroke-width="3"><title>${esc(`waited ${duration(next.at - m.known)} after the outcome of #${m.e.journal_id} was known (${m.e.outcome ?? '?'}) before #${next.e.journal_id}`)}</title></path>`,
          );
      }
      const w = windowOf(m);
      if (w)
        out.push(
          `<rect class="window" data-window="${w.kind}" x="${n(x(w.from))}" y="${y + 18}" width="${n(xe(w.to) - x(w.from))}" height="6" fill="${COLOR.windowBand}"><title>${esc(w.title)}</title></rect>`,
        );
      out.push(replyMarks(m, y, x, start));
      out.push(arrivalMark(m, y, x, start));
    });
    out.push(...over, '</g>');
  });

  if (decided !== undefined) {
    // The line under the lanes (their words stay readable over it), its word under them.
    const dx = n(x(decided));
    out.splice(
      lanesAt,
      0,
      `<g class="decided"><title>${esc(`the check decided at ${offset(decided - start)}: ${v.message}`)}</title><line x1="${dx}" y1="${TOP - 4}" x2="${dx}" y2="${TOP + lanes.length * LANE}" stroke="${COLOR.decided}" stroke-width="2" stroke-dasharray="6 3"/></g>`,
    );
    out.push(
      `<text x="${dx}" y="${TOP + lanes.length * LANE + 16}" text-anchor="${x(decided) > x1 - 60 ? 'end' : 'middle'}" font-size="11" font-weight="600"${HALO} fill="${COLOR.decided}">decided</text>`,
    );
  }
  out.push(legend(height - 10, o.check === 'ROUNDS_SETTLED' ? 'round age limit' : 'retry window'));
  const label = `Timeline of ${lanes.length === 1 ? 'one lane' : `${lanes.length} lanes`}: ${lanes.map((l) => `${l.title}, ${l.marks.length} ${l.marks.length === 1 ? 'attempt' : 'attempts'}`).join('; ')}`;
  return `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" role="img" aria-label="${esc(label)}" font-family="system-ui, sans-serif"><rect width="${WIDTH}" height="${height}" fill="${COLOR.paper}"/>${out.join('')}</svg>`;
}
