// ANSI colours in raw agent output become styled segments: theme classes for the 16 colours, inline rgb for others.
import { describe, expect, it } from 'vitest';
import { ansiSegments } from '../../web/src/lib/ansi.js';

describe('ansiSegments', () => {
  it('a plain line is one unstyled segment; an empty line none; a trailing CR is not shown', () => {
    expect(ansiSegments('plain text')).toEqual([{ text: 'plain text', classes: [], color: null, background: null }]);
    expect(ansiSegments('')).toEqual([]);
    expect(ansiSegments('50%\r')).toEqual([{ text: '50%', classes: [], color: null, background: null }]);
  });

  it('maps the 16 colours and decorations to classes, 256 and true colours to rgb', () => {
    expect(ansiSegments('\u001b[1;31mFAIL\u001b[0m ok \u001b[42;97mPASS\u001b[0m \u001b[38;5;208mo\u001b[0m\u001b[38;2;10;20;30mt\u001b[0m\u001b[2K')).toEqual([
      { text: 'FAIL', classes: ['ansi-red', 'ansi-bold'], color: null, background: null },
      { text: ' ok ', classes: [], color: null, background: null },
      { text: 'PASS', classes: ['ansi-bright-white', 'ansi-green-bg'], color: null, background: null },
      { text: ' ', classes: [], color: null, background: null },
      { text: 'o', classes: [], color: 'rgb(255, 135, 0)', background: null },
      { text: 't', classes: [], color: 'rgb(10, 20, 30)', background: null },
    ]);
  });
});
