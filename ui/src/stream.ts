// GET /admin/events read with fetch() (not EventSource), so the Authorization header of
// --admin-token goes with it. Reconnects after a drop; the caller fills the gap from the journal.
import { authHeaders, Unauthorized, TENANT_BASE } from './api.js';
import { readEvents } from './sse.js';

export type StreamState = 'connecting' | 'live' | 'down';

export interface StreamHandlers {
  /** Every `data:` line of a callback, parsed. */
  entry: (entry: unknown) => void;
  /**
   * The session's verdict changed (`event: grading`): time to read the report. A `session` other
   * than the last one began with a reset or a cleared journal, whoever asked for it.
   */
  grading: (info: { session?: string }) => void;
  /** Another scenario is active (`event: scenario`): PUT /admin/scenario from anywhere, start --watch. */
  scenario: () => void;
  /** Connected (again): a good moment to read what the journal has. */
  open: () => void;
  state: (state: StreamState, why?: string) => void;
  unauthorized: () => void;
}

/** Follows the stream until `stop()`. */
export function follow(handlers: StreamHandlers): { stop: () => void } {
  const abort = new AbortController();
  let retryMs = 500;
  void (async () => {
    while (!abort.signal.aborted) {
      handlers.state('connecting');
      try {
        await readOnce(handlers, abort.signal, () => {
          retryMs = 500;
        });
        handlers.state('down', 'the simulator closed the stream');
      } catch (e) {
        if (abort.signal.aborted) return;
        if (e instanceof Unauthorized) return handlers.unauthorized();
        handlers.state('down', (e as Error).message);
      }
      await new Promise((r) => setTimeout(r, retryMs));
      retryMs = Math.min(retryMs * 2, 10_000);
    }
  })();
  return { stop: () => abort.abort() };
}

async function readOnce(handlers: StreamHandlers, signal: AbortSignal, connected: () => void): Promise<void> {
  const res = await fetch(`${TENANT_BASE}/admin/events?grading=true`, {
    headers: { accept: 'text/event-stream', ...authHeaders() },
    signal,
    cache: 'no-store',
  });
  if (res.status === 401) throw new Unauthorized('the event stream wants the admin token');
  // The server's reason, as it gave it (LISTENERS_FULL names the limit and who to ask), not only the status.
  if (!res.ok || !res.body) throw new Error(await refusal(res));
  connected();
  handlers.state('live');
  handlers.open();
  await readEvents(res.body, (event, data) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return; // not ours
    }
    if (event === 'grading') return handlers.grading((parsed ?? {}) as { session?: string });
    if (event === 'scenario') return handlers.scenario();
    handlers.entry(parsed);
  });
}

/** Why the stream was refused: the API's error code and message, or the status of a reply without them. */
async function refusal(res: Response): Promise<string> {
  const route = `GET ${TENANT_BASE}/admin/events`;
  const text = await res.text().catch(() => '');
  try {
    const { error, message } = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof message === 'string') return typeof error === 'string' ? `${error}: ${message}` : message;
  } catch {
    /* not the API's error body: a proxy's page */
  }
  return `${route}: HTTP ${res.status}`;
}
