import { useState } from 'preact/hooks';
import { api, ApiError, JsonText } from './api.js';
import type { BundledScenario, RuleHits, ScenarioDoc } from './types.js';

interface Problem {
  pointer: string;
  message: string;
}

export interface ScenarioProps {
  scenario: ScenarioDoc | undefined;
  /** Undefined: not read (yet), for the reason `unread` says. */
  rules?: RuleHits[];
  unread: string;
  bundled: BundledScenario[];
  /** `reset`: players and history were reset too (the page starts its lists over). */
  onChanged: (reset: boolean) => void;
}

/** The active scenario, its rules with hit counters, and the ways to replace it. */
export function Scenario({ scenario, rules, unread, bundled, onChanged }: ScenarioProps) {
  const [choice, setChoice] = useState('');
  const [reset, setReset] = useState(false);
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<Problem[]>([]);
  const [status, setStatus] = useState('');
  /** What the API added to its answer (hosted: the scenario's credentials were ignored). */
  const [note, setNote] = useState('');

  const apply = async (doc: unknown, label: string) => {
    setStatus('');
    setNote('');
    try {
      const r = await api<{ name: string; note?: string }>('PUT', `/admin/scenario${reset ? '?reset=true' : ''}`, doc);
      setProblems([]);
      setStatus(`"${r.name}" is active${reset ? ' (everything reset)' : ''}`);
      setNote(r.note ?? '');
      onChanged(reset);
    } catch (e) {
      setProblems(e instanceof ApiError && e.details.length ? e.details : [{ pointer: '', message: `${label}: ${(e as Error).message}` }]);
    }
  };
  const switchTo = (e: Event) => {
    e.preventDefault();
    const s = bundled.find((b) => b.name === choice);
    if (s) void apply(s.document, s.file);
  };
  const applyText = (e: Event) => {
    e.preventDefault();
    // Sent as written: the server's 400 says where it stops being JSON (line, column) and what it
    // looks like instead (YAML, a comment), and judges numbers the browser would round (1e400).
    void apply(new JsonText(text), 'pasted scenario');
  };
  const upload = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (file) setText(await file.text());
  };
  const ruleDocs = scenario?.rules ?? [];

  return (
    <section class="panel scenario" aria-labelledby="scenario-title">
      <div class="panel-head">
        <h2 id="scenario-title">
          Scenario <span class="scenario-name">{scenario?.name ?? '…'}</span>
        </h2>
      </div>
      {scenario?.description && <p class="muted description">{scenario.description}</p>}
      {scenario?.seed !== undefined && (
        <p class="muted seed">
          Seed <code class="scenario-seed">{scenario.seed}</code>
          {ruleDocs.some((r) => r.probability !== undefined) ? ' (replay this run with start --seed)' : ''}
        </p>
      )}
      <table class="rules">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">rule</th>
            <th scope="col">when → then</th>
            <th scope="col" class="num">
              matched
            </th>
            <th scope="col" class="num">
              fired
            </th>
          </tr>
        </thead>
        <tbody>
          {(!rules || rules.length === 0) && (
            <tr>
              <td colSpan={5} class="empty">
                {rules ? "This scenario has no rules: every callback gets the wallet's own answer." : unread}
              </td>
            </tr>
          )}
          {rules?.map((r) => {
            // Counters and document read a moment apart may belong to two scenarios: never paired then.
            const named = ruleDocs[r.index];
            const doc = ruleDocs.length === rules.length && (named?.name ?? `rule ${r.index}`) === r.name ? named : undefined;
            return (
              <tr data-rule={r.name} class={r.exhausted ? 'exhausted' : ''}>
                <td>{r.index}</td>
                <td>
                  {r.name}
                  {r.exhausted && (
                    <span class="flag" title="times is used up: skipped from now on">
                      {' '}
                      used up
                    </span>
                  )}
                </td>
                <td class="mono small-text">
                  {doc ? `${JSON.stringify(doc.when ?? {})} → ${JSON.stringify(doc.then ?? {})}${doc.times ? ` ×${doc.times}` : ''}` : ''}
                </td>
                <td class="num">{r.matched}</td>
                <td class="num">{r.fired}</td>
              </tr>
            );
          })}
        </tbody>
      </table>

      <form class="switch" onSubmit={switchTo}>
        <label>
          Bundled scenario
          <select name="bundled" value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
            <option value="">choose…</option>
            {bundled.map((b) => (
              <option value={b.name} title={b.description}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" name="reset" checked={reset} onChange={(e) => setReset(e.currentTarget.checked)} /> reset players and
          history
        </label>
        <button type="submit" class="primary" disabled={!choice}>
          Switch
        </button>
      </form>

      <details class="paste">
        <summary>Paste or upload a scenario</summary>
        <form onSubmit={applyText}>
          <label for="scenario-text">Scenario JSON</label>
          <textarea
            id="scenario-text"
            name="scenario"
            rows={8}
            spellcheck={false}
            value={text}
            aria-invalid={problems.length > 0}
            aria-describedby="scenario-problems"
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <div class="row">
            <label>
              Upload a file <input type="file" name="file" accept=".json,application/json" onChange={(e) => void upload(e.currentTarget)} />
            </label>
            <button type="button" onClick={() => scenario && setText(JSON.stringify(scenario, null, 2))}>
              Start from the active one
            </button>
            <button type="submit" class="primary" disabled={!text.trim()}>
              Apply
            </button>
          </div>
        </form>
      </details>
      <div id="scenario-problems" aria-live="polite">
        {problems.length > 0 && (
          <ul class="problems" role="alert">
            {problems.map((p) => (
              <li>
                <code class="pointer">{p.pointer || '/'}</code> <span>{p.message}</span>
                {p.pointer && text ? <ValueAt text={text} pointer={p.pointer} /> : null}
              </li>
            ))}
          </ul>
        )}
        {status && <p class="ok">{status}</p>}
        {note && <p class="api-note">Note: {note}</p>}
      </div>
    </section>
  );
}

/** The value a pointer names in the pasted document, shown beside its error. */
function ValueAt({ text, pointer }: { text: string; pointer: string }) {
  let node: unknown;
  try {
    node = JSON.parse(text);
  } catch {
    return null;
  }
  for (const part of pointer
    .replace(/^body:/, '')
    .split('/')
    .slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return null;
    node = (node as Record<string, unknown>)[key];
  }
  // A number the browser cannot hold (1e400 is Infinity here) would show as null: the message says enough.
  if (typeof node === 'number' && !Number.isFinite(node)) return null;
  return (
    <span class="muted">
      {' '}
      (is <code>{JSON.stringify(node)?.slice(0, 80)}</code>)
    </span>
  );
}
