import { useState } from "preact/hooks";
import { type Caller, Client, signInProblem } from "../api";
import { keepToken } from "../session";

/** The token typed once (a token of `serve --tokens`, or with `--auth kubernetes` a
 * Kubernetes bearer token): checked with POST /auth/check, then kept for this tab. */
export function Login(props: { onSignedIn: (client: Client, caller: Caller) => void }) {
  const [token, setToken] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function signIn(event: Event) {
    event.preventDefault();
    const typed = token.trim();
    if (!typed) {
      setProblem("Type your API token.");
      return;
    }
    setBusy(true);
    const client = new Client(typed);
    try {
      const caller = await client.whoAmI();
      keepToken(typed);
      props.onSignedIn(client, caller);
    } catch (failure) {
      setProblem(signInProblem(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="login">
      <h1>gpuctl console</h1>
      <form onSubmit={signIn} aria-describedby={problem ? "login-problem" : undefined}>
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          aria-invalid={problem ? "true" : undefined}
        />
        <p class="hint">
          A token from the server's tokens file, or a Kubernetes bearer token when the server runs
          with <code>--auth kubernetes</code>. It is kept in this tab only.
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {problem && (
          <p id="login-problem" class="problem" role="alert">
            {problem}
          </p>
        )}
      </form>
    </main>
  );
}
