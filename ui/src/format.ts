import type { JournalEntry } from './types.js';

/** 14:03:07.123, local time: what a person compares with their provider's logs. */
export function clock(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export const pretty = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

export const amount = (n: number | undefined): string => (n === undefined ? '' : n.toLocaleString('en-US', { maximumFractionDigits: 20 }));

/** A callback's result_detail (a JSON string inside the JSON body), decoded when it parses. */
export function resultDetail(body: unknown): { raw: string; decoded?: unknown } | undefined {
  const raw = (body as { data?: { result_detail?: unknown } } | null)?.data?.result_detail;
  if (typeof raw !== 'string') return undefined;
  try {
    return { raw, decoded: JSON.parse(raw) };
  } catch {
    return { raw };
  }
}

/**
 * The code the caller got, as a row shows it: a status other than 200 is that status; a body
 * replaced by a rule, or relayed as the upstream wallet wrote it, shows its own code (`r0` as
 * written) or that it has none. The title says what was decided when the caller got another. (The
 * spec's codes, R0–R4, are matched here: src/protocol/seed/codes.ts's types reach node:http, which
 * the page's build has not.)
 */
export function shownCode(e: JournalEntry): { text: string; cls: string; title?: string } {
  const { status, body } = e.reply;
  const decided = e.code ? `decided ${e.code}; ` : '';
  if (status !== 200) return { text: `HTTP ${status}`, cls: 'http', title: e.code ? `${decided}the caller got HTTP ${status}` : undefined };
  if (body !== undefined && body !== null && typeof body !== 'object')
    return { text: 'no code', cls: 'http', title: `${decided}the caller got a body with no code: ${String(body).slice(0, 80)}` };
  const got = (body as { code?: unknown } | undefined)?.code;
  if (got === undefined || got === e.code) {
    // The reply said it, but the caller never read it: the title says so (the flags column too).
    const unread = e.reply.dropped
      ? 'the reply was dropped: the caller got none'
      : e.reply.client_gone
        ? 'the caller had gone: it never read the reply'
        : undefined;
    return { text: e.code ?? `HTTP ${status}`, cls: e.code ?? 'http', title: unread && `${decided}${unread}` };
  }
  const text = typeof got === 'string' ? got : JSON.stringify(got);
  return { text, cls: /^R[0-4]$/.test(text) ? text : 'http', title: `${decided}the caller got ${text}` };
}

export interface Flags {
  dropped: boolean;
  late: boolean;
  gone: boolean;
  replayed: boolean;
  inFlight: boolean;
}

/** Late: the reply took longer than the provider's declared time-out (grading.client_timeout_s, 10 s). */
export function flagsOf(e: JournalEntry, clientTimeoutS: number): Flags {
  return {
    dropped: e.reply.dropped,
    late: e.duration_ms > clientTimeoutS * 1000,
    gone: e.reply.client_gone === true,
    replayed: e.replayed,
    inFlight: e.replied_at === undefined,
  };
}

/** Calls `f` at most once per `ms`, and once more after the last request. */
export function throttle(f: () => void, ms: number): () => void {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (timer) return;
    const wait = Math.max(0, last + ms - Date.now());
    timer = setTimeout(() => {
      timer = undefined;
      last = Date.now();
      f();
    }, wait);
  };
}
