// Says plainly when the dashboard is not connected, and when it will try again.
import { countdown } from '../lib/format.js';
import { useNow } from './clock.js';
import { useLinkState, useLive } from './live.js';

function Retry({ retryAt }: { retryAt: number }) {
  const now = useNow();
  return <>retrying in {countdown(retryAt, now)}</>;
}

/** The disconnected banner (nothing while connected). */
export function ConnectionBanner() {
  const state = useLinkState();
  const live = useLive();
  if (state.kind === 'open') return null;
  if (state.kind === 'connecting' && state.attempt === 0) {
    return (
      <div className="banner info" role="status" data-testid="connecting">
        Connecting to the server…
      </div>
    );
  }
  return (
    <div className="banner warn" role="alert" data-testid="disconnected">
      <strong>Disconnected from the server.</strong>{' '}
      {state.kind === 'closed' ? (
        <>
          {state.reason}; <Retry retryAt={state.retryAt} /> (attempt {state.attempt}).{' '}
          <button type="button" onClick={() => live.connection.retryNow()}>
            Reconnect now
          </button>
        </>
      ) : (
        <>Reconnecting…</>
      )}{' '}
      What you see may be out of date until it reconnects.
    </div>
  );
}
