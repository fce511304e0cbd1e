// Stored event rows are parsed with the event schema on read: a readable row is the event it stored, with the
// row's run id, seq and time; a row this version cannot read is a warning at the same seq (no gap for readers).
import { describe, expect, it } from 'vitest';
import { storedEvent } from '../../src/manager/event-rows.js';

describe('storedEvent', () => {
  it('reads a stored payload as its event, the row giving run id, seq and time', () => {
    const row = { run_id: 'r1', seq: 7, type: 'warning', at: 1000, iteration: null, payload: { type: 'warning', message: 'careful', run_id: 'other', seq: 99, time: 5 } };
    expect(storedEvent(row)).toEqual({ type: 'warning', run_id: 'r1', seq: 7, time: 1000, message: 'careful' });
  });

  it('turns a row it cannot read into a warning at the same seq', () => {
    const row = { run_id: 'r1', seq: 8, type: 'iteration_started', at: 2000, iteration: 3, payload: { iteration: 'three' } };
    expect(storedEvent(row)).toEqual({
      type: 'warning',
      run_id: 'r1',
      seq: 8,
      time: 2000,
      message: 'stored event 8 (iteration_started) cannot be read by this version (iteration: Invalid input: expected number, received string)',
    });
  });
});
