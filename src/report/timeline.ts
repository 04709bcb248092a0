import { esc } from './html.js';
import { COLOR } from './palette.js';
import type { ReportEvidence, ReportThresholds, ReportViolation } from '../protocol/types.generated.js';

// A violation's evidence drawn as a timeline: one inline SVG string (no script, no style attribute,
// no external asset), drawn the same by the HTML report, the dashboard and probe's page. One lane per
// transaction_id (and per leg in proxy mode), a mark per attempt's arrival, its reply drawn by what
// became of it, the provider's time-out, the minimum gap and the gaps between attempts, the retry
// window when it ran out, and the moment the check decided. Every mark has its exchange as a tooltip
// (an SVG <title>). Colours are presentation attributes from the palette (./palette.ts, tested for
// contrast); the picture is 1,000 units wide and scales down with its container.

/** The picture's width in user units (it fits a 1,024 px page). */
export const WIDTH = 1000;
const GUTTER = 190; // lane labels
const RIGHT = 20;
const TOP = 34; // the time axis
const LANE = 56;
const LEGEND = 34;
const TOOLTIP_CHARS = 600;

export interface TimelineOptions {
  /** The thresholds graded with (the report's): the time-out, the minimum gap and the retry window are drawn from them. */
  thresholds?: Pick<ReportThresholds, 'client_timeout_s' | 'min_retry_gap_ms' | 'retry_window_s'>;
  /**
   * Proxy mode: an upstream leg was relayed to the provider, which gets a lane of its own (the
   * callback as wallet-sim answered it: forwarded at once, the upstream's answer relayed as it came,
   * its connection closed when the upstream gave none).
   */
  relayed?: boolean;
}

/** One lane's marks: an attempt (arrival) and what became of its reply. */
interface Mark {
  e: ReportEvidence;
  at: number;
  end?: number;
  closed?: number;
  known?: number;
  /** The fate drawn: the evidence's own, or (a relayed provider lane) the one the upstream's answer made. */
  fate: NonNullable<ReportEvidence['fate']>;
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

/** "+1.25 s", "+40 ms": a time after the picture's start. */
export function offset(ms: number): string {
  const a = Math.abs(ms);
  const text = a < 1000 ? `${Math.round(a)} ms` : `${(a / 1000).toFixed(a < 10_000 ? 2 : 1).replace(/\.?0+$/, '')} s`;
  return `${ms < 0 ? '−' : '+'}${text}`;
}

const duration = (ms: number) => offset(ms).slice(1);
const clip = (s: string) => (s.length <= TOOLTIP_CHARS ? s : `${s.slice(0, TOOLTIP_CHARS)}…`);
const n = (v: number) => (Math.round(v * 10) / 10).toString();

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
  for (const e of v.evidence ?? []) {
    const leg = e.leg ?? 'provider';
    // The provider's side of a relayed callback: its connection was closed when the upstream gave no reply.
    if (leg === 'upstream' && relayed) add('provider', e, e.fate === 'no_reply' ? 'dropped' : (e.fate ?? 'written'));
    add(leg, e, e.fate ?? (e.replied_at ? 'written' : 'unanswered'));
  }
  const all = [...lanes.values()];
  // Provider lanes above upstream lanes, each group in order of first arrival.
  return all
    .sort((a, b) => (a.leg === b.leg ? a.marks[0]!.at - b.marks[0]!.at : a.leg === 'provider' ? -1 : 1))
    .filter((l) => l.marks.length);
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
  const timeout = t ? t.client_timeout_s * 1000 : undefined;
  const window = t ? t.retry_window_s * 1000 : undefined;
  const decided = time(v.decided_at);
  const marks = lanes.flatMap((l) => l.marks);
  const start = Math.min(...marks.map((m) => m.at));
  // The retry window is drawn when it ran out before the check decided (that is what it judged).
  const windowOf = (m: Mark) =>
    window !== undefined &&
    m.known !== undefined &&
    (m.fate !== 'written' || m.e.outcome === 'lost') &&
    decided !== undefined &&
    decided >= m.known + window - 1
      ? m.known
      : undefined;
  const ends = marks.flatMap((m) => {
    const w = windowOf(m);
    return [m.at, m.end, m.closed, m.known, timeout === undefined ? undefined : m.at + timeout, w === undefined ? undefined : w + window!];
  });
  const stop = Math.max(...[...ends, decided].filter((x): x is number => x !== undefined && Number.isFinite(x)));
  const span = Math.max(stop - start, 100);
  const pad = span * 0.04;
  const x0 = GUTTER;
  const x1 = WIDTH - RIGHT;
  const x = (ms: number) => x0 + ((ms - start + pad) / (span + 2 * pad)) * (x1 - x0);
  const height = TOP + lanes.length * LANE + LEGEND;
  const laneY = (i: number) => TOP + i * LANE + LANE / 2;
  const out: string[] = [];

  // The time axis: ticks after the first arrival.
  const s = step(span);
  out.push(`<g class="axis"><line x1="${x0}" y1="${TOP - 6}" x2="${x1}" y2="${TOP - 6}" stroke="${COLOR.muted}"/>`);
  for (let k = 0; k * s <= span + pad; k++) {
    const tx = x(start + k * s);
    out.push(
      `<line x1="${n(tx)}" y1="${TOP - 10}" x2="${n(tx)}" y2="${TOP - 2}" stroke="${COLOR.muted}"/><text x="${n(tx)}" y="${TOP - 14}" text-anchor="middle" font-size="11" fill="${COLOR.muted}">${esc(offset(k * s))}</text>`,
    );
  }
  out.push(
    `<text x="8" y="${TOP - 14}" font-size="11" fill="${COLOR.muted}">${esc(new Date(start).toISOString().slice(11, 23))} UTC</text></g>`,
  );

  lanes.forEach((lane, i) => {
    const y = laneY(i);
    out.push(
      `<g class="lane" data-lane="${esc(lane.key)}"><title>${esc(lane.title)}</title><line x1="${x0}" y1="${y}" x2="${x1}" y2="${y}" stroke="${COLOR.rule}"/><text x="8" y="${y + 4}" font-size="12" fill="${COLOR.ink}">${esc(lane.label.length > 28 ? `${lane.label.slice(0, 27)}…` : lane.label)}</text>`,
    );
    const sorted = [...lane.marks].sort((a, b) => a.at - b.at);
    sorted.forEach((m, j) => {
      // Bands under the marks: the provider's time-out, the minimum gap before a resend, the retry window.
      if (timeout !== undefined)
        out.push(
          `<rect class="timeout" x="${n(x(m.at))}" y="${y + 10}" width="${n(x(m.at + timeout) - x(m.at))}" height="6" fill="${COLOR.timeoutBand}"><title>${esc(`#${m.e.journal_id}: the provider's declared time-out, ${duration(timeout)} after the arrival (until ${offset(m.at + timeout - start)})`)}</title></rect><line x1="${n(x(m.at + timeout))}" y1="${y + 6}" x2="${n(x(m.at + timeout))}" y2="${y + 20}" stroke="${COLOR.timeout}" stroke-width="2"/><text x="${n(x(m.at + timeout) + 3)}" y="${y + 26}" font-size="10" fill="${COLOR.timeout}">time-out</text>`,
        );
      const next = sorted[j + 1];
      if (next && t) {
        const gap = next.at - m.at;
        out.push(
          `<rect class="min-gap" x="${n(x(m.at))}" y="${y - 22}" width="${n(x(m.at + t.min_retry_gap_ms) - x(m.at))}" height="6" fill="${COLOR.gapBand}"><title>${esc(`minimum gap before a resend: ${t.min_retry_gap_ms} ms`)}</title></rect><path class="gap" d="M${n(x(m.at))} ${y - 12}h${n(x(next.at) - x(m.at))}" stroke="${COLOR.gap}" stroke-dasharray="2 2"/><text x="${n((x(m.at) + x(next.at)) / 2)}" y="${y - 26}" text-anchor="middle" font-size="10" fill="${COLOR.gap}">${esc(`gap ${duration(gap)}`)}<title>${esc(`#${next.e.journal_id} arrived ${duration(gap)} after #${m.e.journal_id} (at least ${t.min_retry_gap_ms} ms)`)}</title></text>`,
        );
      }
      const w = windowOf(m);
      if (w !== undefined)
        out.push(
          `<rect class="window" x="${n(x(w))}" y="${y + 18}" width="${n(x(w + window!) - x(w))}" height="6" fill="${COLOR.windowBand}"><title>${esc(`the retry window: ${duration(window!)} from when the provider knew the reply was lost, to resend #${m.e.journal_id}`)}</title></rect>`,
        );
      out.push(replyMarks(m, y, x, start));
      out.push(arrivalMark(m, y, x, start));
    });
    out.push('</g>');
  });

  if (decided !== undefined) {
    const dx = n(x(decided));
    out.push(
      `<g class="decided"><title>${esc(`the check decided at ${offset(decided - start)}: ${v.message}`)}</title><line x1="${dx}" y1="${TOP - 4}" x2="${dx}" y2="${TOP + lanes.length * LANE}" stroke="${COLOR.decided}" stroke-width="2" stroke-dasharray="6 3"/><text x="${dx}" y="${TOP + lanes.length * LANE + 12}" text-anchor="${x(decided) > x1 - 60 ? 'end' : 'middle'}" font-size="11" font-weight="600" fill="${COLOR.decided}">decided</text></g>`,
    );
  }
  out.push(legend(height - 10));
  const label = `Timeline of ${lanes.length === 1 ? 'one lane' : `${lanes.length} lanes`}: ${lanes.map((l) => `${l.title}, ${l.marks.length} ${l.marks.length === 1 ? 'attempt' : 'attempts'}`).join('; ')}`;
  return `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" role="img" aria-label="${esc(label)}" font-family="system-ui, sans-serif"><rect width="${WIDTH}" height="${height}" fill="${COLOR.paper}"/>${out.join('')}</svg>`;
}

/** The arrival: a filled circle, its request in the tooltip. */
function arrivalMark(m: Mark, y: number, x: (ms: number) => number, start: number): string {
  const e = m.e;
  const what = `#${e.journal_id} ${e.event_type ?? 'callback'} ${e.transaction_id ?? ''}`.trim();
  const tip = `${what} ${e.leg === 'upstream' ? 'sent to the wallet' : 'arrived'} at ${e.received_at} (${offset(m.at - start)})${e.request ? `\nrequest ${clip(e.request)}` : ''}`;
  return `<circle class="mark arrival" data-journal-id="${e.journal_id}" cx="${n(x(m.at))}" cy="${y}" r="6" fill="${COLOR.arrival}"><title>${esc(tip)}</title></circle>`;
}

/** The reply, drawn by its fate: written (a square), held (an amber span), forced (a diamond and its code), dropped (a cross). */
function replyMarks(m: Mark, y: number, x: (ms: number) => number, start: number): string {
  const e = m.e;
  const out: string[] = [];
  const facts: string[] = [];
  if (e.delay_ms) facts.push(`held ${duration(e.delay_ms)} by a scenario rule`);
  if (e.forced) facts.push(`${e.forced} forced by a scenario rule`);
  if (e.outcome) facts.push(`the provider learnt: ${e.outcome}${e.known_at ? ` at ${offset((m.known ?? m.at) - start)}` : ''}`);
  const replyText = e.reply ? `\nreply ${clip(e.reply)}` : '';
  const tip = (head: string) => esc(`#${e.journal_id}: ${head}${facts.length ? `; ${facts.join('; ')}` : ''}${replyText}`);
  const ax = x(m.at);
  const cross = (cx: number, color: string, cls: string, title: string, word: string) =>
    `<g class="mark ${cls}" data-journal-id="${e.journal_id}"><title>${title}</title><path d="M${n(cx - 6)} ${y - 6}l12 12M${n(cx - 6)} ${y + 6}l12 -12" stroke="${color}" stroke-width="3"/><text x="${n(cx + 9)}" y="${y - 8}" font-size="11" fill="${color}">${word}</text></g>`;
  if (m.closed !== undefined && (m.end === undefined || m.closed <= m.end)) {
    out.push(
      `<line x1="${n(ax)}" y1="${y}" x2="${n(x(m.closed))}" y2="${y}" stroke="${COLOR.muted}" stroke-width="2" stroke-dasharray="4 3"/>`,
    );
    out.push(
      cross(
        x(m.closed),
        COLOR.muted,
        'caller-gone',
        tip(`the caller closed the connection at ${offset(m.closed - start)}, before the reply`),
        'caller gone',
      ),
    );
  }
  if (m.end === undefined) {
    if (m.closed === undefined) {
      // Still being answered when the check decided: an open line to the right.
      out.push(
        `<g class="mark unanswered" data-journal-id="${e.journal_id}"><title>${tip('not answered yet when the check decided')}</title><line x1="${n(ax)}" y1="${y}" x2="${n(ax + 40)}" y2="${y}" stroke="${COLOR.muted}" stroke-width="2" stroke-dasharray="2 3"/><text x="${n(ax + 44)}" y="${y + 16}" font-size="11" fill="${COLOR.muted}">unanswered</text></g>`,
      );
    }
    return out.join('');
  }
  const ex = x(m.end);
  if (m.fate === 'dropped' || m.fate === 'no_reply') {
    out.push(`<line x1="${n(ax)}" y1="${y}" x2="${n(ex)}" y2="${y}" stroke="${COLOR.dropped}" stroke-width="2" stroke-dasharray="4 3"/>`);
    const word = m.fate === 'dropped' ? 'dropped' : 'no reply';
    const head =
      m.fate === 'dropped'
        ? `the connection was closed at ${offset(m.end - start)} without a reply`
        : `no reply from the wallet (given up at ${offset(m.end - start)})`;
    out.push(cross(ex, COLOR.dropped, m.fate === 'dropped' ? 'dropped' : 'no-reply', tip(head), word));
    return out.join('');
  }
  const held = e.delay_ms ? Math.min(e.delay_ms, m.end - m.at) : 0;
  if (held)
    out.push(
      `<rect class="held" x="${n(x(m.end - held))}" y="${y - 4}" width="${n(ex - x(m.end - held))}" height="8" fill="${COLOR.heldBand}" stroke="${COLOR.held}"/>`,
    );
  out.push(`<line x1="${n(ax)}" y1="${y}" x2="${n(ex)}" y2="${y}" stroke="${COLOR.written}" stroke-width="2"/>`);
  const head = `reply ${m.fate === 'caller_gone' ? 'written after the caller had gone' : 'written'} at ${offset(m.end - start)} (${duration(m.end - m.at)} after the arrival)`;
  const cls = e.forced ? 'forced' : held ? 'delayed' : 'written';
  const color = e.forced ? COLOR.forced : held ? COLOR.held : COLOR.written;
  const shape = e.forced
    ? `<path d="M${n(ex)} ${y - 8}l8 8l-8 8l-8 -8z" fill="${color}"/>`
    : `<rect x="${n(ex - 6)}" y="${y - 6}" width="12" height="12" fill="${color}"/>`;
  const word = [e.forced, held ? `held ${duration(held)}` : ''].filter(Boolean).join(', ');
  out.push(
    `<g class="mark reply ${cls}" data-journal-id="${e.journal_id}" data-fate="${esc(m.fate)}"><title>${tip(head)}</title>${shape}${word ? `<text x="${n(ex + 10)}" y="${y + 18}" font-size="11" fill="${color}">${esc(word)}</text>` : ''}</g>`,
  );
  return out.join('');
}

/** What the marks mean, along the bottom. */
function legend(y: number): string {
  const items: [string, string][] = [
    [`<circle cx="6" cy="-4" r="5" fill="${COLOR.arrival}"/>`, 'arrival'],
    [`<rect x="1" y="-9" width="10" height="10" fill="${COLOR.written}"/>`, 'reply written'],
    [`<rect x="1" y="-9" width="10" height="10" fill="${COLOR.held}"/>`, 'held by a rule'],
    [`<path d="M6 -10l6 6l-6 6l-6 -6z" fill="${COLOR.forced}"/>`, 'code forced'],
    [`<path d="M1 -9l10 10M1 1l10 -10" stroke="${COLOR.dropped}" stroke-width="3"/>`, 'dropped / no reply'],
    [
      `<rect x="0" y="-7" width="14" height="6" fill="${COLOR.timeoutBand}"/><line x1="14" y1="-10" x2="14" y2="2" stroke="${COLOR.timeout}" stroke-width="2"/>`,
      'time-out',
    ],
    [`<rect x="0" y="-7" width="14" height="6" fill="${COLOR.gapBand}"/>`, 'minimum gap'],
    [`<rect x="0" y="-7" width="14" height="6" fill="${COLOR.windowBand}"/>`, 'retry window'],
    [`<line x1="6" y1="-12" x2="6" y2="3" stroke="${COLOR.decided}" stroke-width="2" stroke-dasharray="4 2"/>`, 'decided'],
  ];
  let at = 8;
  const parts = items.map(([shape, word]) => {
    const g = `<g transform="translate(${at} ${y})">${shape}<text x="18" y="0" font-size="11" fill="${COLOR.ink}">${word}</text></g>`;
    at += 26 + word.length * 6.2;
    return g;
  });
  return `<g class="legend">${parts.join('')}</g>`;
}
