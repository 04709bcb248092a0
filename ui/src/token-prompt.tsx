import { useEffect, useRef, useState } from 'preact/hooks';
import { tenantId, tokenRefusal } from './api.js';

/** Why a token was refused, and what to do instead (the prompt stays open, the token not kept). */
export function refusalText(status: number, message: string): string {
  if (status === 403)
    return tenantId === undefined
      ? `That token was refused (${message}).`
      : `That token is another tenant's (${message}): enter the token the host gave you for tenant ${tenantId}.`;
  return tenantId === undefined
    ? `That token was refused (${message}): enter the --admin-token (or WALLET_SIM_ADMIN_TOKEN) this wallet-sim was started with.`
    : `That token was refused (${message}): it is neither this tenant's token nor the host's. Check it was copied whole; ` +
        'if the host made a new one since (rotated it), ask the host for the current token.';
}

/**
 * The admin API wants a token (a 401, or a hosted tenant's page opened without one): ask for it,
 * check it once, and keep it in sessionStorage (this tab only). `refused`: the kept token stopped working.
 */
export function TokenPrompt({ onToken, refused }: { onToken: (token: string) => void; refused?: boolean }) {
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState(
    refused ? 'The token this tab kept was refused (the host may have made a new one): enter the current token.' : '',
  );
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
  }, []);
  const submit = async () => {
    const candidate = value.trim();
    if (!candidate) return setProblem('Enter the token first.');
    setBusy(true);
    setProblem('');
    try {
      const no = await tokenRefusal(candidate);
      if (no) {
        setProblem(refusalText(no.status, no.message));
        input.current?.select();
      } else onToken(candidate);
    } catch (e) {
      setProblem(`The token could not be checked: ${(e as Error).message}. Check the connection, then try again.`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="overlay">
      <form
        class="token-prompt"
        role="dialog"
        aria-modal="true"
        aria-labelledby="token-title"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h2 id="token-title">{tenantId === undefined ? 'Admin token' : 'Tenant token'}</h2>
        {tenantId === undefined ? (
          <p>
            This simulator runs with <code>--admin-token</code>. Enter it to use the dashboard; it is kept for this browser tab only.
          </p>
        ) : (
          <p>
            This is tenant <code>{tenantId}</code> of a hosted wallet-sim. Enter the token its host gave you; it is kept for this browser
            tab only.
          </p>
        )}
        <label for="admin-token">Token</label>
        <input
          id="admin-token"
          ref={input}
          type="password"
          name="token"
          autocomplete="off"
          value={value}
          aria-invalid={problem ? 'true' : undefined}
          aria-describedby={problem ? 'token-problem' : undefined}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        {problem && (
          <p id="token-problem" class="field-error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Checking…' : 'Use token'}
        </button>
      </form>
    </div>
  );
}
