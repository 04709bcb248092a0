import { esc } from './html.js';
import { COLOR, HALO } from './palette.js';
import type { ReportEvidence } from '../protocol/types.generated.js';

// The marks of a timeline (./timeline.ts): an attempt's arrival, its reply drawn by its fate, the
// legend; and the words of times.

const TOOLTIP_CHARS = 600;
/** The picture's width in user units (it fits a 1,024 px page), and where its time axis ends. */
export const WIDTH = 1000;
export const EDGE = WIDTH - 20;

/** Where the lanes begin (their labels are on the left of it). */
export const GUTTER = 190;

/**
 * A mark's word, `dx` after it; before it (anchored at its end) where it would run past the edge,
 * or where `before` is preferred and there is room (a caller gone just before the resend it made).
 */
function words(at: number, dx: number, y: number, text: string, color: string, prefer: 'before' | 'after' = 'after'): string {
  const width = dx + text.length * 6.5;
  const before = at + width > EDGE || (prefer === 'before' && at - width > GUTTER);
  return `<text x="${n(before ? at - dx : at + dx)}" y="${y}"${before ? ' text-anchor="end"' : ''} font-size="11"${HALO} fill="${color}">${esc(text)}</text>`;
}

/** One lane's marks: an attempt (arrival) and what became of its reply. */
export interface Mark {
  e: ReportEvidence;
  at: number;
  end?: number;
  closed?: number;
  known?: number;
  /** The fate drawn: the evidence's own, or (a relayed provider lane) the one the upstream's answer made. */
  fate: NonNullable<ReportEvidence['fate']>;
}

/** "+1.25 s", "+40 ms": a time after the picture's start. */
export function offset(ms: number): string {
  const a = Math.abs(ms);
  const text = a < 1000 ? `${Math.round(a)} ms` : `${(a / 1000).toFixed(a < 10_000 ? 2 : 1).replace(/\.?0+$/, '')} s`;
  return `${ms < 0 ? '−' : '+'}${text}`;
}

export const duration = (ms: number) => offset(ms).slice(1);
const clip = (s: string) => (s.length <= TOOLTIP_CHARS ? s : `${s.slice(0, TOOLTIP_CHARS)}…`);
export const n = (v: number) => (Math.round(v * 10) / 10).toString();

/** The arrival: a filled circle, its request in the tooltip. */
export function arrivalMark(m: Mark, y: number, x: (ms: number) => number, start: number): string {
  const e = m.e;
  const what = `#${e.journal_id} ${e.event_type ?? 'callback'} ${e.transaction_id ?? ''}`.trim();
  const tip = `${what} ${e.leg === 'upstream' ? 'sent to the wallet' : 'arrived'} at ${e.received_at} (${offset(m.at - start)})${e.request ? `\nrequest ${clip(e.request)}` : ''}`;
  return `<circle class="mark arrival" data-journal-id="${e.journal_id}" cx="${n(x(m.at))}" cy="${y}" r="6" fill="${COLOR.arrival}"><title>${esc(tip)}</title></circle>`;
}

/** The reply, drawn by its fate: written (a square), held (an amber span), forced (a diamond and its code), dropped (a cross). */
export function replyMarks(m: Mark, y: number, x: (ms: number) => number, start: number): string {
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
    `<g class="mark ${cls}" data-journal-id="${e.journal_id}"><title>${title}</title><path d="M${n(cx - 6)} ${y - 6}l12 12M${n(cx - 6)} ${y + 6}l12 -12" stroke="${color}" stroke-width="3"/>${words(cx, 9, y - 8, word, color, cls === 'caller-gone' ? 'before' : 'after')}</g>`;
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
        `<g class="mark unanswered" data-journal-id="${e.journal_id}"><title>${tip('not answered yet when the check decided')}</title><line x1="${n(ax)}" y1="${y}" x2="${n(Math.min(ax + 40, EDGE))}" y2="${y}" stroke="${COLOR.muted}" stroke-width="2" stroke-dasharray="2 3"/>${words(ax, 9, y - 8, 'unanswered', COLOR.muted)}</g>`,
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
  // The code read, beside the reply: a forced one's, or one the wallet chose other than R0 (a refusal
  // drawn as a bare square would read as an R0, and a fast reply's square hides under the arrival).
  const chosen = !e.forced && e.outcome !== undefined && /^R[1-9]\d*$/.test(e.outcome) ? e.outcome : '';
  const word = [e.forced ?? chosen, held ? `held ${duration(held)}` : ''].filter(Boolean).join(', ');
  out.push(
    `<g class="mark reply ${cls}" data-journal-id="${e.journal_id}" data-fate="${esc(m.fate)}"><title>${tip(head)}</title>${shape}${word ? words(ex, 10, y + 18, word, color) : ''}</g>`,
  );
  return out.join('');
}

/** What the marks mean, along the bottom; `window`: what the window band is in this picture. */
export function legend(y: number, window = 'retry window'): string {
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
    [`<rect x="0" y="-7" width="14" height="6" fill="${COLOR.windowBand}"/>`, window],
    [`<line x1="6" y1="-12" x2="6" y2="3" stroke="${COLOR.decided}" stroke-width="2" stroke-dasharray="4 2"/>`, 'decided'],
  ];
  let at = 8;
  const parts = items.map(([shape, word]) => {
    const g = `<g transform="translate(${at} ${y})">${shape}<text x="18" y="0" font-size="11" fill="${COLOR.ink}">${word}</text></g>`;
    at += 28 + word.length * 6.6;
    return g;
  });
  return `<g class="legend">${parts.join('')}</g>`;
}
