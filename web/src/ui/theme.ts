// Light and dark themes: the system's preference until the user picks one (remembered in localStorage).
import { useCallback, useEffect, useState } from 'react';

/** A theme. */
export type Theme = 'light' | 'dark';

const KEY = 'ringmaster.theme';

function initialTheme(): Theme {
  const stored = localStorage.getItem(KEY);
  if (stored === 'light' || stored === 'dark') return stored;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The current theme (applied to <html data-theme>) and a toggle. */
export function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const toggle = useCallback(() => {
    setTheme((current) => {
      const next = current === 'dark' ? 'light' : 'dark';
      localStorage.setItem(KEY, next);
      return next;
    });
  }, []);
  return [theme, toggle];
}
