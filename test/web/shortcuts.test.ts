// Keyboard shortcuts: resolved per page, never while typing or with a modifier held.
import { describe, expect, it } from 'vitest';
import { SHORTCUTS, resolveShortcut } from '../../web/src/lib/shortcuts.js';

const press = (key: string, extra: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; editable: boolean }> = {}) => ({ key, ctrlKey: false, metaKey: false, altKey: false, editable: false, ...extra });

describe('resolveShortcut', () => {
  it('resolves keys per scope', () => {
    expect(resolveShortcut('board', press('n'))).toBe('new-run');
    expect(resolveShortcut('board', press('j'))).toBe('next');
    expect(resolveShortcut('run', press('n'))).toBeNull();
    expect(resolveShortcut('run', press('s'))).toBe('stop');
    expect(resolveShortcut('run', press('Escape'))).toBe('back');
    expect(resolveShortcut('board', press('Escape'))).toBeNull();
  });

  it('ignores keys typed in a field and keys with a modifier (browser shortcuts stay the browser’s)', () => {
    expect(resolveShortcut('run', press('p', { editable: true }))).toBeNull();
    expect(resolveShortcut('board', press('n', { ctrlKey: true }))).toBeNull();
    expect(resolveShortcut('board', press('/', { metaKey: true }))).toBeNull();
  });

  it('has no key bound twice in one scope', () => {
    for (const scope of ['board', 'run'] as const) {
      const keys = SHORTCUTS.filter((s) => s.scopes.includes(scope)).map((s) => s.key);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });
});
