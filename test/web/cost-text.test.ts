// How the dashboard words a cost that is not fully known: never '$0.00+?'.
import { describe, expect, it } from 'vitest';
import { costText } from '../../web/src/lib/format.js';

describe('costText', () => {
  it('words known, partly known and unknown costs', () => {
    expect(costText(1.5, false)).toBe('$1.50');
    expect(costText(0.0123, false)).toBe('$0.0123');
    expect(costText(0.07, true)).toBe('at least $0.0700');
    expect(costText(0, true)).toBe('cost unknown');
    expect(costText(null, false)).toBe('cost unknown');
    expect(costText(0, false)).toBe('$0.00');
  });
});
