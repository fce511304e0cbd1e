// Whether a CSS media query matches now (and on every change): the phone layout's switch.
import { useSyncExternalStore } from 'react';

/** The width at and below which the dashboard lays itself out for a phone (as styles.css's @media rules). */
export const PHONE_QUERY = '(max-width: 720px)';

/** True while `query` matches. */
export function useMedia(query: string): boolean {
  return useSyncExternalStore(
    (listener) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', listener);
      return () => list.removeEventListener('change', listener);
    },
    () => window.matchMedia(query).matches,
  );
}
