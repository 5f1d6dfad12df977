/** The sign-in form, shown when the browser has no access. */
import { useState } from 'preact/hooks';
import { ApiError, post } from '../lib/api.js';

/** Asks for a token; a sign-in link does the same without it. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await post('sign-in', { token });
      onSignedIn();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  return (
    <main class="center">
      <form class="card sign-in" onSubmit={(e) => void submit(e)}>
        <h1>ChokaQ · The Deck</h1>
        <p>
          Access to The Deck is granted, not assumed. Open the sign-in link the server printed, or
          enter a token.
        </p>
        <label>
          Token
          <input
            type="password"
            autocomplete="off"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          />
        </label>
        {error && <p class="error">{error}</p>}
        <button type="submit" disabled={token.length === 0}>
          Sign in
        </button>
      </form>
    </main>
  );
}
