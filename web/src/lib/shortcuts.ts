// Keyboard shortcuts of the board and the run page: one table, shown by `?` and resolved here (pure).

/** What a key press asks for. */
export type ShortcutAction =
  | 'help'
  | 'search'
  | 'new-run'
  | 'next'
  | 'previous'
  | 'open'
  | 'back'
  | 'theme'
  | 'follow'
  | 'pause'
  | 'resume'
  | 'stop';

/** Where the key was pressed. */
export type ShortcutScope = 'board' | 'run';

/** One shortcut, for the help overlay. */
export interface Shortcut {
  key: string;
  label: string;
  action: ShortcutAction;
  scopes: readonly ShortcutScope[];
}

/** Every shortcut. Keys are KeyboardEvent.key values. */
export const SHORTCUTS: readonly Shortcut[] = [
  { key: '?', label: 'show shortcuts', action: 'help', scopes: ['board', 'run'] },
  { key: '/', label: 'search', action: 'search', scopes: ['board', 'run'] },
  { key: 'n', label: 'new run', action: 'new-run', scopes: ['board'] },
  { key: 'j', label: 'next run', action: 'next', scopes: ['board'] },
  { key: 'k', label: 'previous run', action: 'previous', scopes: ['board'] },
  { key: 'Enter', label: 'open the selected run', action: 'open', scopes: ['board'] },
  { key: 'Escape', label: 'back to the board', action: 'back', scopes: ['run'] },
  { key: 't', label: 'light / dark theme', action: 'theme', scopes: ['board', 'run'] },
  { key: 'f', label: 'follow live output', action: 'follow', scopes: ['run'] },
  { key: 'p', label: 'pause', action: 'pause', scopes: ['run'] },
  { key: 'r', label: 'resume', action: 'resume', scopes: ['run'] },
  { key: 's', label: 'stop (asks first)', action: 'stop', scopes: ['run'] },
];

/** A key press, as much of it as matters. */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The focus is in a text field, select or editable element: keys are typing, not shortcuts. */
  editable: boolean;
}

/** The action of a key press in a scope, or null (typing, a modifier held, or no such shortcut). */
export function resolveShortcut(scope: ShortcutScope, press: KeyPress): ShortcutAction | null {
  if (press.ctrlKey || press.metaKey || press.altKey) return null;
  if (press.editable) return null;
  return SHORTCUTS.find((s) => s.key === press.key && s.scopes.includes(scope))?.action ?? null;
}
