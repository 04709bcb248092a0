import { render } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import './style.css';
import { api, ApiError, tenantId, token, whenUnauthorized } from './api.js';
import { Callbacks } from './callbacks.js';
import { Checklist, type ReportState } from './checklist.js';
import { throttle } from './format.js';
import { type Picture, Pictures } from './pictures.js';
import { Players } from './players.js';
import { ProbePage } from './probe-page.js';
import { INITIAL, useListed } from './rows.js';
import { Scenario } from './scenario.js';
import { follow, type StreamState } from './stream.js';
import { TokenPrompt } from './token-prompt.js';
import type { BundledScenario, Health, JournalEntry, Player, Report, RuleHits, ScenarioDoc } from './types.js';
import { PageLinks, usePage } from './pages.js';

function App() {
  const [session, setSession] = useState(0);
  const page = usePage();
  /** missing: none kept (a hosted tenant's page asks before any call); refused: the one kept stopped working. */
  const [needToken, setNeedToken] = useState<false | 'missing' | 'refused'>(tenantId !== undefined && !token.get() ? 'missing' : false);
  const [stream, setStream] = useState<{ state: StreamState; why?: string }>({ state: 'connecting' });
  const listed = useListed();
  const { shown: entries, paused } = listed;
  const [selected, setSelected] = useState<number | undefined>();
  // Undefined until read: a page that could not read them must not say there are none.
  const [players, setPlayers] = useState<Player[]>();
  const [scenario, setScenario] = useState<ScenarioDoc>();
  const [rules, setRules] = useState<RuleHits[]>();
  const [journalRead, setJournalRead] = useState(false);
  const [bundled, setBundled] = useState<BundledScenario[]>([]);
  const [report, setReport] = useState<ReportState>({ kind: 'loading' });
  /** The wide panel of pictures: a check's timelines, or the retry gaps' histogram. */
  const [picture, setPicture] = useState<Picture>();
  const [error, setError] = useState('');
  /** Proxy mode: the wallet under test (GET /health's upstream), named in the header; the players are then read-only. */
  const [upstream, setUpstream] = useState<string>();
  /** The grading session the stream last named: another one began with a reset or a cleared journal. */
  const gradingSession = useRef<string>();

  const quietly = (p: Promise<unknown>) =>
    p.catch((e: Error) => {
      if (e.name !== 'Unauthorized') setError(e.message);
    });
  const loadPlayers = useCallback(
    () => quietly(api<Player[]>('GET', '/admin/players').then((p) => setPlayers(p.sort((a, b) => a.user_id.localeCompare(b.user_id))))),
    [],
  );
  // The document and its counters are read and shown together: rules are shown with the when → then
  // of their index, so counters of one scenario beside the document of another would pair wrong rules.
  const loadScenario = useCallback(
    () =>
      quietly(
        Promise.all([api<ScenarioDoc>('GET', '/admin/scenario'), api<RuleHits[]>('GET', '/admin/scenario/rules')]).then(([doc, hits]) => {
          setScenario(doc);
          setRules(hits);
        }),
      ),
    [],
  );
  /** A build without session grading: asked again only on load and on a scenario change, not per callback. */
  const reportMissing = useRef(false);
  const loadReport = useCallback(
    () =>
      api<Report>('GET', '/admin/report').then(
        (report) => {
          reportMissing.current = false;
          setReport({ kind: 'ok', report });
        },
        (e: Error) => {
          reportMissing.current = e instanceof ApiError && e.status === 404;
          setReport(reportMissing.current ? { kind: 'missing' } : { kind: 'error', message: e.message });
        },
      ),
    [],
  );
  /** `silently`: read while the stream is down, when a failure is no news (the server may be gone too). */
  const loadJournal = useCallback((silently = false) => {
    const read = api<{ entries: JournalEntry[] }>('GET', `/admin/journal?limit=${INITIAL}`).then((doc) => {
      listed.add(doc.entries);
      setJournalRead(true);
    });
    return silently ? read.catch(() => undefined) : quietly(read);
  }, []);

  // What a callback may change, refreshed live but at most so often.
  const refresh = useMemo(
    () => ({
      live: throttle(() => {
        // The scenario too: one replaced elsewhere changes the rules (and the late flag's time-out).
        void loadScenario();
        void loadPlayers();
      }, 500),
      report: throttle(() => {
        if (!reportMissing.current) void loadReport();
      }, 1000),
    }),
    [],
  );

  /**
   * The journal began again, whoever asked (POST /admin/reset, DELETE /admin/journal, this page's
   * Switch): the rows listed are gone from it, the players and counters may have changed.
   */
  const restart = () => {
    const before = listed.ids();
    void loadPlayers();
    void loadScenario();
    refresh.report();
    void api<{ entries: JournalEntry[] }>('GET', `/admin/journal?limit=${INITIAL}`)
      .then((doc) => doc.entries)
      .catch(() => [])
      .then((fresh) => {
        listed.restart(fresh, before);
        setSelected((id) => (id !== undefined && listed.ids().has(id) ? id : undefined));
      });
  };

  useEffect(() => {
    whenUnauthorized(() => {
      // A kept token that stopped working (rotated) is dropped: the calls after it would only be refused too.
      setNeedToken(token.get() ? 'refused' : 'missing');
      token.clear();
    });
    setPlayers(undefined);
    setRules(undefined);
    setJournalRead(false);
    // A hosted tenant's page calls nothing before it has a token (each call would only be refused).
    if (tenantId !== undefined && !token.get()) return setNeedToken((n) => n || 'missing');
    void loadPlayers();
    void loadScenario();
    void loadReport();
    void quietly(api<BundledScenario[]>('GET', '/admin/scenarios').then(setBundled));
    void api<Health>('GET', '/health').then(
      (h) => setUpstream(h.upstream?.url),
      () => undefined, // a store that failed says so elsewhere; the header then names no wallet
    );
    const s = follow({
      entry: (e) => {
        listed.add([e as JournalEntry]);
        refresh.live();
      },
      // The checklist is read when the verdict changed, never per callback nor in a loop.
      grading: ({ session }) => {
        const last = gradingSession.current;
        gradingSession.current = session;
        if (last !== undefined && session !== last) restart();
        else refresh.report();
      },
      scenario: () => {
        void loadScenario();
        void loadPlayers();
        refresh.report();
      },
      open: () => void loadJournal(), // after the stream is up, so nothing falls between the two
      state: (state, why) => {
        // A reason stays shown while it tries again, until the stream is up.
        setStream((s) => ({ state, why: state === 'live' ? undefined : (why ?? s.why) }));
        // Refused (LISTENERS_FULL) or cut: the list still shows what the journal holds, read at each try.
        if (state === 'down') {
          void loadJournal(true);
          refresh.live();
        }
      },
      unauthorized: () => {
        setNeedToken(token.get() ? 'refused' : 'missing');
        token.clear();
      },
    });
    return () => s.stop();
  }, [session]);

  const clear = () => {
    listed.clear();
    setSelected(undefined);
  };
  const show = async (id: number) => {
    if (!listed.shown.some((e) => e.id === id)) {
      const doc = await api<{ entries: JournalEntry[] }>('GET', `/admin/journal?after=${id - 1}&limit=1`).catch(() => ({ entries: [] }));
      listed.reveal(doc.entries.filter((e) => e.id === id));
    }
    setSelected(id);
    requestAnimationFrame(() => document.getElementById(`entry-${id}`)?.scrollIntoView({ block: 'nearest' }));
  };
  const currencies = Object.keys(scenario?.currencies ?? {});
  const signedIn = tenantId === undefined || token.get() !== null;
  /** What a panel says of what it could not read (yet). */
  const unread =
    needToken || !signedIn ? 'Not read yet: enter the token first.' : error ? 'Not read: see the message at the top.' : 'Reading…';
  const clientTimeoutS = scenario?.grading?.client_timeout_s ?? 10;

  return (
    <>
      <header class="top">
        <h1>
          wallet-sim <span class="muted">dashboard</span>
        </h1>
        {upstream && (
          <span class="under-test" aria-label="Wallet under test">
            wallet under test: <code>{upstream}</code>
          </span>
        )}
        <span class={`live live-${paused ? 'paused' : stream.state}`} role="status" title={stream.why}>
          {paused ? 'paused' : stream.state === 'live' ? 'live' : stream.state === 'connecting' ? 'connecting…' : 'disconnected, retrying'}
        </span>
        <span class="spacer" />
        <PageLinks page={page} />
        <nav aria-label="Links">
          <a href="/docs">API docs</a>
        </nav>
        {token.get() && (
          <button
            type="button"
            class="small"
            onClick={() => {
              token.clear();
              setSession(session + 1);
            }}
          >
            Forget token
          </button>
        )}
      </header>
      {error && (
        <p class="banner" role="alert">
          {error}{' '}
          <button type="button" class="small" onClick={() => setError('')}>
            Dismiss
          </button>
        </p>
      )}
      {stream.state !== 'live' && stream.why && (
        <p class="stream-why" role="status">
          Live updates stopped: {stream.why}. Trying again; the callbacks listed are the journal as last read.
        </p>
      )}
      {needToken && (
        <TokenPrompt
          refused={needToken === 'refused'}
          onToken={(t) => {
            token.set(t);
            setNeedToken(false);
            setError('');
            setSession(session + 1);
          }}
        />
      )}
      {page === 'probe' && signedIn && <ProbePage key={session} />}
      <main class="layout" hidden={page !== 'callbacks'}>
        {picture && report.kind === 'ok' && (
          <Pictures report={report.report} picture={picture} onShow={(id) => void show(id)} onClose={() => setPicture(undefined)} />
        )}
        <Callbacks
          entries={entries}
          paused={paused}
          waiting={listed.waiting.length}
          selected={selected}
          clientTimeoutS={clientTimeoutS}
          onSelect={setSelected}
          onPause={(p) => listed.pause(p)}
          onClear={clear}
          unread={journalRead ? undefined : unread}
          cleared={listed.cleared}
        />
        <div class="side">
          <Checklist state={report} onShow={(id) => void show(id)} onPicture={setPicture} />
          <Players players={players} unread={unread} currencies={currencies} upstream={upstream} onChanged={() => void loadPlayers()} />
          <Scenario
            scenario={scenario}
            rules={rules}
            unread={unread}
            bundled={bundled}
            onChanged={(reset) => {
              if (reset) return restart();
              void loadScenario();
              void loadPlayers();
              void loadReport();
            }}
          />
        </div>
      </main>
      <datalist id="currencies">
        {currencies.map((c) => (
          <option value={c} />
        ))}
      </datalist>
    </>
  );
}

// The page's "Loading…" line is replaced by the app, not kept beside it (Preact renders into the
// element without clearing what the HTML put there).
const root = document.getElementById('app')!;
root.replaceChildren();
render(<App />, root);
