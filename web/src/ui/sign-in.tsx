// What a browser that is not signed in sees instead of the dashboard: how to get a sign-in link; and the header's
// sign-out control.
import { useEffect, useState } from 'react';
import { signOut } from '../api/client.js';
import { isSignedIn, onSessionChange } from '../api/session.js';

/** True while this browser is signed in (false after any 401 until a request succeeds again). */
export function useSignedIn(): boolean {
  const [signedIn, setSignedIn] = useState(isSignedIn);
  useEffect(() => onSessionChange(setSignedIn), []);
  return signedIn;
}

/** The page shown when not signed in. */
export function SignInPage() {
  return (
    <section className="pad sign-in" data-testid="sign-in">
      <h1>Sign in</h1>
      <p>This dashboard needs a sign-in. On the server&apos;s machine, in the same data directory, run:</p>
      <pre>ringmaster serve --sign-in-link</pre>
      <p>and open the link it prints (it works once, within 5 minutes). With the server&apos;s token, open this page&apos;s address with <code>/?token=&lt;token&gt;</code> instead.</p>
      <p>
        <button type="button" onClick={() => window.location.reload()}>
          I have signed in: reload
        </button>
      </p>
    </section>
  );
}

/** The header's sign-out button. */
export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      disabled={busy}
      title="end this browser's session"
      onClick={() => {
        setBusy(true);
        void signOut().finally(() => setBusy(false));
      }}
    >
      Sign out
    </button>
  );
}
