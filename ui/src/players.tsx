import { useState } from 'preact/hooks';
import { api, ApiError, JsonText } from './api.js';
import { amount } from './format.js';
import type { Player } from './types.js';

/**
 * Balances and currencies, each editable in place through PUT /admin/players/:user_id; read-only in
 * proxy mode (`upstream`: the balances are the operator wallet's, and the route answers 409).
 */
export function Players({
  players,
  unread,
  currencies,
  upstream,
  onChanged,
}: {
  /** Undefined: not read (yet), for the reason `unread` says. */
  players?: Player[];
  unread: string;
  currencies: string[];
  upstream?: string;
  onChanged: () => void;
}) {
  const [adding, setAdding] = useState(false);
  const readOnly = upstream !== undefined;
  return (
    <section class="panel players" aria-labelledby="players-title">
      <div class="panel-head">
        <h2 id="players-title">Players</h2>
        {!readOnly && (
          <button type="button" onClick={() => setAdding(!adding)} aria-expanded={adding}>
            {adding ? 'Cancel' : 'Add player'}
          </button>
        )}
      </div>
      {readOnly && <p class="muted note">The balances the wallet under test last reported (read-only): set them in that wallet itself.</p>}
      <table class="players-table">
        <thead>
          <tr>
            <th scope="col">player</th>
            <th scope="col" class="num">
              balance
            </th>
            <th scope="col">currency</th>
            <th scope="col">
              <span class="sr-only">actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {adding && (
            <PlayerRow
              key="__new"
              currencies={currencies}
              onSaved={() => {
                setAdding(false);
                onChanged();
              }}
            />
          )}
          {players?.map((p) => (
            <PlayerRow key={p.user_id} player={p} currencies={currencies} readOnly={readOnly} onSaved={onChanged} />
          ))}
          {(!players || players.length === 0) && !adding && (
            <tr>
              <td colSpan={4} class="empty">
                {players ? 'No players.' : unread}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}

interface Problem {
  pointer: string;
  message: string;
}

/**
 * A balance as money is written (a JSON number without exponent): digits, one optional point. Sent
 * as typed, never through a JS number (which rounds past 15–17 digits and reads 0x10 and 1e2 too).
 */
const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const NOT_DECIMAL =
  'write the balance as a plain decimal, e.g. 1234.56: digits and one optional point (no exponent such as 1e2, no 0x, no leading zero, no thousands separators)';

/** A balance read from the API, written out in full for editing (String(1e-7) would be "1e-7"). */
const plain = (n: number) => n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });

function PlayerRow({
  player,
  currencies,
  readOnly = false,
  onSaved,
}: {
  player?: Player;
  currencies: string[];
  readOnly?: boolean;
  onSaved: () => void;
}) {
  const [editing, setEditing] = useState(player === undefined);
  const [userId, setUserId] = useState(player?.user_id ?? '');
  const [balance, setBalance] = useState(player ? plain(player.balance) : '');
  const [currency, setCurrency] = useState(player?.currency ?? currencies[0] ?? '');
  const [problems, setProblems] = useState<Problem[]>([]);
  const [busy, setBusy] = useState(false);
  const id = player?.user_id ?? userId;
  const field = (pointer: string) => problems.filter((p) => p.pointer === pointer || p.pointer === `body:${pointer}`);
  const other = problems.filter((p) => !['/balance', '/currency', 'body:/balance', 'body:/currency', '/user_id'].includes(p.pointer));

  const start = () => {
    setBalance(player ? plain(player.balance) : '');
    setCurrency(player?.currency ?? currencies[0] ?? '');
    setProblems([]);
    setEditing(true);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    if (!id.trim()) return setProblems([{ pointer: '/user_id', message: 'a player needs a user_id' }]);
    const written = balance.trim();
    if (!DECIMAL.test(written)) return setProblems([{ pointer: '/balance', message: written ? NOT_DECIMAL : 'enter a balance' }]);
    // The JSON written by hand around the digits as typed: the server judges them (scale, bounds), exactly.
    const body = `{"balance":${written}${currency ? `,"currency":${JSON.stringify(currency)}` : ''}}`;
    setBusy(true);
    try {
      await api('PUT', `/admin/players/${encodeURIComponent(id)}`, new JsonText(body));
      setProblems([]);
      setEditing(false);
      onSaved();
    } catch (err) {
      setProblems(err instanceof ApiError && err.details.length ? err.details : [{ pointer: '', message: (err as Error).message }]);
    } finally {
      setBusy(false);
    }
  };

  if (!editing && player) {
    return (
      <tr data-player={player.user_id}>
        <td>{player.user_id}</td>
        <td class="num mono">{amount(player.balance)}</td>
        <td>{player.currency}</td>
        <td>
          {!readOnly && (
            <button
              key="edit"
              type="button"
              class="small"
              onClick={(e) => {
                e.preventDefault();
                start();
              }}
              aria-label={`Edit ${player.user_id}`}
            >
              Edit
            </button>
          )}
        </td>
      </tr>
    );
  }
  const fid = `p-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <tr class="editing" data-player={player?.user_id ?? ''}>
      <td>
        {player ? (
          player.user_id
        ) : (
          <>
            <label class="sr-only" for={`${fid}-id`}>
              user_id
            </label>
            <input
              id={`${fid}-id`}
              name="user_id"
              value={userId}
              required
              placeholder="user_id"
              onInput={(e) => setUserId(e.currentTarget.value)}
            />
            <FieldErrors problems={field('/user_id')} />
          </>
        )}
      </td>
      <td class="num">
        {/* save shows its own failure in the row; the submit event only needs preventDefault, done before any await */}
        <form id={`${fid}-form`} onSubmit={(e) => void save(e)} />
        <label class="sr-only" for={`${fid}-balance`}>
          Balance of {id || 'the new player'}
        </label>
        <input
          id={`${fid}-balance`}
          form={`${fid}-form`}
          name="balance"
          inputMode="decimal"
          value={balance}
          size={10}
          aria-invalid={field('/balance').length > 0}
          aria-describedby={`${fid}-balance-err`}
          onInput={(e) => setBalance(e.currentTarget.value)}
        />
        <FieldErrors id={`${fid}-balance-err`} problems={field('/balance')} />
      </td>
      <td>
        <label class="sr-only" for={`${fid}-currency`}>
          Currency of {id || 'the new player'}
        </label>
        <input
          id={`${fid}-currency`}
          form={`${fid}-form`}
          name="currency"
          list="currencies"
          value={currency}
          size={4}
          aria-invalid={field('/currency').length > 0}
          onInput={(e) => setCurrency(e.currentTarget.value.toUpperCase())}
        />
        <FieldErrors problems={field('/currency')} />
        <FieldErrors problems={other} />
      </td>
      <td class="actions">
        <button key="save" type="submit" form={`${fid}-form`} class="small primary" disabled={busy}>
          Save
        </button>
        {player && (
          <button
            key="cancel"
            type="button"
            class="small"
            onClick={() => {
              setEditing(false);
              setProblems([]);
            }}
          >
            Cancel
          </button>
        )}
      </td>
    </tr>
  );
}

export function FieldErrors({ problems, id }: { problems: Problem[]; id?: string }) {
  if (!problems.length) return null;
  return (
    <span id={id} class="field-error" role="alert">
      {problems.map((p) => p.message).join('; ')}
    </span>
  );
}
