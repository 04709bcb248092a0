import { useEffect, useRef, useState } from 'preact/hooks';
import { tenantId } from './api.js';

/** The admin API answered 401: ask for --admin-token, kept in sessionStorage (this tab only). */
export function TokenPrompt({ onToken }: { onToken: (token: string) => void }) {
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
  }, []);
  return (
    <div class="overlay">
      <form
        class="token-prompt"
        role="dialog"
        aria-modal="true"
        aria-labelledby="token-title"
        onSubmit={(e) => {
          e.preventDefault();
          if (value) onToken(value);
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
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit" class="primary">
          Use token
        </button>
      </form>
    </div>
  );
}
