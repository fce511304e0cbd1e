// The pure Stop decision: seed 002's flow, session ownership, stop_hook_active, and the official plugin's defects.
import { describe, expect, it } from 'vitest';
import { bareMarker, decideStop, hasPromise, markerInBody, type HookLoopState } from '../../src/core/hook-decision.js';

const loop = (over: Partial<HookLoopState> = {}): HookLoopState => ({
  active: true,
  iteration: 0,
  maxIterations: 3,
  completionMarker: 'DONE',
  sessionId: 's1',
  body: '# Loop Progress\n\n_In progress_\n',
  ...over,
});
const event = (over: Partial<{ sessionId: string; stopHookActive: boolean; assistantText: string }> = {}) => ({
  sessionId: 's1',
  stopHookActive: false,
  assistantText: 'working',
  ...over,
});

describe('decideStop', () => {
  it('allows without a loop or with an inactive one', () => {
    expect(decideStop(null, event())).toEqual({ kind: 'allow', reason: 'no_loop', stopReason: null });
    expect(decideStop(loop({ active: false }), event())).toEqual({ kind: 'allow', reason: 'inactive', stopReason: null });
  });

  it('blocks and counts, claiming an unowned loop for the stopping session', () => {
    expect(decideStop(loop(), event())).toEqual({ kind: 'block', iteration: 1, sessionId: 's1' });
    expect(decideStop(loop({ sessionId: null }), event({ sessionId: 's9' }))).toEqual({ kind: 'block', iteration: 1, sessionId: 's9' });
  });

  it('always allows another session', () => {
    expect(decideStop(loop(), event({ sessionId: 's2' }))).toEqual({ kind: 'allow', reason: 'other_session', stopReason: null });
    expect(decideStop(loop(), event({ sessionId: 's2', stopHookActive: true }))).toEqual({ kind: 'allow', reason: 'other_session', stopReason: null });
  });

  it('does not claim an unowned loop for a session that another hook is continuing', () => {
    expect(decideStop(loop({ sessionId: null }), event({ stopHookActive: true }))).toEqual({
      kind: 'allow',
      reason: 'foreign_continuation',
      stopReason: null,
    });
  });

  it('blocks at most maxIterations times whatever stop_hook_active says', () => {
    let state = loop({ maxIterations: 3 });
    const kinds: string[] = [];
    for (let i = 0; i < 10; i++) {
      const d = decideStop(state, event({ stopHookActive: i > 0 }));
      kinds.push(d.kind === 'block' ? `block ${d.iteration}` : `allow ${d.reason}`);
      if (d.kind === 'block') state = { ...state, iteration: d.iteration };
      else break;
    }
    expect(kinds).toEqual(['block 1', 'block 2', 'block 3', 'allow max_iterations']);
    expect(decideStop(state, event())).toEqual({ kind: 'allow', reason: 'max_iterations', stopReason: 'max_iterations' });
  });

  it('ends on the marker in the tracker body or a promise in the assistant text', () => {
    expect(decideStop(loop({ body: '## Status\nDONE\n' }), event())).toEqual({ kind: 'allow', reason: 'marker_in_tracker', stopReason: 'success_signal' });
    expect(decideStop(loop(), event({ assistantText: 'ok < PROMISE >\n done </promise>' }))).toEqual({
      kind: 'allow',
      reason: 'promise',
      stopReason: 'success_signal',
    });
    // Success wins over the limit on the same stop, as in the process loop's decide().
    expect(decideStop(loop({ iteration: 3 }), event({ assistantText: '<promise>DONE</promise>' }))).toEqual({
      kind: 'allow',
      reason: 'promise',
      stopReason: 'success_signal',
    });
  });

  it('does not end on a bare message equal to the marker', () => {
    expect(decideStop(loop(), event({ assistantText: 'DONE' }))).toEqual({ kind: 'block', iteration: 1, sessionId: 's1' });
    expect(decideStop(loop(), event({ assistantText: '<promise>NOT DONE</promise>' }))).toEqual({ kind: 'block', iteration: 1, sessionId: 's1' });
  });
});

describe('marker helpers', () => {
  it('strips promise tags from a configured marker and scans the body case-sensitively', () => {
    expect(bareMarker('<promise>DONE</promise>')).toBe('DONE');
    expect(bareMarker(' DONE ')).toBe('DONE');
    expect(markerInBody('done', 'DONE')).toBe(false);
    expect(markerInBody('x DONE y', '<promise>DONE</promise>')).toBe(true);
    expect(hasPromise('<promise>ALL DONE</promise>', 'ALL   DONE')).toBe(true);
    expect(hasPromise('', 'DONE')).toBe(false);
  });
});
