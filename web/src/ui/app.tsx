// The page frame: header (capacity, today's spend, toggles, sign-out), the disconnected banner, the routes; the
// sign-in page instead while this browser is not signed in.
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link, Route, Switch, useLocation, useRoute } from 'wouter';
import { Board } from './board.js';
import { ConnectionBanner } from './banner.js';
import { HelpDialog } from './help.js';
import { SignInPage, SignOutButton, useSignedIn } from './sign-in.js';
import { usePrefetchRun, useStats } from './live.js';
import { useNotificationsToggle } from './notifications.js';
import { useTheme } from './theme.js';
import { TodaySpend } from './budget-header.js';
import { PHONE_QUERY, useMedia } from './use-media.js';

const RunPage = lazy(() => import('./run-page.js'));
const NewRunPage = lazy(() => import('./new-run-page.js'));

function Capacity() {
  const stats = useStats();
  if (!stats.data) return null;
  const { driving, max_concurrent, today_cost_usd, pending } = stats.data;
  // A failed refresh keeps the last numbers, marked as out of date (never shown as if current).
  return (
    <div className={`capacity${stats.isError ? ' stale' : ''}`} data-testid="capacity" data-stale={stats.isError ? 'true' : undefined} title={stats.isError ? 'out of date: the server cannot be reached' : undefined}>
      <span title="runs this server drives now / at most at once (manager.max_concurrent)">
        active <strong>{driving}</strong> / {max_concurrent}
      </span>
      {pending > 0 && (
        <span title="runs waiting for a free slot" className="capacity-queued">
          queued <strong>{pending}</strong>
        </span>
      )}
      <TodaySpend fallbackUsd={today_cost_usd} />
    </div>
  );
}

/** The header's less used buttons: in a row, or on a phone in a menu (so the header takes one line). */
function TopMenu({ phone, children }: { phone: boolean; children: ReactNode }) {
  if (!phone) return <>{children}</>;
  return (
    <details className="top-menu" data-testid="top-menu">
      <summary aria-label="menu">☰</summary>
      <div className="top-menu-items">{children}</div>
    </details>
  );
}

/** The whole dashboard. */
export function App() {
  const [theme, toggleTheme] = useTheme();
  const [notifying, toggleNotifications, notifyProblem] = useNotificationsToggle();
  const [help, setHelp] = useState(false);
  const [, navigate] = useLocation();
  const signedIn = useSignedIn();
  const phone = useMedia(PHONE_QUERY);
  const [onRunPage, runParams] = useRoute('/runs/:id');
  usePrefetchRun(signedIn && onRunPage ? runParams.id : null);
  const shared = { theme, toggleTheme, showHelp: () => setHelp(true) };
  if (!signedIn) {
    return (
      <div className="app">
        <header className="top">
          <span className="brand">Ringmaster</span>
        </header>
        <main>
          <SignInPage />
        </main>
      </div>
    );
  }
  return (
    <div className="app">
      <header className="top">
        <Link href="/" className="brand">
          Ringmaster
        </Link>
        <Capacity />
        <nav className="top-actions">
          <button type="button" onClick={() => navigate('/new')} className="primary">
            <span className="wide-only">New run</span>
            <span className="phone-only">+ New</span>
          </button>
          <TopMenu phone={phone}>
            <button type="button" onClick={toggleNotifications} aria-pressed={notifying} title={notifyProblem ?? 'notify when a run completes, fails or waits on a usage limit'} disabled={notifyProblem !== null && !notifying}>
              {notifying ? 'Notifications on' : 'Notify me'}
            </button>
            <button type="button" onClick={toggleTheme} aria-label={`switch to ${theme === 'dark' ? 'light' : 'dark'} theme`} title="theme (t)">
              {theme === 'dark' ? '☀' : '☾'}
            </button>
            <button type="button" onClick={() => setHelp(true)} aria-label="keyboard shortcuts" title="keyboard shortcuts (?)">
              ?
            </button>
            <SignOutButton />
          </TopMenu>
        </nav>
      </header>
      <ConnectionBanner />
      <main>
        <Suspense fallback={<p className="muted pad">Loading…</p>}>
          <Switch>
            <Route path="/">
              <Board {...shared} />
            </Route>
            <Route path="/new">
              <NewRunPage />
            </Route>
            <Route path="/runs/:id">{(params) => <RunPage id={params.id} {...shared} />}</Route>
            <Route>
              <p className="pad">
                No such page. <Link href="/">Back to the board</Link>
              </p>
            </Route>
          </Switch>
        </Suspense>
      </main>
      <HelpDialog open={help} onClose={() => setHelp(false)} />
    </div>
  );
}
