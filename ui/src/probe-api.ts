// Probe as a service as the probe page uses it (hosted mode: /t/<id>/probe…, docs/hosted.md).
import { api, apiText, authHeaders, TENANT_BASE, Unauthorized } from './api.js';
import { readEvents } from './sse.js';

/** One check of a run: the probe's own as each finishes, then the wallet checks (WALLET_…) at the end. */
export interface CheckLine {
  name: string;
  status: 'pass' | 'fail' | 'skip' | 'warn';
  side?: 'probe' | 'wallet';
  duration_ms?: number;
  /** What went wrong (one line each), or why it was not judged. */
  message?: string;
  /** What to change in the wallet. */
  fix?: string;
}

export type Verdict = 'PASS' | 'FAIL' | 'NOT_CHECKED';

/** GET /t/<id>/probe/<run>: one run as the server shows it. */
export interface ProbeRun {
  run: string;
  state: 'running' | 'done' | 'failed';
  started_at: string;
  ended_at?: string;
  target: { url: string; user: string; currency: string };
  verdict?: Verdict;
  message?: string;
  checks: CheckLine[];
}

/** POST /t/<id>/probe's body. */
export interface ProbeStart {
  url: string;
  api_id: string;
  api_key: string;
  user: string;
  currency?: string;
  decimals?: number;
}

const runPath = (run: string) => `/probe/${encodeURIComponent(run)}`;

export const startRun = (body: ProbeStart) => api<{ run: string }>('POST', '/probe', body);
/** The runs kept, newest last. */
export const listRuns = () => api<ProbeRun[]>('GET', '/probe');
export const getRun = (run: string) => api<ProbeRun>('GET', runPath(run));

export interface RunHandlers {
  /** A check done (from the event stream). */
  check: (line: CheckLine) => void;
  /** The run as it stands (read again when the stream could not be held). */
  progress: (run: ProbeRun) => void;
  /** The run ended: its verdict and every check. */
  end: (run: ProbeRun) => void;
}

/**
 * Follows a run until it ends: its event stream (those done first, then each as it comes, then the
 * end); when the stream cannot be opened or drops before the end (a tenant's streams all taken,
 * a proxy), the run is read again every second instead. Returns the function that stops.
 */
export function followRun(run: string, handlers: RunHandlers): () => void {
  const abort = new AbortController();
  void (async () => {
    try {
      const res = await fetch(`${TENANT_BASE}${runPath(run)}/events`, {
        headers: { accept: 'text/event-stream', ...authHeaders() },
        signal: abort.signal,
        cache: 'no-store',
      });
      if (res.ok && res.body) {
        let ended = false;
        await readEvents(res.body, (event, data) => {
          if (event === 'check') handlers.check(JSON.parse(data) as CheckLine);
          else if (event === 'end') {
            ended = true;
            handlers.end(JSON.parse(data) as ProbeRun);
          }
        });
        if (ended) return;
      }
    } catch {
      if (abort.signal.aborted) return;
    }
    while (!abort.signal.aborted) {
      try {
        const now = await getRun(run);
        if (abort.signal.aborted) return;
        if (now.state !== 'running') return handlers.end(now);
        handlers.progress(now);
      } catch (e) {
        if (e instanceof Unauthorized) return; // the page asks for the token
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return () => abort.abort();
}

/** The report's forms, as saved. */
export const REPORTS = {
  signed: { label: 'Signed report', query: '?signed=true', file: 'signed.json', type: 'application/json' },
  json: { label: 'JSON', query: '', file: 'json', type: 'application/json' },
  html: { label: 'HTML', query: '?format=html', file: 'html', type: 'text/html' },
  junit: { label: 'JUnit XML', query: '?format=junit', file: 'junit.xml', type: 'application/xml' },
} as const;
export type ReportForm = keyof typeof REPORTS;

/** The tenant and the result a signed report's statement names (read from its envelope, not verified here). */
export interface SignedFor {
  tenantId?: string;
  tenantName?: string;
  result?: string;
}

/** Fetches a finished run's report with the token and saves it as a file; a signed one also says whom it names. */
export async function saveReport(run: string, form: ReportForm): Promise<{ file: string; signedFor?: SignedFor }> {
  const { query, file: ending, type } = REPORTS[form];
  const { text } = await apiText(`${runPath(run)}/report${query}`);
  const file = `probe-${run}.${ending}`;
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = file;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own copy once started; the object URL is freed a little later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { file, signedFor: form === 'signed' ? signedFor(text) : undefined };
}

function signedFor(text: string): SignedFor | undefined {
  try {
    const { envelope } = JSON.parse(text) as { envelope: { payload: string } };
    const bytes = Uint8Array.from(atob(envelope.payload.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const statement = JSON.parse(new TextDecoder().decode(bytes)) as {
      subject?: { annotations?: Record<string, unknown> }[];
      predicate?: { result?: string };
    };
    const a = statement.subject?.[0]?.annotations ?? {};
    return { tenantId: str(a.tenant_id), tenantName: str(a.tenant_name), result: statement.predicate?.result };
  } catch {
    return undefined;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
