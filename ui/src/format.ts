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
