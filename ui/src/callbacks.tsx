import { useMemo, useState } from 'preact/hooks';
import { Detail, ShownCode } from './detail.js';
import { amount, clock, flagsOf } from './format.js';
import { EVENT_TYPES } from '../../src/protocol/events.generated.js';
import type { JournalEntry } from './types.js';

export interface CallbacksProps {
  entries: JournalEntry[];
  paused: boolean;
  /** Entries that came in while paused, not shown yet. */
  waiting: number;
  selected: number | undefined;
  clientTimeoutS: number;
  onSelect: (id: number | undefined) => void;
  onPause: (paused: boolean) => void;
  onClear: () => void;
  /** The journal not read (yet): why, said instead of "no callbacks". */
  unread?: string;
  /** Clear was used: the list is empty by choice, the journal is not. */
  cleared: boolean;
}

/** What an empty list means: not read yet, filtered out, cleared, or none at all. */
function emptyText(p: CallbacksProps): string {
  if (p.entries.length > 0) return 'No callback matches the filters.';
  if (p.unread) return p.unread;
  if (p.cleared)
    return 'Cleared: callbacks from now on show up here. The journal and the report keep the earlier ones (reload the page to list them again).';
  return 'No callbacks yet. Send one to the callback URL and it shows up here.';
}

interface Filter {
  player: string;
  event: string;
  code: string;
  findings: boolean;
}

const CODES = ['R0', 'R1', 'R2', 'R3', 'R4'];

/** The live list of callbacks, newest first, with filters; a click opens request and reply. */
export function Callbacks(p: CallbacksProps) {
  const [filter, setFilter] = useState<Filter>({ player: '', event: '', code: '', findings: false });
  const shown = useMemo(
    () =>
      p.entries.filter(
        (e) =>
          (!filter.player || (e.user_id ?? '').includes(filter.player)) &&
          (!filter.event || e.event_type === filter.event) &&
          (!filter.code || (e.code ?? `HTTP ${e.reply.status}`) === filter.code) &&
          (!filter.findings || e.findings.length > 0),
      ),
    [p.entries, filter],
  );
  const selected = p.selected === undefined ? undefined : p.entries.find((e) => e.id === p.selected);
  const set = (patch: Partial<Filter>) => setFilter({ ...filter, ...patch });
  // One Tab stop for the whole list (a roving tabindex): the row last focused, else the one open,
  // else the newest; the arrow keys move within it. A tab stop per row put hundreds of stops
  // between the filters and the checklist.
  const [focused, setFocused] = useState<number>();
  const tabStop = [focused, p.selected].find((id) => id !== undefined && shown.some((e) => e.id === id)) ?? shown[0]?.id;
  /** The details close, and the focus goes back to the row they belong to (not to the page's start). */
  const close = () => {
    const id = p.selected;
    p.onSelect(undefined);
    const row = document.getElementById(`entry-${id}`);
    if (row) row.focus();
    else document.querySelector<HTMLElement>('.callbacks .table-wrap')?.focus();
  };

  return (
    <section class="panel callbacks" aria-labelledby="callbacks-title">
      <div class="panel-head">
        <h2 id="callbacks-title">Callbacks</h2>
        <span class="count" aria-live="polite">
          {shown.length} shown{p.paused && p.waiting ? `, ${p.waiting} new (paused)` : ''}
        </span>
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter callbacks">
        <label>
          Player{' '}
          <input
            type="search"
            name="player"
            value={filter.player}
            placeholder="user_id"
            onInput={(e) => set({ player: e.currentTarget.value })}
          />
        </label>
        <label>
          Event
          <select name="event" value={filter.event} onChange={(e) => set({ event: e.currentTarget.value })}>
            <option value="">any</option>
            {EVENT_TYPES.map((v) => (
              <option value={v}>{v}</option>
            ))}
          </select>
        </label>
        <label>
          Code
          <select name="code" value={filter.code} onChange={(e) => set({ code: e.currentTarget.value })}>
            <option value="">any</option>
            {CODES.map((v) => (
              <option value={v}>{v}</option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" name="findings" checked={filter.findings} onChange={(e) => set({ findings: e.currentTarget.checked })} />{' '}
          has findings
        </label>
        <span class="spacer" />
        <button type="button" aria-pressed={p.paused} onClick={() => p.onPause(!p.paused)}>
          {p.paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" onClick={p.onClear} title="Empties this list; the simulator's journal and report stay">
          Clear
        </button>
      </form>
      <div class="table-wrap" tabIndex={-1}>
        <table class="entries">
          <thead>
            <tr>
              <th scope="col">time</th>
              <th scope="col">player</th>
              <th scope="col">event</th>
              <th scope="col">transaction_id</th>
              <th scope="col">code</th>
              <th scope="col" class="num" title="balance before → after">
                balance
              </th>
              <th scope="col" class="num">
                ms
              </th>
              <th scope="col">flags</th>
              <th scope="col">rule</th>
              <th scope="col">reason · findings</th>
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colSpan={10} class="empty">
                  {emptyText(p)}
                </td>
              </tr>
            )}
            {shown.map((e) => (
              <Row
                key={e.id}
                e={e}
                selected={e.id === p.selected}
                tabStop={e.id === tabStop}
                clientTimeoutS={p.clientTimeoutS}
                onSelect={p.onSelect}
                onFocus={setFocused}
              />
            ))}
          </tbody>
        </table>
      </div>
      {selected && <Detail entry={selected} onClose={close} />}
    </section>
  );
}

/** Where an arrow key takes the focus from a row: the row below or above, the first or the last. */
const MOVES: Record<string, (row: Element) => Element | null | undefined> = {
  ArrowDown: (row) => row.nextElementSibling,
  ArrowUp: (row) => row.previousElementSibling,
  Home: (row) => row.parentElement?.firstElementChild,
  End: (row) => row.parentElement?.lastElementChild,
};

function Row({
  e,
  selected,
  tabStop,
  clientTimeoutS,
  onSelect,
  onFocus,
}: {
  e: JournalEntry;
  selected: boolean;
  tabStop: boolean;
  clientTimeoutS: number;
  onSelect: (id: number | undefined) => void;
  onFocus: (id: number) => void;
}) {
  const flags = flagsOf(e, clientTimeoutS);
  const open = () => onSelect(selected ? undefined : e.id);
  return (
    <tr
      id={`entry-${e.id}`}
      data-id={e.id}
      class={selected ? 'selected' : ''}
      tabIndex={tabStop ? 0 : -1}
      aria-selected={selected}
      onClick={open}
      onFocus={() => onFocus(e.id)}
      onKeyDown={(k) => {
        if (k.key === 'Enter' || k.key === ' ') {
          k.preventDefault();
          open();
        }
        const to = MOVES[k.key]?.(k.currentTarget);
        if (to instanceof HTMLElement && to.dataset.id !== undefined) {
          k.preventDefault();
          to.focus();
        }
      }}
    >
      <td class="mono" title={e.received_at}>
        {clock(e.received_at)}
      </td>
      <td class="ellipsis player" title={e.user_id}>
        {e.user_id}
      </td>
      <td>{e.event_type}</td>
      <td class="mono ellipsis" title={e.transaction_id}>
        {e.transaction_id}
      </td>
      <td>
        <ShownCode e={e} />
      </td>
      <td class="num mono balance">
        {e.balance_before === undefined && e.balance_after === undefined ? '' : `${amount(e.balance_before)} → ${amount(e.balance_after)}`}
      </td>
      <td class="num">{e.duration_ms}</td>
      <td class="flags">
        {flags.dropped && (
          <span class="flag flag-dropped" title="a scenario rule dropped the connection: the reply was lost">
            dropped
          </span>
        )}
        {flags.late && (
          <span class="flag flag-late" title={`the reply took longer than the client time-out (${clientTimeoutS} s)`}>
            late
          </span>
        )}
        {flags.gone && (
          <span class="flag flag-gone" title="the caller had closed the connection before the reply">
            gone
          </span>
        )}
        {flags.replayed && (
          <span class="flag flag-replayed" title="an identical retry: replayed, nothing changed">
            replay
          </span>
        )}
      </td>
      <td class="rule" title={e.rule?.name}>
        {e.rule?.name}
      </td>
      <td class="reason">
        {e.reason && (
          <div class="reason-text" title={e.reason}>
            {e.reason}
          </div>
        )}
        {e.findings.map((f) => (
          <span class={`finding sev-${f.severity}`} title={`${f.severity}: ${f.message}${f.pointer ? ` (${f.pointer})` : ''}`}>
            {f.code}
          </span>
        ))}
      </td>
    </tr>
  );
}
