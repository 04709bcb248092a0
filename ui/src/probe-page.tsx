import { useEffect, useRef, useState } from 'preact/hooks';
import { TENANT_BASE } from './api.js';
import { followRun, getRun, listRuns, type ProbeRun, type ProbeStart, startRun } from './probe-api.js';
import { RunView } from './probe-run.js';
import { type Field, FIELDS, type Problem, runsProblemOf, startProblem } from './probe-words.js';

/** What the form last held, for this tab (the Api-Key is never kept). */
const DRAFT_KEY = `wallet-sim.probe-form${TENANT_BASE}`;
type Draft = Omit<Record<keyof ProbeStart, string>, 'api_key'>;
const EMPTY: Draft = { url: '', api_id: '', user: '', currency: 'USD', decimals: '' };

function loadDraft(): Draft {
  try {
    return { ...EMPTY, ...(JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? '{}') as Partial<Draft>) };
  } catch {
    return EMPTY;
  }
}

/**
 * Probe as a service (a hosted tenant's dashboard, #probe): the operator's side of certification.
 * The operator names its wallet, the credentials it expects, a funded player and its currency;
 * the host plays the probe's battery against it, the checks arrive live, and the report is saved
 * signed (and as JSON, HTML, JUnit). The previous runs stay listed.
 */
export function ProbePage() {
  const [draft, setDraft] = useState<Draft>(loadDraft);
  const [apiKey, setApiKey] = useState('');
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const [runs, setRuns] = useState<ProbeRun[]>([]);
  /** Why the runs could not be read: said in their table, not "No runs yet". */
  const [runsProblem, setRunsProblem] = useState<string>();
  const [shown, setShown] = useState<ProbeRun>();
  const stop = useRef<() => void>();

  const loadRuns = () =>
    listRuns().then(
      (list) => {
        setRuns(list.reverse());
        setRunsProblem(undefined);
        return list;
      },
      (e: unknown) => {
        setRunsProblem(runsProblemOf(e));
        return [] as ProbeRun[];
      },
    );
  /** Shows a run, followed live while it goes. */
  const show = (run: ProbeRun) => {
    stop.current?.();
    stop.current = undefined;
    if (run.state !== 'running') return setShown(run);
    const id = run.run;
    const mine = (f: (r: ProbeRun) => ProbeRun) => setShown((r) => (r?.run === id ? f(r) : r));
    setShown({ ...run, checks: [] }); // the stream sends the checks done so far first
    stop.current = followRun(id, {
      check: (line) => mine((r) => ({ ...r, checks: [...r.checks.filter((c) => c.name !== line.name), line] })),
      progress: (now) => mine(() => now),
      end: (now) => {
        mine(() => now);
        void loadRuns();
      },
    });
  };
  useEffect(() => {
    void loadRuns().then((list) => {
      const going = list.find((r) => r.state === 'running');
      if (going) show(going);
    });
    return () => stop.current?.();
  }, []);

  const set = (name: keyof Draft) => (e: Event) => {
    const next = { ...draft, [name]: (e.currentTarget as HTMLInputElement).value };
    setDraft(next);
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify(next));
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(undefined);
    const body: ProbeStart = {
      url: draft.url.trim(),
      api_id: draft.api_id,
      api_key: apiKey,
      user: draft.user,
      currency: draft.currency.trim() || undefined,
    };
    if (draft.decimals.trim() !== '') body.decimals = Number(draft.decimals);
    setBusy(true);
    try {
      const { run } = await startRun(body);
      show({
        run,
        state: 'running',
        started_at: new Date().toISOString(),
        target: { url: body.url, user: body.user, currency: body.currency ?? 'USD' },
        checks: [],
      });
      void loadRuns();
    } catch (err) {
      const p = startProblem(err);
      setProblem(p);
      if (p.running) void loadRuns().then((list) => list.filter((r) => r.state === 'running').forEach(show));
    } finally {
      setBusy(false);
    }
  };
  const input = (name: Field, props: Record<string, unknown>) => {
    const key = name.slice(1) as keyof Draft | 'api_key';
    const id = `probe-${key}`;
    const wrong = problem?.field === name;
    return (
      <div class="probe-field">
        <label for={id}>{FIELDS[name]}</label>
        <input
          id={id}
          name={key}
          value={key === 'api_key' ? apiKey : draft[key]}
          onInput={key === 'api_key' ? (e) => setApiKey(e.currentTarget.value) : set(key)}
          aria-invalid={wrong ? 'true' : undefined}
          aria-describedby={wrong ? 'probe-problem' : undefined}
          {...props}
        />
      </div>
    );
  };

  return (
    <main class="probe-page">
      <section class="panel probe-form-panel" aria-labelledby="probe-title">
        <div class="panel-head">
          <h2 id="probe-title">Probe your wallet</h2>
        </div>
        <p class="muted small-text">
          The host plays a provider against your wallet: logins, bets, settlements, retries and refusals, about 30 checks in a minute. Give
          a player with at least 4 units of balance in its currency.
        </p>
        <form class="probe-form" onSubmit={(e) => void submit(e)}>
          {input('/url', { type: 'url', required: true, placeholder: "https:// your wallet's callback URL", autocomplete: 'url' })}
          {input('/api_id', { required: true, autocomplete: 'off' })}
          {input('/api_key', { type: 'password', required: true, autocomplete: 'off' })}
          {input('/user', { required: true, autocomplete: 'off' })}
          {input('/currency', { list: 'currencies', autocomplete: 'off' })}
          {input('/decimals', { type: 'number', min: 0, max: 18, placeholder: 'ISO 4217' })}
          <button type="submit" class="primary" disabled={busy || shown?.state === 'running'}>
            {shown?.state === 'running' ? 'Probe running…' : 'Start probe'}
          </button>
        </form>
        {problem && (
          <p id="probe-problem" class="field-error" role="alert">
            {problem.text}
          </p>
        )}
      </section>
      {shown ? (
        <RunView run={shown} />
      ) : (
        <section class="panel probe-run">
          <p class="empty">No run shown: start one, or pick a previous run below.</p>
        </section>
      )}
      <Runs runs={runs} problem={runsProblem} shown={shown?.run} onShow={(id) => void getRun(id).then(show, () => void loadRuns())} />
    </main>
  );
}

function Runs({ runs, problem, shown, onShow }: { runs: ProbeRun[]; problem?: string; shown?: string; onShow: (run: string) => void }) {
  return (
    <section class="panel probe-runs" aria-labelledby="probe-runs-title">
      <div class="panel-head">
        <h2 id="probe-runs-title">Previous runs</h2>
        <span class="muted small-text">the last 20, newest first, kept while the host runs</span>
      </div>
      <div class="table-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">started</th>
              <th scope="col">wallet</th>
              <th scope="col">player</th>
              <th scope="col">result</th>
              <th scope="col">
                <span class="sr-only">actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.run} data-run={r.run} class={r.run === shown ? 'selected' : undefined}>
                <td>{new Date(r.started_at).toLocaleString()}</td>
                <td class="ellipsis">{r.target.url}</td>
                <td>{r.target.user}</td>
                <td>{r.state === 'running' ? 'running' : r.state === 'failed' ? 'failed' : r.verdict?.replace('_', ' ')}</td>
                <td>
                  <button type="button" class="small" aria-label={`Show run ${r.run}`} onClick={() => onShow(r.run)}>
                    Show
                  </button>
                </td>
              </tr>
            ))}
            {problem && (
              <tr>
                <td colSpan={5} class="field-error" role="alert">
                  {problem}
                </td>
              </tr>
            )}
            {runs.length === 0 && !problem && (
              <tr>
                <td colSpan={5} class="empty">
                  No runs yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
