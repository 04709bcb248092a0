import { sidesOf } from '../../src/grading/sides.js';
import { JournalLinks } from './journal-links.js';
import { count } from '../../src/text/plural.js';
import { failingWarnings, sessionLine, timingPhrases, WARNING_MEANS, warningsLine } from '../../src/grading/timing-text.js';
import type { Picture } from './pictures.js';
import type { Check, CheckStatus, Report } from './types.js';

export type ReportState = { kind: 'loading' } | { kind: 'missing' } | { kind: 'error'; message: string } | { kind: 'ok'; report: Report };

const LABEL: Record<CheckStatus, string> = { pass: 'pass', fail: 'fail', pending: 'pending', not_exercised: 'not exercised' };
const ORDER: CheckStatus[] = ['fail', 'pending', 'pass', 'not_exercised'];

/** The counts per status; failing warnings apart from failing errors, in the warning colour. */
function Summary({ report: r }: { report: Report }) {
  const warnings = failingWarnings(r);
  return (
    <span class="summary">
      {ORDER.map((s) =>
        s === 'fail' ? (
          <>
            <span class="status status-fail">{(r.summary.fail ?? 0) - warnings} fail</span>
            {warnings > 0 && (
              <span class="status sev-warning" title={WARNING_MEANS} data-summary="warning">
                {count(warnings, { one: 'warning fails', other: 'warnings fail' })}
              </span>
            )}
          </>
        ) : (
          <span class={`status status-${s}`}>
            {r.summary[s] ?? 0} {LABEL[s]}
          </span>
        ),
      )}
    </span>
  );
}

/** The certification checklist of GET /admin/report, with evidence rows linking to the callbacks. */
export function Checklist({
  state,
  onShow,
  onPicture,
}: {
  state: ReportState;
  onShow: (journalId: number) => void;
  onPicture: (p: Picture) => void;
}) {
  return (
    <section class="panel checklist" aria-labelledby="checklist-title">
      <div class="panel-head">
        <h2 id="checklist-title">Certification checklist</h2>
        {state.kind === 'ok' && <Summary report={state.report} />}
      </div>
      {state.kind === 'ok' && failingWarnings(state.report) > 0 && (
        <p class="muted" data-warnings={failingWarnings(state.report)}>
          {warningsLine(state.report)}.
        </p>
      )}
      {state.kind === 'loading' && <p class="muted">Reading the report…</p>}
      {state.kind === 'missing' && (
        <p class="muted" data-report="missing">
          certification report not available in this build
        </p>
      )}
      {state.kind === 'error' && <p class="field-error">{state.message}</p>}
      {state.kind === 'ok' && (
        <>
          <p class="muted session" data-session={state.report.session.id}>
            {sessionLine(state.report)}
          </p>
          <p class="muted timing" aria-label="Timing profile">
            {timingPhrases(state.report).join(' · ')}
            {state.report.timing.retry_gap_ms?.buckets && (
              <>
                {' '}
                <button type="button" class="small show-histogram" onClick={() => onPicture({ kind: 'timing' })}>
                  Retry gaps histogram
                </button>
              </>
            )}
          </p>
          {sidesOf(state.report).map(({ side, heading, checks }, _i, sides) => (
            <>
              {sides.length > 1 && (
                <h3 class="checks-side" data-side={side}>
                  {heading}
                </h3>
              )}
              <ul class="checks" data-side={side}>
                {failingFirst(checks).map((c) => (
                  <CheckRow check={c} onShow={onShow} onPicture={onPicture} />
                ))}
              </ul>
            </>
          ))}
          {(state.report.open_rounds?.length ?? 0) > 0 && (
            <p class="muted">Open rounds: {state.report.open_rounds!.map((r) => `${r.user_id}/${r.game_no} (${r.age_s} s)`).join(', ')}</p>
          )}
        </>
      )}
    </section>
  );
}

/** Failing checks first, then pending ones, the rest in the report's order: what needs doing is seen first. */
const RANK: Partial<Record<CheckStatus, number>> = { fail: 0, pending: 1 };
const failingFirst = (checks: Check[]) => [...checks].sort((a, b) => (RANK[a.status] ?? 2) - (RANK[b.status] ?? 2));

function CheckRow({ check: c, onShow, onPicture }: { check: Check; onShow: (id: number) => void; onPicture: (p: Picture) => void }) {
  return (
    <li class={`check-item status-${c.status}`} data-check={c.id} data-status={c.status}>
      <details open={c.status === 'fail'}>
        <summary>
          <span class={`status status-${c.status}`}>{LABEL[c.status]}</span>
          <span class="check-title">{c.title}</span>
          <code class="check-id">{c.id}</code>
          {c.severity === 'warning' && <span class="sev-warning finding">warning</span>}
          <span class="muted"> · exercised {c.exercised}×</span>
        </summary>
        {c.violations.length === 0 ? (
          <p class="muted">No violation.</p>
        ) : (
          <>
            <button type="button" class="small show-timelines" onClick={() => onPicture({ kind: 'check', id: c.id })}>
              Show as timelines
            </button>
            <ul class="violations">
              {c.violations.map((v) => (
                <li>
                  {v.message}
                  {v.user_id && <span class="muted"> · {v.user_id}</span>}
                  {v.transaction_id && <span class="muted mono"> · {v.transaction_id}</span>}
                  <JournalLinks ids={v.journal_ids ?? []} onShow={onShow} />
                </li>
              ))}
            </ul>
          </>
        )}
      </details>
    </li>
  );
}
