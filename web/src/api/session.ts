// Whether this browser is signed in: an API answer 401 means it is not (never signed in, signed out elsewhere,
// or the server's sessions ended by --new-token), a success that it is. Components subscribe to show the sign-in
// page instead of the dashboard.

type Listener = (signedIn: boolean) => void;
const listeners = new Set<Listener>();
let signedIn = true;

/** True until an API request is refused for want of a credential. */
export function isSignedIn(): boolean {
  return signedIn;
}

function set(now: boolean): void {
  if (signedIn === now) return;
  signedIn = now;
  for (const listener of listeners) listener(now);
}

/** Records the status of an API answer (401: not signed in; 2xx: signed in). */
export function noteStatus(status: number): void {
  if (status === 401) set(false);
  else if (status >= 200 && status < 300) set(true);
}

/** This browser signed out. */
export function noteSignedOut(): void {
  set(false);
}

/** Calls `listener` on every change; returns the unsubscribe. */
export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
