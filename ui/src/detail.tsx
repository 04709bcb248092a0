import { useLayoutEffect, useRef } from 'preact/hooks';
import { clock, pretty, resultDetail, shownCode } from './format.js';
import type { JournalEntry } from './types.js';

/** One callback in full: request and reply headers (keys masked by the journal), bodies, findings; in proxy mode the upstream leg too. */
export function Detail({ entry: e, onClose }: { entry: JournalEntry; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Layout effects run in the same task as the render that shows the panel, so the focus moves
  // and Escape works as soon as the panel is on screen, however busy the machine (a plain effect
  // runs a frame later: a key pressed in between went to the row and was lost).
  useLayoutEffect(() => {
    heading.current?.focus();
  }, [e.id]);
  useLayoutEffect(() => {
    const close = (k: KeyboardEvent) => {
      if (k.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', close);
    return () => document.removeEventListener('keydown', close);
  }, [onClose]);
  const detail = resultDetail(e.request.body);
  return (
    <section class="detail" aria-labelledby="detail-title">
      <div class="panel-head">
        <h3 id="detail-title" tabIndex={-1} ref={heading}>
          #{e.id} {e.event_type ?? 'callback'} {e.user_id ? `of ${e.user_id}` : ''} <ShownCode e={e} />
        </h3>
        <button type="button" onClick={onClose} aria-label="Close the details">
          Close
        </button>
      </div>
      <p class="meta">
        received {clock(e.received_at)}, {e.replied_at ? `answered ${clock(e.replied_at)}` : 'not answered yet'} ({e.duration_ms} ms)
        {e.rule && (
          <>
            {' '}
            · rule <strong>{e.rule.name}</strong> (#{e.rule.index})
          </>
        )}
        {e.reason && <> · {e.reason}</>}
      </p>
      {e.findings.length > 0 && (
        <ul class="findings" aria-label="Findings">
          {e.findings.map((f) => (
            <li class={`sev-${f.severity}`}>
              <strong>{f.code}</strong> ({f.severity}){f.pointer ? <code> {f.pointer}</code> : null}: {f.message}
            </li>
          ))}
        </ul>
      )}
      <div class="exchange">
        <div>
          <h4>Request</h4>
          <p class="mono">
            {e.request.method} {e.request.url}
          </p>
          <Headers headers={e.request.headers} />
          <pre class="body" aria-label="Request body">
            {pretty(e.request.body)}
          </pre>
          {detail && (
            <>
              <h4>result_detail, decoded</h4>
              <pre class="body" aria-label="result_detail decoded">
                {detail.decoded === undefined ? `(does not parse) ${detail.raw}` : pretty(detail.decoded)}
              </pre>
            </>
          )}
        </div>
        <div>
          <h4>Reply</h4>
          <p class="mono">
            HTTP {e.reply.status}
            {e.reply.dropped ? ' — connection dropped, never sent' : ''}
            {e.reply.client_gone ? ' — caller already gone' : ''}
          </p>
          <Headers headers={e.reply.headers} />
          <pre class="body" aria-label="Reply body">
            {pretty(e.reply.body)}
          </pre>
        </div>
      </div>
      {e.upstream && <UpstreamLeg leg={e.upstream} />}
    </section>
  );
}

/** Proxy mode: what went to the operator's wallet, and what it answered (or why nothing). */
function UpstreamLeg({ leg }: { leg: NonNullable<JournalEntry['upstream']> }) {
  return (
    <div class="upstream" aria-label="Upstream wallet">
      <h4>Upstream wallet</h4>
      <p class="mono">
        {!leg.forwarded
          ? `not forwarded to ${leg.url}: a rule answered`
          : `forwarded to ${leg.url} at ${leg.sent_at ? clock(leg.sent_at) : '?'}; ${
              leg.error ? `no reply: ${leg.error}` : `HTTP ${leg.status}`
            } after ${leg.duration_ms} ms`}
      </p>
      {leg.headers && <Headers headers={leg.headers} />}
      {leg.forwarded && !leg.error && (
        <pre class="body" aria-label="Body the upstream sent">
          {pretty(leg.body)}
        </pre>
      )}
    </div>
  );
}

function Headers({ headers }: { headers: Record<string, string> }) {
  const rows = Object.entries(headers);
  if (!rows.length) return <p class="muted">no headers recorded</p>;
  return (
    <table class="headers">
      <tbody>
        {rows.map(([k, v]) => (
          <tr>
            <th scope="row">{k}</th>
            <td class="mono">{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The code the caller got (./format.ts `shownCode`), its title saying what was decided when that differs. */
export function ShownCode({ e }: { e: JournalEntry }) {
  const { text, cls, title } = shownCode(e);
  return (
    <span class={`code code-${cls}`} title={title}>
      {text}
    </span>
  );
}
