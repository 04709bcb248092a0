import { useState } from 'preact/hooks';
import { ApiError, tenantId } from './api.js';
import { type CheckLine, type ProbeRun, REPORTS, type ReportForm, saveReport, type SignedFor } from './probe-api.js';
import { formTerms, runSentence } from './probe-words.js';

const VERDICT_CLASS = { PASS: 'status-pass', FAIL: 'status-fail', NOT_CHECKED: 'status-pending' } as const;

/** One run: its status line (live for screen readers), its checks as they arrive, and its reports to save. */
export function RunView({ run }: { run: ProbeRun }) {
  const tone = run.state === 'running' ? 'running' : run.state === 'failed' ? 'status-fail' : VERDICT_CLASS[run.verdict ?? 'NOT_CHECKED'];
  return (
    <section class="panel probe-run" aria-labelledby="probe-run-title">
      <div class="panel-head">
        <h2 id="probe-run-title">
          Run <code>{run.run}</code>
        </h2>
        <span class="muted small-text">
          {run.target.url} · {run.target.user} · {run.target.currency}
        </span>
      </div>
      <p class={`verdict ${tone}`} role="status" aria-live="polite">
        {runSentence(run)}
      </p>
      {run.state === 'done' && <Reports run={run.run} key={run.run} />}
      <div class="table-scroll">
        <table class="probe-checks">
          <caption class="muted">
            {run.checks.length} {run.checks.length === 1 ? 'check' : 'checks'} {run.state === 'running' ? 'done so far' : 'run'}
          </caption>
          <thead>
            <tr>
              <th scope="col">check</th>
              <th scope="col">result</th>
              <th scope="col" class="num">
                ms
              </th>
            </tr>
          </thead>
          <tbody>
            {run.checks.map((c) => (
              <CheckRow key={c.name} check={c} run={run} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

const STATUS_CLASS = { pass: 'status-pass', fail: 'status-fail', warn: 'status-pending', skip: 'status-not_exercised' } as const;

/**
 * A check: its result and time; a failed, warned or skipped one also says why (and what to change).
 * A stopped run's check says why it stopped, in the form's terms, with no fix: the form is at fault,
 * not the wallet (a run kept from before the host said so may still carry one).
 */
function CheckRow({ check: c, run }: { check: CheckLine; run: ProbeRun }) {
  const fix = run.verdict === 'NOT_CHECKED' ? undefined : c.fix;
  const why = c.status !== 'pass' && (c.message || fix);
  return (
    <>
      <tr data-check={c.name} class={why ? 'has-why' : undefined}>
        <td>
          <code>{c.name}</code>
        </td>
        <td>
          <span class={`status ${STATUS_CLASS[c.status]}`}>{c.status}</span>
        </td>
        <td class="num">{c.duration_ms ?? <span class="muted">—</span>}</td>
      </tr>
      {why && (
        <tr class={`check-why why-${c.status}`} data-why={c.name}>
          <td colSpan={3}>
            {c.message && (
              // A stop's check says what the stop says; other checks' messages are the wallet's behaviour, as they are.
              <p class="check-message">{run.verdict === 'NOT_CHECKED' ? formTerms(c.message, run) : c.message}</p>
            )}
            {fix && (
              <p class="check-fix">
                <strong>Fix:</strong> {fix}
              </p>
            )}
          </td>
        </tr>
      )}
    </>
  );
}

/** The finished run's report, saved as a file: signed (the evidence), JSON, HTML or JUnit. */
function Reports({ run }: { run: string }) {
  const [saved, setSaved] = useState<{ file: string; signedFor?: SignedFor }>();
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (form: ReportForm) => {
    setBusy(true);
    setProblem('');
    try {
      setSaved(await saveReport(run, form));
    } catch (e) {
      setSaved(undefined);
      setProblem(
        e instanceof ApiError && e.code === 'SIGNING_NOT_ENABLED'
          ? 'This host signs no reports (it runs without --signing-key): save the JSON, HTML or JUnit report, or ask its operator for signed ones.'
          : `The report could not be read: ${(e as Error).message}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="probe-reports">
      <span class="muted">Save the report:</span>
      {(Object.keys(REPORTS) as ReportForm[]).map((form) => (
        <button type="button" class={form === 'signed' ? 'primary' : undefined} disabled={busy} onClick={() => void save(form)}>
          {REPORTS[form].label}
        </button>
      ))}
      <p class="small-text" role="status">
        {saved && (
          <>
            Saved <code>{saved.file}</code>
            {saved.signedFor && (
              <>
                {' '}
                — signed for tenant <strong class="tenant-name">{saved.signedFor.tenantName}</strong> (
                <code>{saved.signedFor.tenantId}</code>), result {saved.signedFor.result}. Check it with{' '}
                <code>
                  wallet-sim verify-report {saved.file} --public-key {"<the host's public key>"} --tenant{' '}
                  {saved.signedFor.tenantId ?? tenantId}
                </code>
                .
              </>
            )}
          </>
        )}
      </p>
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}
