// Follow mode of the live output: sticks to the bottom, pauses when the user scrolls up, counts what
// arrives meanwhile, resumes on jump or on reaching the bottom again.
import { describe, expect, it } from 'vitest';
import { FOLLOWING, atBottom, onAppend, onJump, onLeave, onScroll } from '../../web/src/lib/follow.js';

const at = (scrollTop: number, scrollHeight = 5000, clientHeight = 500) => ({ scrollTop, scrollHeight, clientHeight });

describe('follow mode', () => {
  it('counts the last 24 px as the bottom', () => {
    expect(atBottom(at(4500))).toBe(true);
    expect(atBottom(at(4476))).toBe(true);
    expect(atBottom(at(4475))).toBe(false);
  });

  it('keeps following while output arrives and the view scrolls down with it', () => {
    let s = onScroll(FOLLOWING, at(4500));
    s = onAppend(s, 3);
    expect(s).toEqual({ following: true, unseen: 0, lastTop: 4500 });
    // The content grew by 300 px; the view is scrolled to the new bottom.
    s = onScroll(s, at(4800, 5300));
    expect(s).toEqual({ following: true, unseen: 0, lastTop: 4800 });
  });

  it('pauses when the user scrolls up, then counts new rows instead of scrolling', () => {
    let s = onScroll(FOLLOWING, at(4500));
    s = onScroll(s, at(4000));
    expect(s).toEqual({ following: false, unseen: 0, lastTop: 4000 });
    s = onAppend(s, 2);
    s = onAppend(s, 5);
    expect(s).toEqual({ following: false, unseen: 7, lastTop: 4000 });
  });

  it('does not pause when the content grows under a view that is not at the bottom (no upward scroll)', () => {
    let s = onScroll(FOLLOWING, at(4500));
    // Layout: a row above was re-measured taller; the browser keeps scrollTop, so the bottom moved away.
    s = onScroll(s, at(4500, 5600));
    expect(s.following).toBe(true);
  });

  it('scrolling down while paused keeps it paused until the bottom is reached', () => {
    let s = onScroll(FOLLOWING, at(4500));
    s = onScroll(s, at(1000));
    s = onAppend(s, 4);
    s = onScroll(s, at(3000));
    expect(s).toEqual({ following: false, unseen: 4, lastTop: 3000 });
    s = onScroll(s, at(4500));
    expect(s).toEqual({ following: true, unseen: 0, lastTop: 4500 });
  });

  it('jump back resumes following and clears the count', () => {
    let s = onScroll(onScroll(FOLLOWING, at(4500)), at(100));
    s = onAppend(s, 9);
    expect(onJump(s)).toEqual({ following: true, unseen: 0, lastTop: 100 });
  });

  it('leaving on purpose (a search hit) stops following without a scroll event', () => {
    expect(onLeave(FOLLOWING)).toEqual({ following: false, unseen: 0, lastTop: 0 });
    const paused = { following: false, unseen: 3, lastTop: 10 };
    expect(onLeave(paused)).toBe(paused);
  });

  it('returns the same state object when nothing changed (no re-render)', () => {
    const s = onScroll(FOLLOWING, at(4500));
    expect(onScroll(s, at(4500))).toBe(s);
    expect(onAppend(s, 10)).toBe(s);
  });
});
