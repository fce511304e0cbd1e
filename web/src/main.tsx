// Entry point of the dashboard: the query cache, the live link, the router.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './ui/app.js';
import { LiveProvider } from './ui/live.js';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // The live link keeps snapshots fresh; refetch only when it says so (or on reconnect).
    queries: { staleTime: Infinity, refetchOnWindowFocus: false, retry: 2 },
  },
});

const root = document.getElementById('root');
if (root === null) throw new Error('no #root element');
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <LiveProvider queryClient={queryClient}>
        <App />
      </LiveProvider>
    </QueryClientProvider>
  </StrictMode>,
);
