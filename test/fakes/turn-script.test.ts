// The fake servers' turn script: which conversation and turn a request gets, retries and error-only turns.
import { describe, expect, it } from 'vitest';
import { splitDeltas, TurnScript } from './turn-script.js';

const e401 = { status: 401, message: 'bad key' };
const e503 = { status: 503, message: 'overloaded' };

describe('TurnScript', () => {
  it('starts a new conversation on a request without model turns and answers turn k by the count of model turns', () => {
    const script = new TurnScript([[{ text: 'a0' }, { text: 'a1' }], [{ text: 'b0' }]]);
    expect(script.next(0)).toEqual({ kind: 'turn', conversation: 0, turn: 0, reply: { text: 'a0' } });
    expect(script.next(1)).toEqual({ kind: 'turn', conversation: 0, turn: 1, reply: { text: 'a1' } });
    expect(script.next(0)).toEqual({ kind: 'turn', conversation: 1, turn: 0, reply: { text: 'b0' } });
    expect(script.next(1)).toEqual({ kind: 'exhausted', conversation: 1, turn: 1 });
    expect(script.next(0)).toEqual({ kind: 'exhausted', conversation: 2, turn: 0 });
  });

  it('serves errors to retries of the same first request, then the answer, then moves on', () => {
    const script = new TurnScript([[{ failFirst: [e503, e503], text: 'ok' }], [{ text: 'next' }]]);
    expect(script.next(0)).toMatchObject({ kind: 'error', conversation: 0, error: e503 });
    expect(script.next(0)).toMatchObject({ kind: 'error', conversation: 0, error: e503 });
    expect(script.next(0)).toMatchObject({ kind: 'turn', conversation: 0, reply: { text: 'ok' } });
    expect(script.next(0)).toMatchObject({ kind: 'turn', conversation: 1, reply: { text: 'next' } });
  });

  it('ends an error-only conversation after its last error', () => {
    const script = new TurnScript([[{ failFirst: [e401, e401] }], [{ text: 'after' }]]);
    expect(script.next(0)).toMatchObject({ kind: 'error', conversation: 0 });
    expect(script.next(0)).toMatchObject({ kind: 'error', conversation: 0 });
    expect(script.next(0)).toMatchObject({ kind: 'turn', conversation: 1, reply: { text: 'after' } });
  });

  it('splits text into deltas', () => {
    expect(splitDeltas('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(splitDeltas('')).toEqual(['']);
  });
});
