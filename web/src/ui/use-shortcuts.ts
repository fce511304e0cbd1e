// Binds the keyboard shortcuts of a page (lib/shortcuts.ts) to its handlers.
import { useEffect, useRef } from 'react';
import { resolveShortcut, type ShortcutAction, type ShortcutScope } from '../lib/shortcuts.js';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** Calls the handler of each shortcut pressed on this page (not while typing, not inside a dialog). */
export function useShortcuts(scope: ShortcutScope, handlers: Partial<Record<ShortcutAction, () => void>>): void {
  const current = useRef(handlers);
  useEffect(() => {
    current.current = handlers;
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (document.querySelector('dialog[open]') !== null) return;
      const action = resolveShortcut(scope, { key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, editable: isEditable(e.target) });
      const handler = action === null ? undefined : current.current[action];
      if (handler) {
        e.preventDefault();
        handler();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [scope]);
}
